"""docs/api.md names the maneuver words as the table has them (routing/vocabulary.py):
every type and every modifier, in the table's order, and no other."""

from __future__ import annotations

import re
from pathlib import Path

from routing.vocabulary import ManeuverType, Modifier

API_DOC = Path(__file__).resolve().parents[2] / "docs" / "api.md"


def maneuvers_paragraph() -> str:
    text = API_DOC.read_text(encoding="utf-8")
    start = text.index("- `maneuvers` (issue 33)")
    return " ".join(text[start : text.index("`bearing_before`", start)].split())


def test_the_modifiers_are_the_tables_in_its_order():
    listed = re.search(r"`modifier` \(turns: (.*?)\),", maneuvers_paragraph())
    assert listed is not None
    assert re.findall(r"`([^`]+)`", listed.group(1)) == [word.value for word in Modifier]


def test_the_types_are_the_tables():
    listed = re.search(r"`type` \((.*?)\), `modifier`", maneuvers_paragraph())
    assert listed is not None
    named = re.findall(r"`([^`]+)`", listed.group(1))
    assert sorted(named) == sorted(word.value for word in ManeuverType)
