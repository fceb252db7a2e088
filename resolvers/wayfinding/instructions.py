"""The sentences of a route's maneuvers, in the manner of Valhalla's narrative: each one
says the walk since the previous maneuver, then what to do ("Walk 40 ft, then turn
slightly right", "Take the elevator up to Floor 3", "Arrive at Unit 307 on your right").

Lengths are written in feet (`imperial`, the default) or metres (`metric`), whole
numbers; a walk that rounds to nothing is left out. The numbers of the answer stay in
feet whatever the texts say. A connector is named by its kind, so a wheelchair route
never says stairs: the walk graph gives it none to take.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from parsing.measures import METRES_PER_FOOT

if TYPE_CHECKING:  # routing is imported by the functions that need it
    from routing.maneuvers import Maneuver
    from routing.route import Route

UNITS = ("imperial", "metric")
TURNS = {
    "uturn": "make a U-turn",
    "sharp right": "turn sharply right",
    "right": "turn right",
    "slight right": "turn slightly right",
    "slight left": "turn slightly left",
    "left": "turn left",
    "sharp left": "turn sharply left",
}


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


def instruction(maneuver: Maneuver, route: Route, words: Words) -> str:
    """One maneuver's sentence: "Walk <length>, then <action>", or the action alone."""
    action = _action(maneuver, route, words)
    walked = length(maneuver.walked, words.units) if maneuver.type != "depart" else None
    if walked is None:
        return action[0].upper() + action[1:]
    return f"Walk {walked}, then {action}"


def _action(maneuver: Maneuver, route: Route, words: Words) -> str:
    from routing.model import CONNECTOR_NAMES

    if maneuver.type == "depart":
        return f"start at {words.start}" if words.start else "start at your location"
    if maneuver.type == "turn":
        assert maneuver.modifier is not None
        at = f" at {maneuver.landmark.name}" if maneuver.landmark is not None else ""
        return TURNS[maneuver.modifier] + at
    if maneuver.type == "connector":
        assert maneuver.ride is not None
        ride = route.rides[maneuver.ride]
        way = "up" if ride.to_level > ride.from_level else "down"
        kind = CONNECTOR_NAMES[ride.kind]
        return f"take the {kind} {way} to {words.level_name(ride.to_level)}"
    side = f"on your {maneuver.side}" if maneuver.side else ""
    if words.end:
        return f"arrive at {words.end} {side}".rstrip()
    floor = words.level_name(route.legs[-1].level)
    return f"arrive at your destination on {floor}" + (f", {side}" if side else "")
