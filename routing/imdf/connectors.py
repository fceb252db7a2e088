"""Connectors between levels of a generated IMDF network: from the venue's
relationships, else from stairs, elevator and escalator units stacked on adjacent
levels (`routing.imdf.paths`).

floorgate gives a connector its modes by kind: elevators and ramps carry wheelchairs,
and a wheelchair joins a stop at the nearest line it may use on the stop's level. A
step-free connector (elevator, ramp) therefore stands only in units a wheelchair may
use: its stop in a stairs, steps or escalator unit is left out and reported, never
left to join the wheelchair to whatever line is nearest beyond the stairs."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

import shapely

from routing.imdf.model import Space, Stop, Traversal, unit_point

CONNECTOR_UNIT_KINDS = ("stairs", "elevator", "escalator")  # inferred when overlapping
OVERLAP = 0.5  # of the smaller area, for stacked connector units
STEP_FREE_KINDS = frozenset({"elevator", "ramp"})  # floorgate's wheelchair connectors


def connectors(
    walkable: Sequence[Space],
    spaces: Sequence[Space],
    traversals: Sequence[Traversal],
    level_order: Sequence[str],
) -> tuple[list[Stop], list[tuple[str, str]]]:
    """Stops of the relationships' connectors, then connectors inferred from stacked
    stairs/elevator/escalator units that no relationship names."""
    stops: list[Stop] = []
    problems: list[tuple[str, str]] = []
    usable = {s.id: s for s in walkable}
    known = {s.id for s in spaces}
    named: set[str] = set()
    for traversal in sorted(traversals, key=lambda t: t.id):
        mine: list[Stop] = []
        for unit in dict.fromkeys(traversal.units):
            named.add(unit)
            if unit not in usable:
                kind = "traversal-unknown-unit" if unit not in known else "connector-unit-closed"
                problems.append(
                    (
                        kind,
                        f"{traversal.kind} {traversal.id}: unit {unit} "
                        + (
                            "is not in the venue"
                            if unit not in known
                            else "is not walkable, no stop"
                        ),
                    )
                )
                continue
            space = usable[unit]
            if traversal.kind in STEP_FREE_KINDS and not space.wheelchair:
                problems.append(
                    (
                        "connector-not-step-free",
                        f"{traversal.kind} {traversal.id}: unit {unit} is not step-free "
                        f"({space.kind or 'by its category'}), no stop there",
                    )
                )
                continue
            mine.append(Stop(traversal.id, traversal.kind, space.level, unit_point(space)))
        if len({stop.level for stop in mine}) < 2:
            problems.append(
                (
                    "connector-one-level",
                    f"{traversal.kind} {traversal.id} stands on fewer than two levels, no stops",
                )
            )
            continue
        stops.extend(mine)
    position = {level: i for i, level in enumerate(level_order)}
    loose = [
        s
        for s in walkable
        if s.kind in CONNECTOR_UNIT_KINDS and s.id not in named and s.level in position
    ]
    parent = {s.id: s.id for s in loose}

    def root(unit: str) -> str:
        while parent[unit] != unit:
            parent[unit] = parent[parent[unit]]
            unit = parent[unit]
        return unit

    for kind in CONNECTOR_UNIT_KINDS:
        same = [s for s in loose if s.kind == kind]
        by_level: dict[int, list[Space]] = defaultdict(list)
        for s in same:
            by_level[position[s.level]].append(s)
        for level, lower in sorted(by_level.items()):
            upper = by_level.get(level + 1, [])
            if not upper:
                continue
            tree = shapely.STRtree([s.shape for s in upper])
            for below in lower:
                for index in sorted(int(i) for i in tree.query(below.shape, "intersects")):
                    above = upper[index]
                    shared = below.shape.intersection(above.shape).area
                    if shared >= OVERLAP * min(below.shape.area, above.shape.area) > 0:
                        a, b = root(below.id), root(above.id)
                        parent[max(a, b)] = min(a, b)
    groups: dict[str, list[Space]] = defaultdict(list)
    for s in loose:
        groups[root(s.id)].append(s)
    for _, members in sorted(groups.items()):
        if len({m.level for m in members}) < 2:
            continue
        members.sort(key=lambda m: (position[m.level], m.id))
        ident = min(m.id for m in members)
        kind = members[0].kind or ""
        stops.extend(Stop(ident, kind, m.level, unit_point(m)) for m in members)
        problems.append(
            (
                "connector-inferred",
                f"{kind} {ident}: units {', '.join(m.id for m in members)} overlap "
                "on adjacent levels and no relationship joins them",
            )
        )
    rank = {level: i for i, level in enumerate(level_order)}
    stops.sort(key=lambda s: (s.connector_id, rank.get(s.level, len(rank)), s.level, s.point))
    return stops, problems
