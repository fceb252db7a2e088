"""The table of maneuver words (routing/vocabulary.py): complete, its turn ranges tiling
every change of bearing, and the only words that routing, the sentences, the schema's
descriptions and the viewer's icons use."""

from __future__ import annotations

import itertools
import json
import re
import string
from dataclasses import fields, replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from babel import Locale
from strawberry.types import get_object_definition

from resolvers.wayfinding.instructions import Words, instruction
from routing.bends import MERGE_DEG, modifier
from routing.maneuvers import Maneuver, Place
from routing.model import CONNECTOR_KINDS, ELEVATOR, ESCALATOR, STAIRS
from routing.route import Ride
from routing.vocabulary import (
    ENGLISH,
    LANGUAGES,
    STRAIGHT,
    TURNS,
    TYPES,
    Language,
    ManeuverType,
    Modifier,
    Range,
    Side,
    language_of,
    modifier_of,
    viewer_icons,
)
from schema.directions_types import RouteManeuver

ROOT = Path(__file__).resolve().parents[2]
ROUTE = ROOT / "rest" / "pages" / "static" / "viewer" / "route"


def spans() -> list[tuple[Range, Modifier | None]]:
    """Every range of the table with its word, no turn's included."""
    return [
        (STRAIGHT, None),
        *((found, word) for word, row in TURNS.items() for found in row.changes),
    ]


def test_every_type_and_modifier_has_a_row_an_icon_and_a_sentence_in_every_language():
    assert list(TYPES) == list(ManeuverType)
    assert list(TURNS) == list(Modifier)
    icons = [row.icon for row in TYPES.values()] + [row.icon for row in TURNS.values()]
    assert all(icons) and len(set(icons)) == len(icons)
    assert all(row.band for row in TURNS.values())
    for language in LANGUAGES.values():
        assert set(language.turns) == set(Modifier) and all(language.turns.values())
        assert set(language.sides) == set(Side) and all(language.sides.values())
        assert set(language.connectors) == set(CONNECTOR_KINDS)
        assert all(language.connectors.values())


def placeholders(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}


NOT_TEMPLATES = {"tag", "capitalised", "number_format"}  # what the templates are said by
TEMPLATES = [f.name for f in fields(Language) if f.type == "str" and f.name not in NOT_TEMPLATES]


def test_the_templates_are_every_other_field_of_text():
    assert len(TEMPLATES) == 14
    assert {field.name for field in fields(Language)} - set(TEMPLATES) == NOT_TEMPLATES | {
        "turns",
        "sides",
        "connectors",
        "floors",
    }


@pytest.mark.parametrize("tag", sorted(LANGUAGES))
def test_every_language_fills_the_same_placeholders_as_english(tag):
    """A template of another language may order its words as it likes, but names the
    same things: `instructions` fills exactly these. The phrases fill none, the floor
    counts only {count}."""
    language = LANGUAGES[tag]
    for name in TEMPLATES:
        ours, english = getattr(language, name), getattr(ENGLISH, name)
        assert placeholders(ours) == placeholders(english), (tag, name)
    assert placeholders(ENGLISH.walked) == {"length", "action"}
    assert placeholders(ENGLISH.turn_at) == {"turn", "landmark"}
    assert placeholders(ENGLISH.then) == {"action", "turn"}
    assert placeholders(ENGLISH.up_floors) == {"connector", "floors", "floor"}
    for phrase in [*language.turns.values(), *language.sides.values()]:
        assert placeholders(phrase) == set(), (tag, phrase)
    assert all(placeholders(name) == set() for name in language.connectors.values())
    assert all(placeholders(form) == {"count"} for form in language.floors.values())


@pytest.mark.parametrize("tag", sorted(LANGUAGES))
def test_every_language_has_a_floor_count_for_each_of_its_plural_categories(tag):
    """Babel's rule for the language picks the form (`instructions.floors`): one for
    each category CLDR gives it, and no other."""
    language = LANGUAGES[tag]
    categories = Locale.parse(tag, sep="-").plural_form.tags | {"other"}
    assert set(language.floors) == categories
    assert language.tag == tag and language_of(tag) is language


def test_the_ranges_tile_every_change_of_bearing():
    """(-180, 180] without a gap or an overlap: each end belongs to exactly one range."""
    ordered = sorted((found for found, _ in spans()), key=lambda found: found.low)
    assert (ordered[0].low, ordered[0].ends[0]) == (-180, "(")
    assert (ordered[-1].high, ordered[-1].ends[1]) == (180, "]")
    for one, other in itertools.pairwise(ordered):
        assert one.high == other.low, (one, other)
        assert (one.ends[1] == "]") != (other.ends[0] == "["), (one, other)
    assert (STRAIGHT.low, STRAIGHT.high, STRAIGHT.ends) == (-MERGE_DEG, MERGE_DEG, "()")


# Quarter degrees over (-180, 180], and each edge of the rule approached from both sides.
EDGES = [
    sign * edge + nudge
    for edge in (20, 60, 120, 170)
    for sign in (1, -1)
    for nudge in (-1e-9, 1e-9)
]
CHANGES = [quarter / 4 for quarter in range(-719, 721)] + EDGES


def test_the_lookup_is_the_row_whose_range_holds_the_change():
    for change in CHANGES:
        holding = [word for found, word in spans() if found.holds(change)]
        assert holding == [modifier_of(change)], change


def old_rule(before: float, after: float) -> str | None:
    """The turn rule as routing/bends.py wrote it before the table (issue 33)."""
    change = (after - before + 180.0) % 360.0 - 180.0
    change = 180.0 if change == -180.0 else change
    size = abs(change)
    if size < 20:
        return None
    if size > 170:
        return "uturn"
    side = "right" if change > 0 else "left"
    return f"slight {side}" if size < 60 else side if size < 120 else f"sharp {side}"


def test_bends_say_the_rule_they_said_with_the_tables_words():
    for before in range(0, 360, 7):
        for after in range(360):
            said = modifier(before, after)
            assert said == old_rule(before, after), (before, after)
            assert said is None or said in TURNS


def a_maneuver(kind: ManeuverType, **facts: Any) -> Maneuver:
    return Maneuver(kind, None, 0, 0, 0, 0, (0.0, 0.0), 1.0, 1.0, 40.0, **facts)


WORDS = Words("Unit 101", "Unit 307", lambda level: f"Floor {level + 1}")
ROUTE_OF_TWO_FLOORS = SimpleNamespace(
    legs=[SimpleNamespace(level=0), SimpleNamespace(level=1)],
    rides=[Ride(ELEVATOR, "e", (0.0, 0.0), 0, 2, 20.0, 40.0)],  # the elevator up 2 floors
)


def test_the_sentences_are_the_tables_templates_filled():
    route: Any = ROUTE_OF_TWO_FLOORS
    for word, phrase in ENGLISH.turns.items():
        turn = replace(a_maneuver(ManeuverType.TURN), modifier=word, walked=0.0)
        assert instruction(turn, route, WORDS) == phrase[0].upper() + phrase[1:]
    place = Place("loc-1", None, "Fitness Center", 0, 0.0, 0.0)
    turn = replace(a_maneuver(ManeuverType.TURN, landmark=place), modifier=Modifier.LEFT)
    assert instruction(turn, route, WORDS) == "Walk 40 ft, then turn left at Fitness Center"
    depart = a_maneuver(ManeuverType.DEPART)
    assert instruction(depart, route, WORDS) == "Start at Unit 101"
    connector = a_maneuver(ManeuverType.CONNECTOR, ride=0)
    assert (
        instruction(connector, route, WORDS)
        == "Walk 40 ft, then take the elevator up 2 floors to Floor 3"
    )
    one_floor = SimpleNamespace(rides=[Ride(STAIRS, "s", (0.0, 0.0), 2, 1, 15.0, 12.0)])
    assert (
        instruction(connector, one_floor, WORDS)
        == "Walk 40 ft, then take the stairs down to Floor 2"
    )
    three = SimpleNamespace(rides=[Ride(ESCALATOR, "s", (0.0, 0.0), 3, 0, 45.0, 36.0)])
    assert (
        instruction(connector, three, WORDS)
        == "Walk 40 ft, then take the escalator down 3 floors to Floor 1"
    )
    for side, phrase in ENGLISH.sides.items():
        arrive = a_maneuver(ManeuverType.ARRIVE, side=side)
        assert instruction(arrive, route, WORDS) == f"Walk 40 ft, then arrive at Unit 307 {phrase}"
        unnamed = Words(None, None, WORDS.level_name)
        assert (
            instruction(arrive, route, unnamed)
            == f"Walk 40 ft, then arrive at your destination on Floor 2, {phrase}"
        )


def backticked(description: str) -> list[str]:
    return re.findall(r"`([^`]+)`", description)


def test_the_schema_describes_the_tables_words():
    described = {
        field.python_name: field.description
        for field in get_object_definition(RouteManeuver, strict=True).fields
    }
    assert backticked(described["type"]) == list(TYPES)
    assert backticked(described["modifier"]) == list(TURNS)
    assert backticked(described["side"]) == [ManeuverType.ARRIVE, *Side]
    assert "20-60 slight, 60-120 plain, 120-170 sharp, beyond U-turn." in described["modifier"]


def test_the_viewer_draws_each_icon_of_the_table():
    """`route/vocabulary.json` is the table's (tests/docs/test_generated_files.py names it
    when stale), and `route/icons.js` draws every icon it names."""
    assert json.loads((ROUTE / "vocabulary.json").read_text(encoding="utf-8")) == viewer_icons()
    script = (ROUTE / "icons.js").read_text(encoding="utf-8")
    drawn = set(re.findall(r'^  "?([a-z-]+)"?: ', script, re.MULTILINE))
    icons = viewer_icons()
    assert set(icons["types"].values()) | set(icons["modifiers"].values()) <= drawn
    for word in [*ManeuverType, *Modifier]:
        assert f'"{word}"' not in script, f"icons.js names {word!r}: read it from vocabulary.json"
