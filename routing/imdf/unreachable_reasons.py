"""Why a walked unit cannot be reached (`routing.imdf.reachability`): the venue's graph of
units joined by openings and connectors, and the reason code and sentence of each unit
left out, found from what the archive says about it (its openings, the openings around
the part it is in, its level's connectors, and for wheelchairs the steps on the way).
docs/imdf.md, "Unreachable units and the report", lists the reasons with examples.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field

from parsing.imdf.venue import Venue
from routing.imdf.model import Door, Space
from routing.imdf.walks import CLOSED_OPENINGS, RESTRICTED

VEHICLE_OPENINGS = frozenset({"automobile"})  # IMDF: an opening for cars, not people
STEP_FREE_CONNECTORS = frozenset({"elevator", "ramp"})
EXAMPLES = 2  # units or openings a sentence names


@dataclass(frozen=True)
class Via:
    """What joins two units: an opening or a connector, and whether a wheelchair passes."""

    kind: str  # "opening" or "connector"
    id: str
    wheelchair: bool
    connector_kind: str = ""


@dataclass
class UnitGraph:
    adjacent: dict[str, list[tuple[str, Via]]] = field(default_factory=lambda: defaultdict(list))

    def join(self, a: str, b: str, via: Via) -> None:
        if a != b:
            self.adjacent[a].append((b, via))
            self.adjacent[b].append((a, via))


class Explain:
    """The reason and sentence for one unreachable unit; what a part (a connected group
    of units) says is found once per part."""

    def __init__(
        self,
        venue: Venue,
        spaces: dict[str, Space],
        graph: UnitGraph,
        sides: dict[str, list[str]],
        doors: dict[str, Door],
        touching: dict[str, list[str]],
        with_stop: set[str],
        parts: tuple[dict[str, int], dict[str, int]],
        reached: tuple[set[str], set[str]],
        entrances: list[tuple[str, Door]],
    ) -> None:
        self.venue, self.spaces, self.graph = venue, spaces, graph
        self.sides, self.doors, self.touching = sides, doors, touching
        self.with_stop = with_stop
        self.foot_parts, self.chair_parts = parts
        self.foot_reached, self.chair_reached = reached
        self.foot_levels = {venue.units[u].level for u in self.foot_reached}
        self.chair_levels = {venue.units[u].level for u in self.chair_reached}
        self.openings = venue.archive.by_id("opening")
        self.members: dict[int, list[str]] = defaultdict(list)
        for unit, number in sorted(self.foot_parts.items()):
            self.members[number].append(unit)
        self.chair_members: dict[int, list[str]] = defaultdict(list)
        for unit, number in sorted(self.chair_parts.items()):
            self.chair_members[number].append(unit)
        self.known: dict[tuple[str, int], tuple[str, str] | None] = {}
        self.entrances: dict[str, list[str]] = defaultdict(list)  # unit -> its entrances
        self.chair_entrances: dict[str, list[str]] = defaultdict(list)
        for unit, door in entrances:
            self.entrances[unit].append(door.id)
            if door.wheelchair:
                self.chair_entrances[unit].append(door.id)

    def on_foot(self, unit_id: str) -> tuple[str, str]:
        own = self.touching.get(unit_id, [])
        if not self.graph.adjacent.get(unit_id):
            if not own and unit_id not in self.with_stop:
                return "no-opening", (
                    "no opening is drawn on its outline (an open-plan unit drawn without "
                    "doors, or doors missing from the archive)"
                )
            closed = [d for d in own if not self.doors[d].walkable]
            if closed and len(closed) == len(own):
                return self._closed(closed, "its only way in is", "its only ways in are")
            beyond = self._not_walked_beyond(own, {unit_id})
            if beyond:
                return "behind-closed-units", (
                    f"its openings lead only into units not walked: {beyond}"
                )
            if self.entrances[unit_id]:
                return "own-entrance", (
                    "it is entered from outside through its own "
                    f"{self._names_of_openings(self.entrances[unit_id])}, but no opening or "
                    "connector joins it to the rest of the venue, and a route never goes "
                    "outside: draw the door or corridor between it and the rest"
                )
            return "opening-not-joined", (
                f"its {self._names_of_openings(own)} joins no other walked unit "
                "(beside the unit, or farther than the snap tolerance)"
            )
        number = self.foot_parts[unit_id]
        around = self._once(("closed", number), lambda: self._closed_around(number))
        if around is not None:
            return around
        level = self.venue.units[unit_id].level
        if level not in self.foot_levels:
            own = sorted(d for u in self.members[number] for d in self.entrances[u])
            gate = (
                f" (its {self._names_of_openings(own)} lets people in from outside, but a "
                "route never goes outside)"
                if own
                else ""
            )
            return "level-cut-off", (
                f"no stairs, elevator, escalator or ramp reaches {self._level(level)} "
                f"from the levels reached{gate}"
            )
        found = self._once(("apart", number), lambda: self._apart(number))
        assert found is not None
        return found

    def by_wheelchair(self, unit_id: str, roots: set[str]) -> tuple[str, str]:
        if not roots:
            return "not-step-free", "the venue has no entrance a wheelchair can pass"
        level = self.venue.units[unit_id].level
        if level not in self.chair_levels:
            return "level-cut-off", (
                f"no elevator or ramp reaches {self._level(level)} step-free "
                "(only stairs or escalators)"
            )
        number = self.chair_parts[unit_id]
        found = self._once(("steps", number), lambda: self._steps(number))
        assert found is not None
        own = sorted(d for u in self.chair_members[number] for d in self.chair_entrances[u])
        if own and found[0] == "not-step-free":
            return "own-entrance", (
                f"the {self._names_of_openings(own)} {'lets' if len(own) == 1 else 'let'} a "
                "wheelchair in from outside, "
                "but every way inside from the rest of the venue passes what a wheelchair "
                f"cannot: {found[1].split(': ', 1)[-1]} (a route never goes outside)"
            )
        return found

    def _once(
        self, key: tuple[str, int], find: Callable[[], tuple[str, str] | None]
    ) -> tuple[str, str] | None:
        if key not in self.known:
            self.known[key] = find()
        return self.known[key]

    def _closed_around(self, number: int) -> tuple[str, str] | None:
        """The closed openings that join the part to walked units outside it."""
        part = self.members[number]
        inside = set(part)
        closed = sorted(
            {
                d
                for u in part
                for d in self.touching.get(u, [])
                if not self.doors[d].walkable
                and any(s not in inside and self.spaces[s].walkable for s in self.sides[d])
            }
        )
        if not closed:
            return None
        lead = f"the {len(part)} units it is among are joined to the rest only through"
        return self._closed(closed, lead, lead)

    def _apart(self, number: int) -> tuple[str, str]:
        part = self.members[number]
        inside = set(part)
        beyond = self._not_walked_beyond(
            [d for u in part for d in self.touching.get(u, [])], inside
        )
        if beyond:
            return "behind-closed-units", (
                f"the {len(part)} units it is among open only into units not walked: {beyond}"
            )
        own = sorted(d for u in part for d in self.entrances[u])
        if own:
            return "own-entrance", (
                f"the {len(part)} units it is among ({self._names(part)}) are entered from "
                f"outside through their own {self._names_of_openings(own)}, but no opening "
                "or connector joins them to the rest of the venue, and a route never goes "
                "outside: draw the door or corridor between them and the rest"
            )
        return "island", (
            f"its openings lead only among {len(part)} units cut off from the rest "
            f"({self._names(part)}); no opening or connector joins them to the rest"
        )

    def _steps(self, number: int) -> tuple[str, str]:
        """What stops a wheelchair at the edge of its part: a lift that opens only onto
        steps, else the steps themselves."""
        steps: list[str] = []
        for here in self.chair_members[number]:
            for there, via in self.graph.adjacent.get(here, []):
                if self.chair_parts.get(there) == number:
                    continue
                lift = self._dead_end(here, there, self.chair_reached)
                if lift:
                    return "connector-dead-end", lift
                steps.append(self._step(there, via))
        shown = "; ".join(sorted(set(steps))[:EXAMPLES]) or "nothing a wheelchair may use"
        return "not-step-free", f"every way to it passes what a wheelchair cannot: {shown}"

    def _dead_end(self, here: str, there: str, reached: set[str]) -> str:
        """The sentence for a step-free connector's unit that opens only into stairs or
        steps on its level, next to this blocked join; empty when there is none."""
        for lift, stairs in ((here, there), *((n, there) for n, _ in self.graph.adjacent[there])):
            space = self.spaces[lift]
            if space.kind not in STEP_FREE_CONNECTORS or lift not in self.chair_parts:
                continue
            if lift != here and lift not in reached:
                continue
            doors_on = [v for _, v in self.graph.adjacent[lift] if v.kind == "opening"]
            if any(v.wheelchair and u in self.chair_parts for u, v in self._doors(lift)):
                continue
            if doors_on and stairs not in self.chair_parts:
                return (
                    f"{space.kind} {self._unit(lift)} opens on {self._level(space.level)} "
                    f"only into {self.spaces[stairs].kind or 'steps'} {self._unit(stairs)}: "
                    "a wheelchair cannot go on"
                )
        return ""

    def _step(self, there: str, via: Via) -> str:
        """What a wheelchair cannot pass: a unit (stairs, steps, escalator), a door or a
        connector."""
        if there not in self.chair_parts:
            return f"{self.venue.units[there].category} {self._unit(there)}"
        if via.kind == "opening":
            return f"{self._opening(via.id)} ({self._door_type(via.id)})"
        return f"{via.connector_kind} {via.id}"

    def _doors(self, unit: str) -> list[tuple[str, Via]]:
        return [(u, v) for u, v in self.graph.adjacent[unit] if v.kind == "opening"]

    def _closed(self, closed: list[str], one: str, several: str) -> tuple[str, str]:
        categories = [self._category(d) for d in closed]
        causes = "; ".join(f"{self._opening(d)} ({self._why_closed(d)})" for d in closed[:EXAMPLES])
        more = f" and {len(closed) - EXAMPLES} more" if len(closed) > EXAMPLES else ""
        lead = one if len(closed) == 1 else several
        if all(c in VEHICLE_OPENINGS for c in categories):
            return "only-vehicle-openings", f"{lead} {causes}{more}: for vehicles, not people"
        return "only-closed-openings", f"{lead} {causes}{more}: closed to people"

    def _why_closed(self, door_id: str) -> str:
        properties = self.openings[door_id].properties
        category = self._category(door_id)
        restriction = str(properties.get("restriction") or "").lower()
        if properties.get("access_control"):
            return "access control"
        if category in CLOSED_OPENINGS:
            return f"category {category}"
        if restriction in RESTRICTED:
            return f"restriction {restriction}"
        return "closed"

    def _category(self, door_id: str) -> str:
        return str(self.openings[door_id].properties.get("category") or "").lower()

    def _door_type(self, door_id: str) -> str:
        door = self.openings[door_id].properties.get("door")
        kind = door.get("type") if isinstance(door, dict) else None
        return f"{kind} door" if kind else "not for wheelchairs"

    def _not_walked_beyond(self, openings: list[str], inside: set[str]) -> str:
        beyond = sorted(
            {
                u
                for d in openings
                if self.doors[d].walkable
                for u in self.sides[d]
                if u not in inside and not self.spaces[u].walkable
            }
        )
        if not beyond:
            return ""
        return "; ".join(
            f"{self._unit(u)} ({self.venue.units[u].category})" for u in beyond[:EXAMPLES]
        )

    def _names_of_openings(self, openings: list[str]) -> str:
        shown = ", ".join(self._opening(d) for d in openings[:EXAMPLES])
        return shown + (f" and {len(openings) - EXAMPLES} more" if len(openings) > EXAMPLES else "")

    def _opening(self, door_id: str) -> str:
        """An opening as a person finds it: its id and the units it joins."""
        units = " and ".join(self._unit(u) for u in self.sides.get(door_id, []))
        return f"opening {door_id}" + (f" of {units}" if units else "")

    def _names(self, units: list[str]) -> str:
        shown = ", ".join(self._unit(u) for u in units[:EXAMPLES])
        return shown + (f" and {len(units) - EXAMPLES} more" if len(units) > EXAMPLES else "")

    def _unit(self, unit_id: str) -> str:
        return repr(self.venue.units[unit_id].name or unit_id)

    def _level(self, level_id: str) -> str:
        return repr(self.venue.levels[level_id].name)
