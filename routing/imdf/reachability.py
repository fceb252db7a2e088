"""Which walked units a person cannot reach, on foot and by wheelchair, and why
(issue 35, point 4; docs/imdf.md, "Unreachable units").

The walk network (`routing.imdf.paths`) joins units at their walkable openings and
levels at the connectors' stops; a unit it leaves apart is otherwise silent: its
distances are null. Here the venue is taken as a graph of units (a unit is one space):
openings join the units met straight through their middle on each side within the
snap tolerance, connectors join the units their stops stand in. Reachability starts at
the venue's main part, the connected part with the most units among those that hold an
entrance (a walkable opening with a unit on one side only), or, when there is none, at
the largest connected part: what E18 routes to from the rest of the venue, since a
route never goes outside (issue 65: a shop with its own street door on a corridor of
its own is no place a route reaches from the mall). Each unit left out gets one reason code and a
sentence, from what the archive says about it: its openings, the openings around the
part it is in, its level's connectors, and for wheelchairs the steps on the way.
"""

from __future__ import annotations

import itertools
from collections import defaultdict, deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

from parsing.imdf.levels_joined import UnjoinedLevel, unjoined_levels
from parsing.imdf.venue import Venue
from routing.imdf.level_doors import DOOR_KIND
from routing.imdf.model import Door, Space, Stop, WalkNetwork
from routing.imdf.walks import CLOSED_OPENINGS, RESTRICTED, spaces_of

FOOT, WHEELCHAIR = "foot", "wheelchair"
PROBE_STEP = 0.05  # metres between the probes straight through an opening's middle
ON_WALL = 0.01  # metres: an opening's middle this near a unit lies on it (the network's)
ENTRANCE_CLEAR = 2.0  # metres beyond an exterior opening with no unit (thicker is no wall)
VEHICLE_OPENINGS = frozenset({"automobile"})  # IMDF: an opening for cars, not people
STEP_FREE_CONNECTORS = frozenset({"elevator", "ramp"})
EXAMPLES = 2  # units or openings a sentence names

# Reason codes, in the order they are tried (docs/imdf.md lists them with examples).
REASONS = (
    "no-opening",
    "only-vehicle-openings",
    "only-closed-openings",
    "behind-closed-units",
    "opening-not-joined",
    "level-cut-off",
    "own-entrance",
    "island",
    "connector-dead-end",
    "not-step-free",
)


@dataclass(frozen=True)
class Unreachable:
    """A walked unit that a mode cannot reach from the venue's main part (the part its
    entrances open onto, `reachability`)."""

    unit_id: str
    name: str
    level: str
    level_name: str
    category: str
    modes: tuple[str, ...]  # ("foot", "wheelchair"), ("foot",) or ("wheelchair",)
    reason: str  # one of REASONS
    detail: str  # one sentence for a person


@dataclass
class Reachability:
    roots: str  # "entrances" or "largest-part"
    entrances: list[str] = field(default_factory=list)  # opening ids
    unreachable: list[Unreachable] = field(default_factory=list)
    levels: list[UnjoinedLevel] = field(default_factory=list)  # no connector reaches them


@dataclass(frozen=True)
class _Via:
    """What joins two units: an opening or a connector, and whether a wheelchair passes."""

    kind: str  # "opening" or "connector"
    id: str
    wheelchair: bool
    connector_kind: str = ""


@dataclass
class _Graph:
    adjacent: dict[str, list[tuple[str, _Via]]] = field(default_factory=lambda: defaultdict(list))

    def join(self, a: str, b: str, via: _Via) -> None:
        if a != b:
            self.adjacent[a].append((b, via))
            self.adjacent[b].append((a, via))


def reachability(
    venue: Venue, doors: list[Door], network: WalkNetwork, snap_tolerance: float
) -> Reachability:
    """Every walked unit that cannot be reached on foot or by wheelchair, with its reason."""
    spaces = {s.id: s for s in spaces_of(venue)}
    walked = {i for i, s in spaces.items() if s.walkable}
    chair_units = {i for i in walked if spaces[i].wheelchair}
    sides, exterior = _sides(venue, doors, snap_tolerance)
    exterior -= _toward_levels_of_one_height(venue, doors, exterior, network, snap_tolerance)
    by_door = {door.id: door for door in doors}
    apart = set(network.unreachable)  # no walkable opening reaches them in the network
    touching: dict[str, list[str]] = defaultdict(list)  # unit -> openings on it
    graph = _Graph()
    entrances: list[tuple[str, Door]] = []
    for door_id in sorted(sides):
        door, units = by_door[door_id], sides[door_id]
        for unit in units:
            touching[unit].append(door_id)
        if not door.walkable:
            continue
        open_units = [u for u in units if u in walked and u not in apart]
        if door_id in exterior and open_units:
            entrances.append((open_units[0], door))
        if len(open_units) == 2:
            graph.join(open_units[0], open_units[1], _Via("opening", door_id, door.wheelchair))
    stands = _stop_units(venue, network, spaces, walked)
    by_connector: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for stop, unit in stands:
        if stop.kind != DOOR_KIND:  # doors between levels: their units, below
            by_connector[stop.connector_id].append((unit, stop.kind))
    for connector_id, members in sorted(by_connector.items()):
        for (a, kind), (b, _) in itertools.pairwise(members):
            graph.join(a, b, _Via("connector", connector_id, kind in STEP_FREE_CONNECTORS, kind))
    for join_id, a, b in network.level_joins:  # only doors a wheelchair passes are joined
        if a in walked and b in walked:
            graph.join(a, b, _Via("connector", join_id, True, DOOR_KIND))
    with_stop = {unit for _, unit in stands}

    def chair_ok(a: str, b: str, via: _Via) -> bool:
        return via.wheelchair and a in chair_units and b in chair_units

    foot_parts = _components(walked, graph, lambda a, b, via: True)
    chair_parts = _components(chair_units, graph, chair_ok)
    if entrances:
        roots = "entrances"
        main = _main_part(foot_parts, walked, {unit for unit, _ in entrances})
        foot_roots = {unit for unit, _ in entrances if foot_parts[unit] == main}
        step_free = {u for u, door in entrances if door.wheelchair and u in chair_units}
        chair_main = _main_part(chair_parts, chair_units, step_free & foot_roots)
        chair_roots = {u for u in step_free if chair_parts[u] == chair_main}
    else:
        roots = "largest-part"
        foot_roots = _largest(foot_parts, walked)
        chair_roots = _largest(chair_parts, foot_roots & chair_units)
    foot_from = {foot_parts[r] for r in foot_roots}
    chair_from = {chair_parts[r] for r in chair_roots}
    foot_reached = {u for u in walked if foot_parts[u] in foot_from}
    chair_reached = {u for u in chair_units if chair_parts[u] in chair_from}
    explain = _Explain(
        venue,
        spaces,
        graph,
        sides,
        by_door,
        touching,
        with_stop,
        (foot_parts, chair_parts),
        (foot_reached, chair_reached),
        entrances,
    )
    found = []

    def order(unit: str) -> tuple[int, str, str]:  # by level, then as a person reads
        return (venue.levels[venue.units[unit].level].index, venue.units[unit].name, unit)

    for unit_id in sorted(walked, key=order):
        if unit_id not in foot_reached:
            modes = (FOOT, WHEELCHAIR) if unit_id in chair_units else (FOOT,)
            reason, detail = explain.on_foot(unit_id)
        elif unit_id in chair_units and unit_id not in chair_reached:
            modes = (WHEELCHAIR,)
            reason, detail = explain.by_wheelchair(unit_id, chair_roots)
        else:
            continue
        info, level = venue.units[unit_id], venue.levels[venue.units[unit_id].level]
        found.append(
            Unreachable(
                unit_id, info.name, info.level, level.name, info.category, modes, reason, detail
            )
        )
    joins = [
        (a, b, via.wheelchair)
        for a, around in sorted(graph.adjacent.items())
        for b, via in around
        if via.kind == "connector"
    ]
    levels = unjoined_levels(venue, walked, chair_units, joins)
    return Reachability(roots, sorted(d.id for _, d in entrances), found, levels)


def _toward_levels_of_one_height(
    venue: Venue, doors: list[Door], exterior: set[str], network: WalkNetwork, tolerance: float
) -> set[str]:
    """The openings that look exterior on their own level but lead to another level of
    the same ordinal (issue 48): those the network joined across, and those within the
    snap tolerance of a unit of such a level. They are no entrance of the venue."""
    joined = {join_id for join_id, _, _ in network.level_joins}
    found = exterior & joined
    shapes: dict[float, list[tuple[str, BaseGeometry]]] = defaultdict(list)
    for unit in venue.units.values():
        shapes[venue.levels[unit.level].ordinal].append((unit.level, unit.shape))
    for door in doors:
        if door.id not in exterior or door.id in joined:
            continue
        middle = door.line.interpolate(0.5, normalized=True)
        if any(
            level != door.level and shape.distance(middle) <= tolerance
            for level, shape in shapes[venue.levels[door.level].ordinal]
        ):
            found.add(door.id)
    return found


def _sides(
    venue: Venue, doors: list[Door], tolerance: float
) -> tuple[dict[str, list[str]], set[str]]:
    """Per opening, the units (walked or not) met first on each side of its line, going
    straight through its middle, up to `tolerance` beyond it: one or two units; units
    its middle lies on (within 1 cm) make up a side that met none, as the walk network
    joins an opening drawn across the wall. And the exterior openings: one side met a
    unit, the other nothing for ENTRANCE_CLEAR metres. One spatial query per level for
    every probe of its openings."""
    steps = np.arange(PROBE_STEP, tolerance + PROBE_STEP * 1.5, PROBE_STEP)
    found: dict[str, list[str]] = {}
    exterior: set[str] = set()
    by_level: dict[str, list[Door]] = defaultdict(list)
    for door in doors:
        by_level[door.level].append(door)
    for level, mine in by_level.items():
        ids = [u for u, unit in venue.units.items() if unit.level == level]
        tree = shapely.STRtree([venue.units[u].shape for u in ids])
        lines = [door.line for door in mine]
        mids = shapely.get_coordinates(shapely.line_interpolate_point(lines, 0.5, normalized=True))
        ends = np.array([[line.coords[0], line.coords[-1]] for line in lines], dtype=float)
        along = ends[:, 1] - ends[:, 0]
        length = np.hypot(along[:, 0], along[:, 1])
        normal = np.stack([-along[:, 1], along[:, 0]], axis=1) / np.maximum(length, 1e-12)[:, None]
        signs = np.array([1.0, -1.0])
        # probes[door, side, step] = mid + sign * step * normal
        probes = (
            mids[:, None, None, :]
            + signs[None, :, None, None] * steps[None, None, :, None] * normal[:, None, None, :]
        ).reshape(-1, 2)
        areas = [venue.units[u].shape.area for u in ids]
        # first[door, side] = (step, area, unit): of units met at one step (one drawn
        # over another), the smaller, as the walk network's doors take it
        first: dict[tuple[int, int], tuple[int, float, str]] = {}
        hits, units = tree.query(shapely.points(probes), predicate="within")
        for probe, unit in zip(hits.tolist(), units.tolist(), strict=True):
            door_side, step = divmod(probe, len(steps))
            key = divmod(door_side, 2)
            candidate = (step, areas[unit], ids[unit])
            if key not in first or candidate < first[key]:
                first[key] = candidate
        on: dict[int, list[str]] = defaultdict(list)
        spots, under = tree.query(shapely.points(mids), "dwithin", ON_WALL)
        for index, unit in sorted(zip(spots.tolist(), under.tolist(), strict=True)):
            on[index].append(ids[unit])
        for index, door in enumerate(mine):
            if length[index] < 1e-6:  # a point: the units within the tolerance of it
                near = tree.query(shapely.Point(mids[index]), "dwithin", tolerance)
                found[door.id] = sorted(ids[int(i)] for i in near)[:2]
                continue
            met = [first[(index, side)][2] for side in (0, 1) if (index, side) in first]
            sides = list(dict.fromkeys(met + sorted(on[index])))[:2]
            found[door.id] = sides
            if len(met) == 1 and len(sides) == 1:
                side = 0 if (index, 0) in first else 1
                start = mids[index] - signs[side] * PROBE_STEP * normal[index]
                ray = shapely.LineString(
                    [start, mids[index] - signs[side] * ENTRANCE_CLEAR * normal[index]]
                )
                if not len(tree.query(ray, "intersects")):
                    exterior.add(door.id)
    return found, exterior


def _stop_units(
    venue: Venue, network: WalkNetwork, spaces: dict[str, Space], walked: set[str]
) -> list[tuple[Stop, str]]:
    """Each connector stop with the walked unit it stands in (of its kind, when several)."""
    trees = {}
    for level in venue.levels:
        ids = sorted(u for u in walked if spaces[u].level == level)
        trees[level] = (shapely.STRtree([spaces[u].shape for u in ids]), ids)
    stands: list[tuple[Stop, str]] = []
    for stop in network.stops:
        tree, ids = trees.get(stop.level, (None, []))
        if tree is None or not ids:
            continue
        hits = [ids[int(i)] for i in tree.query(shapely.Point(stop.point), "dwithin", 1e-6)]
        if hits:
            hits.sort(key=lambda u: (spaces[u].kind != stop.kind, u))
            stands.append((stop, hits[0]))
    return stands


def _components(
    units: Iterable[str], graph: _Graph, usable: Callable[[str, str, _Via], bool]
) -> dict[str, int]:
    """A component number per unit, over the joins `usable(a, b, via)` allows."""
    part: dict[str, int] = {}
    members = set(units)
    for start in sorted(members):
        if start in part:
            continue
        number = len(part)
        part[start] = number
        queue = deque([start])
        while queue:
            here = queue.popleft()
            for there, via in graph.adjacent.get(here, []):
                if there in members and there not in part and usable(here, there, via):
                    part[there] = number
                    queue.append(there)
    return part


def _main_part(parts: dict[str, int], units: set[str], roots: set[str]) -> int | None:
    """The part with the most of `units` among the parts of `roots` (ties: the lowest
    unit id); None without roots."""
    count: dict[int, int] = defaultdict(int)
    first: dict[int, str] = {}
    for unit in sorted(units):
        count[parts[unit]] += 1
        first.setdefault(parts[unit], unit)
    candidates = {parts[r] for r in roots}
    if not candidates:
        return None
    return min(candidates, key=lambda p: (-count[p], first[p]))


def _largest(parts: dict[str, int], among: set[str]) -> set[str]:
    """The units of the part with the most of `among` (ties: the lowest unit id)."""
    count: dict[int, int] = defaultdict(int)
    first: dict[int, str] = {}
    for unit in sorted(among):
        count[parts[unit]] += 1
        first.setdefault(parts[unit], unit)
    if not count:
        return set()
    best = min(count, key=lambda p: (-count[p], first[p]))
    return {u for u in among if parts[u] == best}


class _Explain:
    """The reason and sentence for one unreachable unit; what a part (a connected group
    of units) says is found once per part."""

    def __init__(
        self,
        venue: Venue,
        spaces: dict[str, Space],
        graph: _Graph,
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
                f"its {self._names_of_openings(own)} lets a wheelchair in from outside, "
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

    def _step(self, there: str, via: _Via) -> str:
        """What a wheelchair cannot pass: a unit (stairs, steps, escalator), a door or a
        connector."""
        if there not in self.chair_parts:
            return f"{self.venue.units[there].category} {self._unit(there)}"
        if via.kind == "opening":
            return f"{self._opening(via.id)} ({self._door_type(via.id)})"
        return f"{via.connector_kind} {via.id}"

    def _doors(self, unit: str) -> list[tuple[str, _Via]]:
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
