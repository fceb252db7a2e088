"""Connectors between levels of a generated IMDF network: from the venue's
relationships, else from stairs, elevator and escalator units stacked on levels of
adjacent ordinals (`routing.imdf.paths`; issue 48: two levels sharing an ordinal each
meet the levels below and above them, never each other by stairs).

floorgate gives a connector its modes by kind: elevators and ramps carry wheelchairs,
and a wheelchair joins a stop at the nearest line it may use on the stop's level. A
step-free connector (elevator, ramp) therefore stands only in units a wheelchair may
use: its stop in a stairs, steps or escalator unit is left out and reported, never
left to join the wheelchair to whatever line is nearest beyond the stairs."""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Mapping, Sequence

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
    ordinals: Mapping[str, float] | None = None,
) -> tuple[list[Stop], list[tuple[str, str]]]:
    """Stops of the relationships' connectors, then connectors inferred from stacked
    stairs/elevator/escalator units that no relationship names. Levels are stacked by
    `ordinals` (by their position in `level_order` without them): each level meets
    every level of the next ordinal above it, so two levels sharing an ordinal each
    meet the levels below and above them."""
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
            mine.append(
                Stop(traversal.id, traversal.kind, space.level, unit_point(space), space.id)
            )
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
    height = {level: float(i) for i, level in enumerate(level_order)}
    height.update({level: float(o) for level, o in (ordinals or {}).items() if level in height})
    loose = [
        s
        for s in walkable
        if s.kind in CONNECTOR_UNIT_KINDS and s.id not in named and s.level in position
    ]
    stacked = _stacked(loose, height)
    parent = {s.id: s.id for s in loose}

    def root(unit: str) -> str:
        while parent[unit] != unit:
            parent[unit] = parent[parent[unit]]
            unit = parent[unit]
        return unit

    for below, above in stacked:
        a, b = root(below.id), root(above.id)
        parent[max(a, b)] = min(a, b)
    groups: dict[str, list[Space]] = defaultdict(list)
    for s in loose:
        groups[root(s.id)].append(s)
    found: list[tuple[str, list[Space]]] = []
    for group, members in sorted(groups.items()):
        if len({m.level for m in members}) < 2:
            continue
        if len({height[m.level] for m in members}) == len(members):
            found.append((min(m.id for m in members), members))
            continue
        # Two units of one height (levels sharing an ordinal) in one stack: each pair
        # is its own connector, or the walk graph would join those two levels by it.
        found += [
            (f"{below.id}~{above.id}", [below, above])
            for below, above in stacked
            if root(below.id) == group
        ]
    for ident, members in found:
        members.sort(key=lambda m: (height[m.level], position[m.level], m.id))
        kind = members[0].kind or ""
        stops.extend(Stop(ident, kind, m.level, unit_point(m), m.id) for m in members)
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


def _stacked(loose: Sequence[Space], height: Mapping[str, float]) -> list[tuple[Space, Space]]:
    """Pairs of units of one kind on levels of adjacent ordinals (the next ordinal up
    that the venue has: ordinals 0 and 2 with no 1 between them are adjacent) that
    overlap by OVERLAP of the smaller area, lower first."""
    heights = sorted(set(height.values()))
    next_up = dict(itertools.pairwise(heights))
    pairs: list[tuple[Space, Space]] = []
    for kind in CONNECTOR_UNIT_KINDS:
        by_height: dict[float, list[Space]] = defaultdict(list)
        for s in loose:
            if s.kind == kind:
                by_height[height[s.level]].append(s)
        for low, lower in sorted(by_height.items()):
            upper = by_height.get(next_up[low], []) if low in next_up else []
            if not upper:
                continue
            tree = shapely.STRtree([s.shape for s in upper])
            for below in lower:
                for index in sorted(int(i) for i in tree.query(below.shape, "intersects")):
                    above = upper[index]
                    shared = below.shape.intersection(above.shape).area
                    if shared >= OVERLAP * min(below.shape.area, above.shape.area) > 0:
                        pairs.append((below, above))
    return pairs
