"""The sentences of a route's maneuvers, in the manner of Valhalla's narrative: each one
says the walk since the previous maneuver, then what to do ("Walk 40 ft, then turn
slightly right", "Take the stairs up 2 floors to Floor 3", "Arrive at Unit 307 on your
right").

Lengths are written in feet (`imperial`, the default) or metres (`metric`), whole
numbers, in the language's unit words and number format (Babel's, from CLDR: "12 m",
"12 公尺", "40英尺", French's narrow no-break space before "m"); a walk that rounds to
nothing is left out. The numbers of the answer stay in feet whatever the texts say. A
connector is named by its kind, so a wheelchair route never says stairs: the walk graph
gives it none to take. The templates and phrases are a `routing.vocabulary.Language`
(English by default); this module picks which one says what, and counts floors by the
language's plural rules.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import TYPE_CHECKING

from parsing.measures import METRES_PER_FOOT
from routing.vocabulary import ENGLISH, Language, ManeuverType

if TYPE_CHECKING:  # routing's rest and Babel: imported by the functions that need them
    from babel import Locale

    from routing.maneuvers import Maneuver
    from routing.route import Route

UNITS = ("imperial", "metric")


@dataclass(frozen=True)
class Words:
    """What the sentences name: the waypoints, the floors, the length unit."""

    start: str | None  # the start's name, None for an ad-hoc point
    end: str | None
    level_name: Callable[[int], str]  # a level (position, lowest 0) -> its floor's name
    units: str = "imperial"


@cache  # one per language: Babel's parse of a tag costs microseconds
def _locale(tag: str) -> Locale:
    from babel import Locale  # on the first sentence, not at start (issue 15)

    return Locale.parse(tag, sep="-")


@lru_cache(maxsize=4096)  # Babel's unit format costs 18 us a call, a route says several
def _measured(tag: str, number_format: str | None, unit: str, whole: int) -> str:
    from babel.units import format_unit

    return format_unit(whole, unit, length="short", format=number_format, locale=_locale(tag))


def length(feet: float, units: str, says: Language = ENGLISH) -> str | None:
    """`40 ft` or `12 m` as `says` writes them (`40英尺`, `12 公尺`); None when it rounds
    to nothing."""
    if units == "metric":
        whole, unit = round(feet * METRES_PER_FOOT), "length-meter"
    else:
        whole, unit = round(feet), "length-foot"
    return _measured(says.tag, says.number_format, unit, whole) if whole else None


@lru_cache(maxsize=256)  # floor counts are few; Babel's number and rule cost 7 us
def _counted(tag: str, number_format: str | None, count: int) -> tuple[str, str]:
    """`count` in the language's number format, and its CLDR plural category."""
    from babel.numbers import format_decimal

    locale = _locale(tag)
    return format_decimal(count, format=number_format, locale=locale), locale.plural_form(count)


def floors(count: int, says: Language) -> str:
    """`2 floors`, `1 Etage`, `2 étages`: the form of `says.floors` that the language's
    plural rule picks for `count` (Babel's `Locale.plural_form`)."""
    number, category = _counted(says.tag, says.number_format, count)
    return says.floors[category].format(count=number)


def instruction(maneuver: Maneuver, route: Route, words: Words, says: Language = ENGLISH) -> str:
    """One maneuver's sentence: "Walk <length>, then <action>", or the action alone."""
    action = _action(maneuver, route, words, says)
    walked = (
        None if maneuver.type == ManeuverType.DEPART else length(maneuver.walked, words.units, says)
    )
    if walked is None:
        return action[0].upper() + action[1:] if says.capitalised else action
    return says.walked.format(length=walked, action=action)


def _action(maneuver: Maneuver, route: Route, words: Words, says: Language) -> str:
    """What to do at the maneuver: the language's template for its type and case."""
    from routing.model import CONNECTOR_NAMES, LEVEL_DOORS

    if maneuver.type == ManeuverType.DEPART:
        return says.depart.format(start=words.start) if words.start else says.depart_unnamed
    if maneuver.type == ManeuverType.TURN:
        assert maneuver.modifier is not None
        turn = says.turns[maneuver.modifier]
        if maneuver.landmark is not None:
            turn = says.turn_at.format(turn=turn, landmark=maneuver.landmark.name)
        for told in maneuver.then:  # "turn left at X, then turn right"
            turn = says.then.format(action=turn, turn=says.turns[told.modifier])
        return turn
    if maneuver.type == ManeuverType.CONNECTOR:
        assert maneuver.ride is not None
        ride = route.rides[maneuver.ride]
        if ride.kind in LEVEL_DOORS:  # no floor climbed: neither up nor down
            return says.through.format(floor=words.level_name(ride.to_level))
        up = ride.to_level > ride.from_level
        if ride.floors > 1:  # one ride over several floors is one step
            way = says.up_floors if up else says.down_floors
        else:
            way = says.up if up else says.down
        return way.format(
            connector=says.connectors[CONNECTOR_NAMES[ride.kind]],
            floors=floors(ride.floors, says),
            floor=words.level_name(ride.to_level),
        )
    side = says.sides[maneuver.side] if maneuver.side else None
    if words.end:
        if side is None:  # trailing blanks of the name dropped, as ever
            return says.arrive.format(end=words.end).rstrip()
        return says.arrive_beside.format(end=words.end, side=side)
    floor = words.level_name(route.legs[-1].level)
    if side is None:
        return says.arrive_unnamed.format(floor=floor)
    return says.arrive_unnamed_beside.format(floor=floor, side=side)
