"""The words of a route's maneuvers in one table, as OSRM keeps its own (indexed by an
enum), so that what routing decides, what the sentences say, what the schema describes
and what the viewer draws cannot drift apart.

A row per maneuver type and per turn modifier: the changes of bearing a modifier stands
for and the viewer's icon of each (`viewer_icons`, written to the viewer's
`route/vocabulary.json` by `make generate`). The sentences are one `Language` each,
templates with named placeholders, so that a language is one more of them (issue 51).
docs/routing.md, "The words", says how to add a word or a language.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Literal


class ManeuverType(StrEnum):
    """A maneuver's `type`."""

    DEPART = "depart"
    TURN = "turn"
    CONNECTOR = "connector"
    ARRIVE = "arrive"


class Modifier(StrEnum):
    """A turn's `modifier`."""

    UTURN = "uturn"
    SHARP_RIGHT = "sharp right"
    RIGHT = "right"
    SLIGHT_RIGHT = "slight right"
    SLIGHT_LEFT = "slight left"
    LEFT = "left"
    SHARP_LEFT = "sharp left"


class Side(StrEnum):
    """The side an arrival's destination lies on (`side`)."""

    LEFT = "left"
    RIGHT = "right"


Ends = Literal["[)", "(]", "[]", "()"]


@dataclass(frozen=True)
class Range:
    """Changes of bearing from `low` to `high` degrees, positive to the right, each end in
    or out as `ends` writes it ("[)": `low` in, `high` out)."""

    low: float
    high: float
    ends: Ends = "[)"

    def holds(self, change: float) -> bool:
        above = change >= self.low if self.ends[0] == "[" else change > self.low
        below = change <= self.high if self.ends[1] == "]" else change < self.high
        return above and below


@dataclass(frozen=True)
class TypeWord:
    """A maneuver type: what the schema's description adds to it, and the viewer's icon
    (of a turn without a modifier, of a connector of a kind without an icon of its own)."""

    note: str
    icon: str


@dataclass(frozen=True)
class TurnWord:
    """A turn modifier: the changes of bearing (whole degrees, d = after - before brought
    into (-180, 180]) it stands for, its band as the schema's description names it, and
    the viewer's icon."""

    changes: tuple[Range, ...]
    band: str
    icon: str


MERGE_DEG = 20  # a smaller change of bearing is no turn (the bends merge)
STRAIGHT = Range(-MERGE_DEG, MERGE_DEG, "()")  # no modifier: no turn

TYPES: dict[ManeuverType, TypeWord] = {
    ManeuverType.DEPART: TypeWord("first", "depart"),
    ManeuverType.TURN: TypeWord("", "turn-straight"),
    ManeuverType.CONNECTOR: TypeWord(
        "one per connector taken, where it is entered", "connector-other"
    ),
    ManeuverType.ARRIVE: TypeWord("last", "arrive"),
}

TURNS: dict[Modifier, TurnWord] = {
    Modifier.UTURN: TurnWord(
        (Range(170, 180, "(]"), Range(-180, -170, "()")), "U-turn", "turn-uturn"
    ),
    Modifier.SHARP_RIGHT: TurnWord((Range(120, 170, "[]"),), "sharp", "turn-sharp-right"),
    Modifier.RIGHT: TurnWord((Range(60, 120),), "plain", "turn-right"),
    Modifier.SLIGHT_RIGHT: TurnWord((Range(MERGE_DEG, 60),), "slight", "turn-slight-right"),
    Modifier.SLIGHT_LEFT: TurnWord((Range(-60, -MERGE_DEG, "(]"),), "slight", "turn-slight-left"),
    Modifier.LEFT: TurnWord((Range(-120, -60, "(]"),), "plain", "turn-left"),
    Modifier.SHARP_LEFT: TurnWord((Range(-170, -120, "[]"),), "sharp", "turn-sharp-left"),
}


@dataclass(frozen=True)
class Language:
    """The sentences of one language: templates with named placeholders, a phrase per
    turn modifier and per side. `instructions` picks the template; the template orders
    the words, so a language never has to follow English's order."""

    walked: str  # {length} walked since the previous maneuver, then its {action}
    depart: str  # {start}: the start's name
    depart_unnamed: str  # an ad-hoc start
    turns: Mapping[Modifier, str]
    turn_at: str  # {turn} (a phrase of `turns`) at {landmark}
    up: str  # {connector} (its kind's name) up to {floor}, one floor
    down: str
    up_floors: str  # likewise, {floors} floors (2 or more) in one ride
    down_floors: str
    through: str  # a door to {floor}, a level of the same height (issue 48)
    arrive: str  # {end}: the destination's name
    arrive_beside: str  # {end}, {side} (a phrase of `sides`)
    arrive_unnamed: str  # an ad-hoc destination, on {floor}
    arrive_unnamed_beside: str  # likewise, {side}
    sides: Mapping[Side, str]


ENGLISH = Language(
    walked="Walk {length}, then {action}",
    depart="start at {start}",
    depart_unnamed="start at your location",
    turns={
        Modifier.UTURN: "make a U-turn",
        Modifier.SHARP_RIGHT: "turn sharply right",
        Modifier.RIGHT: "turn right",
        Modifier.SLIGHT_RIGHT: "turn slightly right",
        Modifier.SLIGHT_LEFT: "turn slightly left",
        Modifier.LEFT: "turn left",
        Modifier.SHARP_LEFT: "turn sharply left",
    },
    turn_at="{turn} at {landmark}",
    up="take the {connector} up to {floor}",
    down="take the {connector} down to {floor}",
    up_floors="take the {connector} up {floors} floors to {floor}",
    down_floors="take the {connector} down {floors} floors to {floor}",
    through="go through the door to {floor}",
    arrive="arrive at {end}",
    arrive_beside="arrive at {end} {side}",
    arrive_unnamed="arrive at your destination on {floor}",
    arrive_unnamed_beside="arrive at your destination on {floor}, {side}",
    sides={Side.LEFT: "on your left", Side.RIGHT: "on your right"},
)
LANGUAGES: dict[str, Language] = {"en": ENGLISH}  # by BCP 47 tag


def _lookup(spans: list[tuple[Range, Modifier | None]]) -> Callable[[float], Modifier | None]:
    """The word of a change of bearing, by bisection over the ranges sorted (they tile
    (-180, 180], tests/routing/test_vocabulary.py): the turn rule is asked for every stop
    each time a neighbour is dropped, so it must cost no more than the comparisons it
    replaced (a closure: a call of an object's `__call__` costs a third more)."""
    ordered = sorted(spans, key=lambda span: (span[0].low, span[0].ends[0] == "("))
    highs = [found.high for found, _ in ordered]
    open_high = [found.ends[1] == ")" for found, _ in ordered]
    words = [word for _, word in ordered]

    def modifier_of(change: float) -> Modifier | None:
        k = bisect_left(highs, change)
        if open_high[k] and highs[k] == change:
            k += 1
        return words[k]

    return modifier_of


modifier_of = _lookup(
    [(STRAIGHT, None), *((found, word) for word, row in TURNS.items() for found in row.changes)]
)
"""The modifier of a change of bearing in (-180, 180]; None under MERGE_DEG (no turn)."""


def viewer_icons() -> dict[str, dict[str, str]]:
    """The viewer's `route/vocabulary.json`: the icon of each type and each modifier
    (`route/icons.js` draws them by name)."""
    return {
        "types": {str(kind): word.icon for kind, word in TYPES.items()},
        "modifiers": {str(word): row.icon for word, row in TURNS.items()},
    }
