"""Westport House's walks, imported against the exact reference, level by level (issue
48, point 7): every pair of walked units of one level whose locations stand in that
level's free space and are joined in it.

Westport House indoor map data (c) WRLD / eeGeo, CC BY 4.0 (tests/data/README.md).

The reference (tests/routing/imdf/free_space.py) takes the venue as the archive gives
it (units and openings read by the importer's readers, in its metres) and the units
each opening joins as the converter wrote them (tests/venues/westport_imdf.py), never the
walk network judged. Within levels only: the reference knows no stairs nor lifts, and
E18's time for a ride is no length to compare with.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass
from functools import cache

import shapely

from parsing.imdf.read import read_archive
from parsing.imdf.venue import ImdfOptions, Venue
from routing.imdf.model import Space
from routing.imdf.walks import read_doors, spaces_of
from storage.imdf.dataset import venue_dataset
from tests.routing.imdf.accuracy import Pair, Spot, spots, walked
from tests.routing.imdf.free_space import CLEARANCE, free_spaces, shortest_walks
from tests.venues.westport_imdf import westport

XY = tuple[float, float]


@dataclass(frozen=True)
class _Imported:
    """What the pairs of every clearance share: the venue as read, its walkable units
    and doors by level, the measured spots by map, and E18's metres between them."""

    venue: Venue
    walkable: dict[str, Space]
    doors_of: dict[str, list[tuple[XY, XY, float]]]
    by_map: dict[str, list[Spot]]
    got: dict[str, list[list[float | None]]]


@cache
def _imported() -> _Imported:
    """Read, imported and walked once per process: both clearances judge the same walks."""
    built = westport()
    archive = read_archive(built.venue.files())
    walked_kinds = {"room", "restroom", "walkway"}  # every unit a person walks to is listed
    options = ImdfOptions(units=frozenset(walked_kinds))
    dataset = venue_dataset(archive, options)
    venue = Venue(read_archive(built.venue.files()), options)
    joins = {o.id: o.units for o in built.openings}
    walkable = {s.id: s for s in spaces_of(venue) if s.walkable}
    doors_of: dict[str, list[tuple[XY, XY, float]]] = defaultdict(list)
    for door in read_doors(venue):
        if not door.walkable or door.id not in joins:
            continue
        mid = door.line.interpolate(0.5, normalized=True)
        joined = [walkable[u] for u in joins[door.id] if u in walkable]
        off = max((s.shape.distance(mid) for s in joined), default=0.0)
        a, b = door.line.coords[0], door.line.coords[-1]
        doors_of[door.level].append(((a[0], a[1]), (b[0], b[1]), off))
    by_map: dict[str, list[Spot]] = defaultdict(list)
    for spot in spots(dataset, venue):
        if spot.unit_id in walkable and venue.units[spot.unit_id].category in walked_kinds:
            by_map[spot.map_id].append(spot)
    got = {
        map_id: walked(dataset.svgs[map_id], [s.canvas for s in mine])
        for map_id, mine in by_map.items()
        if len({venue.units[s.unit_id].level for s in mine}) == 1
    }
    return _Imported(venue, walkable, doors_of, by_map, got)


def westport_pairs(clearance: float = CLEARANCE) -> tuple[list[Pair], dict[str, int]]:
    """The measured pairs of every level, and counts of what was left out and why."""
    imported = _imported()
    venue, walkable, doors_of = imported.venue, imported.walkable, imported.doors_of
    pairs: list[Pair] = []
    left = {"outside free space": 0, "apart in free space": 0, "not routed": 0}
    for map_id, mine in sorted(imported.by_map.items()):
        if map_id not in imported.got:
            continue  # the stack map: its levels are measured one by one
        level = venue.units[mine[0].unit_id].level
        units = [
            part
            for s in walkable.values()
            if s.level == level
            for part in getattr(s.shape, "geoms", [s.shape])
        ]
        free = free_spaces(units, doors_of[level], clearance)
        pieces = list(getattr(free, "geoms", [free]))
        where: dict[int, list[Spot]] = defaultdict(list)
        for spot in mine:
            point = shapely.Point(spot.metres)
            inside = [k for k, piece in enumerate(pieces) if piece.covers(point)]
            if not inside:
                left["outside free space"] += 1
                continue
            where[inside[0]].append(spot)
        got = imported.got[map_id]
        index = {s.unit_id: k for k, s in enumerate(mine)}
        name = venue.levels[level].name
        for k, members in where.items():
            exact = shortest_walks(pieces[k], [s.metres for s in members])
            for a in range(len(members)):
                for b in range(a + 1, len(members)):
                    if not math.isfinite(exact[a][b]) or exact[a][b] < 0.5:
                        left["apart in free space"] += int(not math.isfinite(exact[a][b]))
                        continue
                    metres = got[index[members[a].unit_id]][index[members[b].unit_id]]
                    if metres is None:
                        left["not routed"] += 1
                        continue
                    label = f"{name} {members[a].unit_id[:8]}-{members[b].unit_id[:8]}"
                    pairs.append(Pair(label, metres, exact[a][b]))
    return pairs, left
