"""Route accuracy on every venue the tests can import (issue 65, point 4): each loader
gives the venue as read and its imported drawings, `route_walks` measures them (every
pair, or a seeded sample where there are many), and run as a script it prints the
figures per venue and the worst pairs with where they stand:

    .venv/bin/python -m tests.routing.imdf.venue_accuracy [name ...]

Westport House indoor map data (c) WRLD / eeGeo, CC BY 4.0; the OSM places (c)
OpenStreetMap contributors, ODbL (tests/data/README.md).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import replace
from functools import cache
from pathlib import Path

from parsing.imdf.read import read_archive
from parsing.imdf.venue import ImdfOptions, Venue
from parsing.osm.archive import osm_archive
from routing.reference.accuracy import Walk, report, route_walks, summary
from storage.osm.files import read_osm
from tests.routing.imdf import hard_venue
from tests.routing.imdf.westport_walks import imported as westport_imported
from tests.routing.imdf.westport_walks import kept_graph
from tests.venues import osm_places
from tests.venues.bilingual_clinic import bilingual_clinic
from tests.venues.dead_ends import dead_ends, odd_corners
from tests.venues.food_hall import food_hall
from tests.venues.imdf_shared_ordinals import harbour_station
from tests.venues.imdf_venues import Venue as Built
from tests.venues.imdf_venues import cloister, exchange
from tests.venues.old_market import old_market
from tests.venues.ragged_lobby import ragged_lobby
from tests.venues.run_cache import shared_venue_dataset

Imported = tuple[Venue, dict[str, str]]
SAMPLE = 3000  # pairs drawn (seed 0) on a venue with more


def imdf(built: Built) -> Imported:
    files = built.files()
    dataset = shared_venue_dataset(files, ImdfOptions())  # once per run under xdist
    return Venue(read_archive(files), ImdfOptions()), dataset.svgs


def osm(path: Path) -> Imported:
    dataset = osm_places.place_dataset(path)
    asset = str(dataset.data["assets"][0]["id"])
    archive = osm_archive(read_osm(path), asset, path.stem, ())
    return Venue(archive, replace(ImdfOptions(), asset_id=asset)), dataset.svgs


VENUES: dict[str, Callable[[], Imported]] = {
    "westport": westport_imported,
    "grand-place": lambda: osm(osm_places.MALL),
    "caserne": lambda: osm(osm_places.CASERNE),
    "gare-de-l-est": lambda: osm(osm_places.STATION),
    "hard": lambda: imdf(hard_venue.venue()),
    "clinic": lambda: imdf(bilingual_clinic().venue),
    "harbour": lambda: imdf(harbour_station().venue),
    "food-hall": lambda: imdf(food_hall().venue),
    "old-market": lambda: imdf(old_market()[0]),
    "dead-ends": lambda: imdf(dead_ends()[0]),
    "odd-corners": lambda: imdf(odd_corners()[0]),
    "exchange": lambda: imdf(exchange().venue),
    "cloister": lambda: imdf(cloister().venue),
    "ragged-lobby": lambda: imdf(ragged_lobby().venue),
}


@cache
def walks_of(name: str) -> tuple[list[Walk], dict[str, int]]:
    """The measured walks of a venue: every pair, a seeded sample past SAMPLE."""
    venue, svgs = VENUES[name]()
    return route_walks(venue, svgs, pairs=SAMPLE, graphs=kept_graph)


def main(names: list[str]) -> None:
    for name in names or list(VENUES):
        start = time.perf_counter()
        walks, left = walks_of(name)
        took = time.perf_counter() - start
        print(report(f"{name} ({took:.1f} s)", summary(walks, left, 8)), left)


if __name__ == "__main__":
    main(sys.argv[1:])
