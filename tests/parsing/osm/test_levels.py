"""OSM `level` values as the levels they name (parsing/osm/levels.py)."""

from __future__ import annotations

import pytest

from parsing.osm.levels import levels_of, parse_levels


@pytest.mark.parametrize(
    ("value", "levels"),
    [
        ("0", (0.0,)),
        ("-1", (-1.0,)),
        ("0;1", (0.0, 1.0)),
        ("1;0;1", (0.0, 1.0)),
        ("-1-0", (-1.0, 0.0)),
        ("0-2", (0.0, 1.0, 2.0)),
        ("-2--1", (-2.0, -1.0)),
        ("1.5", (1.5,)),
        ("0.5-2", (0.5, 1.0, 2.0)),
        ("roof", None),
        ("2-", None),
        ("", None),
        ("0-100000", None),
    ],
)
def test_level_values(value: str, levels: tuple[float, ...] | None) -> None:
    assert parse_levels(value) == levels


def test_repeat_on_adds_levels() -> None:
    assert levels_of({"level": "0", "repeat_on": "2;3"}) == (0.0, 2.0, 3.0)
    assert levels_of({"name": "no level"}) is None
