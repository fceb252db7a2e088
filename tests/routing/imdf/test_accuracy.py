"""Route accuracy on imported venues (issue 48, point 7): E18 against the exact shortest
walk through free space and doors, median <= 1.03x, p90 <= 1.08x, max <= 1.25x, on the
hard synthetic level (tests/routing/imdf/hard_venue.py: thick walls, doors off-centre
and at corners, a corridor split by full-width openings, an open hall, rooms at an
angle, many short pairs) and on Westport House, level by level
(tests/routing/imdf/westport_walks.py). The figures and worst pairs are printed
(`pytest -s`); docs/routing.md, "Accuracy on real venues", records them. Westport is
imported and walked once for both clearances (tests/routing/imdf/westport_walks.py), and
the reference tests for sight only the segments a shortest walk can take (tangent at
its corners: tests/routing/imdf/free_space.py), with the same distances.

Westport House indoor map data (c) WRLD / eeGeo, CC BY 4.0 (tests/data/README.md).
"""

from __future__ import annotations

from parsing.imdf.read import read_archive
from parsing.imdf.venue import ImdfOptions, Venue
from routing.imdf.paths import MIN_MARGIN
from storage.imdf.dataset import venue_dataset
from tests.routing.imdf import hard_venue
from tests.routing.imdf.accuracy import GOALS, Pair, figures, report, spots, walked
from tests.routing.imdf.westport_walks import westport_pairs
from tests.venues.imdf_venues import stable_id


def hard_pairs() -> list[Pair]:
    built = hard_venue.venue()
    files = built.files()
    dataset = venue_dataset(read_archive(files), ImdfOptions())
    assert dataset.report.counts.get("unit no opening reaches (unreachable)", 0) == 0
    venue = Venue(read_archive(files), ImdfOptions())
    keys = list(hard_venue.UNITS) + list(hard_venue.AMENITIES)
    ids = [stable_id(f"unit:{k}") for k in hard_venue.UNITS]
    ids += [stable_id(f"amenity:{k}") for k in hard_venue.AMENITIES]
    at = {s.unit_id: s for s in spots(dataset, venue)}
    mine = [at[i] for i in ids]
    assert len({s.map_id for s in mine}) == 1
    got = walked(dataset.svgs[mine[0].map_id], [s.canvas for s in mine])
    exact = hard_venue.reference()
    pairs = []
    for a in range(len(keys)):
        for b in range(a + 1, len(keys)):
            metres = got[a][b]
            assert metres is not None, (keys[a], keys[b])
            pairs.append(Pair(f"{keys[a]}-{keys[b]}", metres, exact[a][b]))
    return pairs


def test_hard_rooms_are_walked_as_short_as_a_person_walks() -> None:
    pairs = hard_pairs()
    print("\n" + report("hard synthetic level", pairs))
    short = [p for p in pairs if p.exact < 6.0]
    print(report("  of which shorter than 6 m", short, 3))
    count = len(hard_venue.UNITS) + len(hard_venue.AMENITIES)
    assert len(pairs) == count * (count - 1) // 2
    assert len(short) >= 100
    # never through a wall: at most the drawing's 2.5 cm joins shorter
    assert [p for p in pairs if p.walked < p.exact - 0.05] == []
    median, p90, top = figures(pairs)
    assert median <= GOALS[0] and p90 <= GOALS[1] and top <= GOALS[2]


def test_westport_house_is_walked_as_short_as_a_person_walks() -> None:
    """Every level, every pair of walked units whose locations stand in the free space
    (the reference keeps 0.3 m from walls; 27 locations are nearer a wall, left out).
    Under 2% of the walks are shorter than that reference: units with a neck under 0.6 m
    wide are walked at a smaller margin (routing/imdf/paths.py `_inset`); against the
    reference at the smallest margin (3 cm) none is shorter."""
    pairs, left = westport_pairs()
    print("\n" + report("Westport House, within levels", pairs))
    assert left == {"outside free space": 27, "apart in free space": 0, "not routed": 0}
    assert len(pairs) >= 6900
    median, p90, top = figures(pairs)
    assert median <= GOALS[0] and p90 <= GOALS[1] and top <= GOALS[2]
    shorter = {p.label for p in pairs if p.walked < p.exact - 0.05}
    assert 0 < len(shorter) < 0.02 * len(pairs)
    hugging = {p.label: p for p in westport_pairs(MIN_MARGIN)[0]}
    assert [label for label in shorter if hugging[label].walked < hugging[label].exact - 0.05] == []
