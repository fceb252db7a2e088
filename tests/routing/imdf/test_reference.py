"""Walk lengths on an imported IMDF venue against the exact shortest walk (issue 35,
point 2): median <= 1.03x, p90 <= 1.08x, max <= 1.25x over every pair of units.

The venue (one level, metres) has what makes generated networks long: a corridor with
14 doors (more than the exact union takes: its network is the bounded one), an L-shaped
room, a U-shaped room entered at one arm, a hall with six pillars, a 3 m door and a
2.4 m door beside 0.9 m and 1 m ones. It is imported as floorgate imports any venue
(the zip, `dataset_from_path`, the level's drawing parsed and its walk graph built) and
asked unit to unit as E18 is (`LoadedGraph.matrix`, between the units' locations, by
`routing.reference.accuracy.route_walks`). The reference is
routing/reference/free_space.py, written apart.
"""

from __future__ import annotations

import math
import statistics
from pathlib import Path

import numpy as np
import pytest
import shapely

from parsing.imdf.read import read_archive
from parsing.imdf.venue import ImdfOptions
from parsing.imdf.venue import Venue as ImdfVenue
from routing.reference.accuracy import route_walks, summary
from routing.reference.free_space import (
    LOOSE,
    _reflex_corners,
    _seen,
    _taut,
    free_space,
    shortest_walks,
)
from storage.imdf.dataset import dataset_from_path
from tests.venues.imdf_venues import Venue, rect, stable_id, zip_bytes

XY = tuple[float, float]

# key -> (outline, holes, display point); every display point stands in the free space
PILLARS = [(44, -6), (44, 3), (49, -1), (49, 9), (54, -6), (54, 3)]
UNITS: dict[str, tuple[list[XY], list[list[XY]], XY]] = {
    "corridor": (rect(0, 0, 40, 3), [], (20.0, 1.5)),
    **{f"north{k}": (rect(4 * k, 3, 4 * k + 4, 8), [], (4 * k + 3.0, 6.5)) for k in range(6)},
    **{f"south{k}": (rect(6 * k, -5, 6 * k + 6, 0), [], (6 * k + 1.5, -3.5)) for k in range(4)},
    "ell": ([(24, 3), (40, 3), (40, 16), (36, 16), (36, 7), (24, 7)], [], (38.0, 14.5)),
    "you": (
        [(24, 0), (28, 0), (28, -8), (36, -8), (36, 0), (40, 0), (40, -12), (24, -12)],
        [],
        (38.0, -1.0),
    ),
    "notch": (rect(28, -8, 36, 0), [], (32.0, -4.0)),
    "hall": (
        rect(40, -12, 60, 16),
        [rect(x, y, x + 1, y + 1) for x, y in PILLARS],
        (57.0, 14.0),
    ),
    "gallery": (rect(60, -6, 72, 6), [], (70.0, -4.5)),
    "annex": (rect(72, -6, 80, 6), [], (78.0, 5.0)),
    "porch": (rect(46, 16, 58, 20), [], (47.0, 19.0)),
}
DOORS: dict[str, tuple[XY, XY]] = {
    **{f"north{k}": ((4 * k + 1.5, 3), (4 * k + 2.5, 3)) for k in range(6)},
    **{f"south{k}": ((6 * k + 4.0, 0), (6 * k + 5.0, 0)) for k in range(4)},
    "ell": ((25, 3), (26, 3)),
    "you": ((25.5, 0), (26.5, 0)),
    "notch": ((31.5, 0), (32.5, 0)),
    "corridor-hall": ((40, 0.6), (40, 2.4)),  # 1.8 m
    "ell-hall": ((40, 12), (40, 13)),
    "you-hall": ((40, -11.5), (40, -9.1)),  # 2.4 m
    "hall-gallery": ((60, -1.5), (60, 1.5)),  # 3 m
    "gallery-annex": ((72, 4), (72, 4.9)),  # 0.9 m
    "hall-porch": ((48, 16), (56, 16)),  # 8 m: an open side
}


def venue() -> Venue:
    built = Venue("Reference Rooms")
    outline = rect(-1, -13, 81, 21)
    built.venue("Reference Rooms", outline)
    level = built.level("R0", 0, "Level 0", "0", outline)
    for key, (points, holes, display) in UNITS.items():
        built.unit(key, level, "room", points, name=key, display=display)  # all listed
        if holes:
            built.features["unit"][-1]["geometry"]["coordinates"] += [built.ring(h) for h in holes]
    for key, (a, b) in DOORS.items():
        built.opening(key, level, a, b)
    return built


def reference() -> list[list[float]]:
    units = [shapely.Polygon(points, holes) for points, holes, _ in UNITS.values()]
    free = free_space(units, list(DOORS.values()))
    for _, _, display in UNITS.values():
        assert free.contains(shapely.Point(display))
    return shortest_walks(free, [display for _, _, display in UNITS.values()])


def imported(tmp_path: Path) -> dict[tuple[str, str], float]:
    """Metres walked between every two units' locations on the imported level (E18's
    matrix), by unit key."""
    built = venue()
    archive = tmp_path / "reference.zip"
    archive.write_bytes(zip_bytes(built.files()))
    dataset = dataset_from_path(archive, ImdfOptions())
    assert dataset.report.counts.get("unit no opening reaches (unreachable)", 0) == 0
    read = ImdfVenue(read_archive(built.files()), ImdfOptions())
    walks, left = route_walks(read, dataset.svgs, pairs=None)
    assert left == {"outside free space": 0, "apart in free space": 0, "not routed": 0}
    key = {stable_id(f"unit:{k}"): k for k in UNITS}
    found = {(key[w.a_id], key[w.b_id]): w.walked for w in walks}
    assert len(found) == len(walks) == 153
    assert summary(walks, left).within_goals
    return found


def test_the_reference_is_exact_on_rooms_worked_by_hand() -> None:
    """The oracle itself, on walks measured by hand: around the L's inner corner, into
    the U's far arm, through the middle of a narrow door and across a wide one."""
    table = reference()
    keys = list(UNITS)
    at = {key: n for n, key in enumerate(keys)}
    corner = (36.3, 6.7)  # the L's inner corner (36, 7) kept 0.3 m from both walls
    door = (25.5, 3.3)  # into the L through its 1 m door's middle
    by_hand = math.dist((20, 1.5), (25.5, 2.7)) + 0.6 + math.dist(door, corner)
    by_hand += math.dist(corner, (38, 14.5))
    assert table[at["corridor"]][at["ell"]] == pytest.approx(by_hand, abs=0.01)
    bottom = [(27.7, -8.3), (36.3, -8.3)]  # the U's inner corners, 0.3 m off
    by_hand = math.dist((20, 1.5), (26, 0.3)) + 0.6 + math.dist((26, -0.3), bottom[0])
    by_hand += math.dist(*bottom) + math.dist(bottom[1], (38, -1))
    assert table[at["corridor"]][at["you"]] == pytest.approx(by_hand, abs=0.01)
    # the 3 m door: crossed anywhere 0.3 m from its jambs, so straight when in line
    assert table[at["gallery"]][at["annex"]] > math.dist((70, -4.5), (78, 5))
    assert table[at["hall"]][at["porch"]] == pytest.approx(math.dist((57, 14), (47, 19)))


def test_routes_are_as_short_as_a_person_walks(tmp_path: Path) -> None:
    exact = reference()
    got = imported(tmp_path)
    keys = list(UNITS)
    ratios = []
    for a in range(len(UNITS)):
        for b in range(a + 1, len(UNITS)):
            pair = (keys[a], keys[b]) if (keys[a], keys[b]) in got else (keys[b], keys[a])
            walked = got[pair]
            # never through a wall: at most the drawing's 2.5 cm joins shorter
            assert walked >= exact[a][b] - 0.05, pair
            ratios.append(walked / exact[a][b])
    ratios.sort()
    assert len(ratios) == 153
    p90 = ratios[math.ceil(0.9 * len(ratios)) - 1]
    assert statistics.median(ratios) <= 1.03
    assert p90 <= 1.08
    assert ratios[-1] <= 1.25


L_SHAPE = [(0, 0), (10, 0), (10, 10), (5, 10), (5, 5), (0, 5)]  # inner corner (5, 5)


def covers_loosely(free: shapely.Polygon, ends: np.ndarray) -> list[bool]:
    """What the reference asked before its shortcuts (issue 65, point 4): `covers` of the
    free space widened by LOOSE, segment by segment."""
    loose = shapely.buffer(free, LOOSE, join_style="mitre")
    return [bool(seen) for seen in shapely.covers(loose, shapely.linestrings(ends))]


@pytest.mark.parametrize(
    ("off", "seen"),
    [
        (0.9995e-7, True),  # grazes the corner inside the 1e-7 m widening
        (1.0005e-7, False),  # just past it, short of the further 1e-9 m: covers decides
        (2e-7, False),  # past both: the outline beyond tells at once
    ],
)
def test_sight_past_a_corner_is_what_covers_says(off: float, seen: bool) -> None:
    """A segment at 45 degrees past an L's inner corner (5, 5), `off` metres along both
    axes towards the notch: the widened free space's corner lies 1e-7 m so."""
    free = shapely.Polygon(L_SHAPE)
    xy = np.array([(2 - off, 2 + off), (8 - off, 8 + off)])
    first, second = np.array([0]), np.array([1])
    assert _seen(free, xy, first, second).tolist() == [seen]
    assert covers_loosely(free, np.stack([xy[first], xy[second]], axis=1)) == [seen]


def test_a_segment_touching_the_widened_free_space_is_seen() -> None:
    """Through the widened free space's own corner (its outline touched from inside,
    the coordinates exact): `covers` says seen, and so do the shortcuts."""
    free = shapely.Polygon(L_SHAPE)
    loose = shapely.buffer(free, LOOSE, join_style="mitre")
    [corner] = [xy for xy in loose.exterior.coords if 4.9 < xy[0] < 5 and 5 < xy[1] < 5.1]
    xy = np.array([(corner[0] - 0.5, corner[1] - 0.5), (corner[0] + 0.5, corner[1] + 0.5)])
    assert shapely.intersects(loose.exterior, shapely.LineString(xy))  # touched: exact
    assert _seen(free, xy, np.array([0]), np.array([1])).tolist() == [True]
    assert covers_loosely(free, xy[np.newaxis]) == [True]


def test_sight_is_what_covers_says_on_every_tangent_segment() -> None:
    """Every segment tangent at both ends among the reference rooms' reflex corners and
    display points (pillars, an L, a U, doors' passages): the shortcuts answer as
    `covers` did, seen and unseen alike."""
    units = [shapely.Polygon(points, holes) for points, holes, _ in UNITS.values()]
    free = free_space(units, list(DOORS.values()))
    corners = _reflex_corners(free)
    xy = np.array([display for _, _, display in UNITS.values()] + [b for _, b, _ in corners])
    before, after = xy.copy(), xy.copy()
    before[len(UNITS) :] = [a for a, _, _ in corners]
    after[len(UNITS) :] = [c for _, _, c in corners]
    first, second = _taut(xy, before, after)
    seen = _seen(free, xy, first, second).tolist()
    assert seen == covers_loosely(free, np.stack([xy[first], xy[second]], axis=1))
    assert 100 < sum(seen) < len(seen) - 100
