"""The sentences of a route's maneuvers, in the manner of Valhalla's narrative: each one
says the walk since the previous maneuver, then what to do ("Walk 40 ft, then turn
slightly right", "Take the stairs up 2 floors to Floor 3", "Arrive at Unit 307 on your
right").

Lengths are written in feet (`imperial`, the default) or metres (`metric`), whole
numbers; a walk that rounds to nothing is left out. The numbers of the answer stay in
feet whatever the texts say. A connector is named by its kind, so a wheelchair route
never says stairs: the walk graph gives it none to take. The templates and phrases are a
`routing.vocabulary.Language` (English by default); this module picks which one says what.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from parsing.measures import METRES_PER_FOOT
from routing.vocabulary import ENGLISH, Language, ManeuverType

if TYPE_CHECKING:  # the rest of routing is imported by the functions that need it
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


def length(feet: float, units: str) -> str | None:
    """`40 ft` or `12 m`; None when it rounds to nothing."""
    if units == "metric":
        metres = round(feet * METRES_PER_FOOT)
        return f"{metres} m" if metres else None
    whole = round(feet)
    return f"{whole} ft" if whole else None


def instruction(maneuver: Maneuver, route: Route, words: Words, says: Language = ENGLISH) -> str:
    """One maneuver's sentence: "Walk <length>, then <action>", or the action alone."""
    action = _action(maneuver, route, words, says)
    walked = None if maneuver.type == ManeuverType.DEPART else length(maneuver.walked, words.units)
    if walked is None:
        return action[0].upper() + action[1:]
    return says.walked.format(length=walked, action=action)


def _action(maneuver: Maneuver, route: Route, words: Words, says: Language) -> str:
    """What to do at the maneuver: the language's template for its type and case."""
    from routing.model import CONNECTOR_NAMES, LEVEL_DOORS

    if maneuver.type == ManeuverType.DEPART:
        return says.depart.format(start=words.start) if words.start else says.depart_unnamed
    if maneuver.type == ManeuverType.TURN:
        assert maneuver.modifier is not None
        turn = says.turns[maneuver.modifier]
        if maneuver.landmark is None:
            return turn
        return says.turn_at.format(turn=turn, landmark=maneuver.landmark.name)
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
            connector=CONNECTOR_NAMES[ride.kind],
            floors=ride.floors,
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
