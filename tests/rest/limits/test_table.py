"""The table of limits says what the code says: every value a row is written from is, found
afresh by its name, the setting's default or the constant as the code has it now; every
setting or constant a row names is one of its values; and a changed constant changes the
page."""

from __future__ import annotations

import importlib
import inspect
import re
from collections.abc import Iterator

import pytest

import resolvers.limits
import rest.limits.connections
import rest.limits.table
import rest.limits.values
from rest.limits.doc import DOC, limits_doc
from rest.limits.rows import Named
from rest.limits.table import LIMITS, SECTIONS
from storage.settings import SETTINGS, Settings
from storage.settings_fields import value_at

# Named in a Setting cell, not numbers: their existence is checked by name_of and
# setting_named (tests/rest/limits/test_rows.py) and tests/docs/test_limits_doc.py.
NOT_NUMBERS = {"SERVED_METHODS", "REQUIRED", "FLOORGATE_PERSISTED_QUERIES"}


def code_value(named: Named) -> object:
    """The value in the code now, looked up from the name alone."""
    if not named.module:
        row = next(row for row in SETTINGS if row.variable == named.name)
        return value_at(Settings(), row.name)
    module = importlib.import_module(named.module)
    owner, _, argument = named.name.partition(".")
    if argument:
        return inspect.signature(getattr(module, owner)).parameters[argument].default
    value = getattr(module, named.name)
    return value if named.item is None else value[named.item]


def test_every_value_shown_is_the_codes():
    shown = [named for row in LIMITS for named in row.shows]
    assert len({named.name for named in shown}) >= 90
    wrong = [(named.name, named.value, code_value(named)) for named in shown]
    assert [each for each in wrong if each[1] != each[2]] == []


def test_every_name_in_a_setting_cell_is_one_of_its_rows_values():
    for row in LIMITS:
        named = set(re.findall(r"`(_?[A-Z][A-Za-z_.]*[A-Za-z])`", row.setting))
        shown = {each.name for each in row.shows}
        tails = {each.name[each.name.find("_MAX") :] for each in row.shows if "_MAX" in each.name}
        assert named - shown - tails - NOT_NUMBERS == set(), row.what


def test_every_row_has_a_section_of_the_page_and_every_section_rows():
    assert {row.section for row in LIMITS} == set(SECTIONS)
    assert len({section.name for section in SECTIONS}) == len(SECTIONS)
    assert len(LIMITS) >= 90


@pytest.fixture
def smaller_target(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """MAX_TARGET_BYTES halved, the table read again; the real one read back after."""
    monkeypatch.setattr(resolvers.limits, "MAX_TARGET_BYTES", 4 * 1024)
    reloaded = (rest.limits.values, rest.limits.connections, rest.limits.table)
    for module in reloaded:
        importlib.reload(module)
    yield
    monkeypatch.undo()
    for module in reloaded:
        importlib.reload(module)


def test_a_changed_constant_changes_the_page(smaller_target: None):
    from rest.limits.table import LIMITS as CHANGED

    page = limits_doc(DOC.read_text(encoding="utf-8"), rows=CHANGED)
    assert (
        "| 4 KiB | `MAX_TARGET_BYTES` | 414 `Request target longer than 4096 bytes`, "
        "connection closed |"
    ) in page
    assert "8 KiB | `MAX_TARGET_BYTES`" not in page
