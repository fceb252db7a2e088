"""A row's values are read by name, so a renamed limit breaks the table loudly; and the
page's quantities read as it writes them (`8 KiB`, `15 s`, `1,000`)."""

from __future__ import annotations

import pytest

import resolvers.limits
import rest.ops.linger
from resolvers.auth.keys import KeyCache
from resolvers.errors import ErrorCode
from rest.limits.rows import (
    answer,
    constant,
    count,
    default_of,
    duration,
    every,
    name_of,
    part,
    percent,
    said,
    seconds,
    setting,
    setting_named,
    shortened,
    size,
    whole,
)


def test_a_setting_is_read_from_its_row():
    body = setting("FLOORGATE_MAX_BODY_BYTES")
    assert (body.name, body.module, body.code) == (
        "FLOORGATE_MAX_BODY_BYTES",
        "",
        "`FLOORGATE_MAX_BODY_BYTES`",
    )
    assert setting("FLOORGATE_EVENT_RETENTION_SECONDS").at_least == 3600
    assert setting_named("FLOORGATE_PERSISTED_QUERIES") == "`FLOORGATE_PERSISTED_QUERIES`"


def test_a_constant_is_read_where_it_is_enforced():
    target = constant(resolvers.limits, "MAX_TARGET_BYTES")
    assert (target.value, target.path) == (
        resolvers.limits.MAX_TARGET_BYTES,
        "`resolvers/limits.py`",
    )
    buffer = constant(rest.ops.linger, "LINGER_READ_BUFFER", item=0)
    assert (buffer.value, buffer.item) == (rest.ops.linger.LINGER_READ_BUFFER[0], 0)
    entries = default_of(KeyCache, "max_entries")
    assert (entries.name, entries.value) == ("KeyCache.max_entries", KeyCache().max_entries)


def test_a_name_that_is_gone_breaks_the_table():
    with pytest.raises(KeyError):
        setting("FLOORGATE_NO_SUCH_LIMIT")
    with pytest.raises(KeyError):
        setting_named("FLOORGATE_NO_SUCH_MODE")
    with pytest.raises(AttributeError):
        constant(resolvers.limits, "NO_SUCH_LIMIT")
    with pytest.raises(AttributeError):
        name_of(resolvers.limits, "NO_SUCH_TABLE")
    with pytest.raises(KeyError):
        default_of(KeyCache, "no_such_argument")


def test_only_numbers_are_shown():
    with pytest.raises(TypeError, match="FLOORGATE_HOST"):
        setting("FLOORGATE_HOST")
    with pytest.raises(TypeError, match="LIST_ESTIMATES"):
        constant(resolvers.limits, "LIST_ESTIMATES")


def test_quantities_read_as_the_page_writes_them():
    assert [size(8 * 1024), size(16 * 1024 * 1024), size(512 * 1024 * 1024), size(1000)] == [
        "8 KiB",
        "16 MiB",
        "512 MiB",
        "1,000 bytes",
    ]
    assert [count(1000), count(20.0), count(250_000), count(2.5)] == [
        "1,000",
        "20",
        "250,000",
        "2.5",
    ]
    assert [whole(1048576), whole(200.0), whole(0.5)] == ["1048576", "200", "0.5"]
    assert [seconds(15.0), seconds(1.5), seconds(0.02)] == ["15 s", "1.5 s", "20 ms"]
    assert [duration(7 * 24 * 3600.0), duration(3600), duration(180), duration(90)] == [
        "7 days",
        "1 hour",
        "3 minutes",
        "90 s",
    ]
    assert [every(60), every(180), every(5), every(1), every(2.25)] == [
        "every minute",
        "every 3 minutes",
        "every 5 s",
        "every 1 s",
        "every 2.25 s",
    ]
    assert [percent(0.3), percent(0.5)] == ["30%", "50%"]
    assert [part(2), part(1 / 0.25), part(8), part(5)] == ["half", "a quarter", "an eighth", "1/5"]
    with pytest.raises(ValueError):
        part(2.5)


def test_refusals_are_the_services_messages():
    assert (
        answer(ErrorCode.URI_TOO_LONG, limit=8192) == "414 `Request target longer than 8192 bytes`"
    )
    assert said(ErrorCode.RATE_LIMITED) == "`API rate limit exceeded`"


def test_names_of_one_family_are_shortened():
    svg = [setting(f"FLOORGATE_SVG_MAX_{part}") for part in ("BYTES", "ELEMENTS", "DEPTH")]
    assert shortened(*svg) == "`FLOORGATE_SVG_MAX_BYTES`, `_MAX_ELEMENTS`, `_MAX_DEPTH`"
