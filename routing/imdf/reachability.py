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
from routing.imdf.unreachable_reasons import STEP_FREE_CONNECTORS, Explain, UnitGraph, Via
from routing.imdf.walks import spaces_of

FOOT, WHEELCHAIR = "foot", "wheelchair"
PROBE_STEP = 0.05  # metres between the probes straight through an opening's middle
ON_WALL = 0.01  # metres: an opening's middle this near a unit lies on it (the network's)
ENTRANCE_CLEAR = 2.0  # metres beyond an exterior opening with no unit (thicker is no wall)

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
    graph = UnitGraph()
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
            graph.join(open_units[0], open_units[1], Via("opening", door_id, door.wheelchair))
    stands = _stop_units(venue, network, spaces, walked)
    by_connector: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for stop, unit in stands:
        if stop.kind != DOOR_KIND:  # doors between levels: their units, below
            by_connector[stop.connector_id].append((unit, stop.kind))
    for connector_id, members in sorted(by_connector.items()):
        for (a, kind), (b, _) in itertools.pairwise(members):
            graph.join(a, b, Via("connector", connector_id, kind in STEP_FREE_CONNECTORS, kind))
    for join_id, a, b in network.level_joins:  # only doors a wheelchair passes are joined
        if a in walked and b in walked:
            graph.join(a, b, Via("connector", join_id, True, DOOR_KIND))
    with_stop = {unit for _, unit in stands}

    def chair_ok(a: str, b: str, via: Via) -> bool:
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
    explain = Explain(
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
    units: Iterable[str], graph: UnitGraph, usable: Callable[[str, str, Via], bool]
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
