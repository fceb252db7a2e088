"""Where IMDF levels of one height meet: levels sharing an ordinal (an indoor concourse
and its outdoor terrace, issue 48) are joined through the openings between them, and
where two such levels have no opening between them at all, through the edges their
units share (docs/imdf.md, "Levels sharing an ordinal").

The walk graph joins levels only by connectors, so a way between two levels of one
height is a `door` connector: two stops, one on each level, at the door's point on
each side, joined by an edge that climbs no floor and is as long as drawn (the wall
gap between the two units, usually nothing). Pure geometry, no I/O.
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence

import shapely
from shapely.ops import substring

from routing.imdf.doors import End, match_doors
from routing.imdf.model import Door, Space, Stop

DOOR_KIND = "door"  # the walk graph's connector kind of a way between levels of one height
SEAM_DOOR = 1.0  # metres: the way through a shared edge, at its middle (a door's width)
MIN_SEAM = 1.0  # metres: a shared edge shorter than this is no way through

Found = list[tuple[Space, tuple[float, float], float]]


def heights(level_order: Sequence[str], ordinals: Mapping[str, float] | None) -> dict[str, float]:
    """Each level's height: its ordinal, else its position in the level order."""
    height = {level: float(i) for i, level in enumerate(level_order)}
    height.update({level: float(o) for level, o in (ordinals or {}).items() if level in height})
    return height


def match_across(
    walkable: Sequence[Space],
    matched: Iterable[tuple[Door, Found]],
    height: Mapping[str, float],
    tolerance: float,
) -> list[tuple[Door, Found]]:
    """Each door with the units it joins (`routing.imdf.doors.match_doors`): a door that
    its own level gives fewer than two sides is matched again among the walkable units
    of every level of its height, and takes a side found on another of those levels
    (the side found on its own level is kept)."""
    levels: dict[float, set[str]] = defaultdict(set)
    for level, h in height.items():
        levels[h].add(level)
    out = list(matched)
    again = [
        i
        for i, (door, found) in enumerate(out)
        if len(found) < 2 and len(levels.get(height.get(door.level, -1e300), ())) > 1
    ]
    by_height: dict[float, list[int]] = defaultdict(list)
    for i in again:
        by_height[height[out[i][0].level]].append(i)
    for h, indexes in sorted(by_height.items()):
        key = f"height {h:g}"
        spaces = [dataclasses.replace(s, level=key) for s in walkable if s.level in levels[h]]
        original = {s.id: s for s in walkable}
        doors = [dataclasses.replace(out[i][0], level=key) for i in indexes]
        for i, (_, wider) in zip(indexes, match_doors(spaces, doors, tolerance), strict=True):
            door, own = out[i]
            found = [(original[s.id], point, moved) for s, point, moved in wider]
            ids = {s.id for s, _, _ in found}
            if any(s.level != door.level for s, _, _ in found) and all(
                s.id in ids for s, _, _ in own
            ):
                out[i] = (door, found)
    return out


def seams(
    walkable: Sequence[Space],
    joined: set[frozenset[str]],
    height: Mapping[str, float],
    tolerance: float,
) -> tuple[list[Door], list[tuple[str, str]]]:
    """Doors made where two levels of one height that no opening joins (`joined`: pairs of
    levels) have walkable units whose edges run together, within `tolerance`, for at
    least MIN_SEAM: one door SEAM_DOOR wide at the middle of the longest such stretch,
    on the level first in order, id `seam:<unit>:<unit>`; and a remark for each."""
    by_level: dict[str, list[Space]] = defaultdict(list)
    for space in walkable:
        by_level[space.level].append(space)
    found: list[Door] = []
    problems: list[tuple[str, str]] = []
    levels = sorted(by_level)
    for a in levels:
        for b in levels:
            if a >= b or height.get(a) != height.get(b) or frozenset((a, b)) in joined:
                continue
            tree = shapely.STRtree([s.shape for s in by_level[b]])
            for u in by_level[a]:
                hits = tree.query(u.shape, predicate="dwithin", distance=tolerance)
                for index in sorted(int(i) for i in hits):
                    v = by_level[b][index]
                    door, length = _seam(u, v, tolerance)
                    if door is not None:
                        found.append(door)
                        problems.append(
                            (
                                "levels-joined-at-edge",
                                f"units {u.id} and {v.id} run within {tolerance:g} m of each "
                                f"other for {length:.1f} m and no opening joins their levels "
                                f"{a} and {b} (one ordinal): joined at the middle ({door.id})",
                            )
                        )
    return found, problems


def _seam(u: Space, v: Space, tolerance: float) -> tuple[Door | None, float]:
    """The door through the edge two units share and its length, or None when they share
    too little of one or overlap (units stacked, not side by side)."""
    shared = shapely.line_merge(
        shapely.intersection(u.shape.boundary, v.shape.boundary.buffer(tolerance))
    )
    pieces = [g for g in getattr(shared, "geoms", [shared]) if isinstance(g, shapely.LineString)]
    if not pieces:
        return None, 0.0
    longest = max(pieces, key=lambda g: g.length)
    length = float(longest.length)
    if length < MIN_SEAM or u.shape.intersection(v.shape).area > tolerance * length:
        return None, length
    middle = substring(longest, (length - SEAM_DOOR) / 2, (length + SEAM_DOOR) / 2)
    if not isinstance(middle, shapely.LineString):
        return None, length
    return Door(f"seam:{u.id}:{v.id}", u.level, middle, True, True), length


def not_step_free(door: Door, found: Found) -> tuple[str, str]:
    """The remark for a door between levels of one height that a wheelchair cannot pass
    (its type, or a stairs unit on a side): the walk graph's `door` carries both modes,
    so it is left out rather than let a wheelchair through."""
    (a, _, _), (b, _, _) = found
    return (
        "level-door-not-step-free",
        f"opening {door.id} joins units {a.id} and {b.id} on levels {a.level} and "
        f"{b.level} (one ordinal), but a wheelchair cannot pass it: not joined",
    )


def crossing(door: Door, found: Found, sides: Sequence[End]) -> list[Stop]:
    """The `door` connectors of a door whose two sides are on two levels: one per point
    pair of its sides (one, or several along a wide door), its stops on each side's
    level at that side's point. Id: the opening's, `<id>~<n>` for a wide door's n-th."""
    (first, _, _), (second, _, _) = found
    pairs = list(zip(sides[0].points, sides[1].points, strict=True))
    stops: list[Stop] = []
    for n, (a, b) in enumerate(pairs, start=1):
        ident = door.id if len(pairs) == 1 else f"{door.id}~{n}"
        stops += [Stop(ident, DOOR_KIND, first.level, a), Stop(ident, DOOR_KIND, second.level, b)]
    return stops
