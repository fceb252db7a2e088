"""The three OpenStreetMap indoor places of tests/data/osm-indoor-map-gl-indoor/
(map-gl-indoor's examples, commit ba88bac8c3df), and what a test counts in them straight
from the file, without the importer's code. Data (c) OpenStreetMap contributors, ODbL."""

from __future__ import annotations

import copy
from collections import Counter
from dataclasses import replace
from functools import cache
from pathlib import Path
from typing import Any

import orjson

from parsing.imdf.venue import ImdfOptions
from parsing.limits import SvgLimits
from storage.database import Store
from storage.imdf.dataset import ImdfDataset, import_venue
from storage.osm.dataset import osm_dataset
from tests.venues.data import OSM_INDOOR
from tests.venues.run_cache import shared, shared_database

MAPS = OSM_INDOOR
STATION = MAPS / "gare-de-l-est.geojson"
MALL = MAPS / "grand-place.geojson"
CASERNE = MAPS / "caserne.geojson"
CASERNE_XML = MAPS / "caserne.osm"


def place_dataset(path: Path) -> ImdfDataset:
    """`osm_dataset(path, ImdfOptions())`, converted once per run (up to two seconds and
    a half each: the tests and xdist workers of one place share it), each caller given
    its own copy of the data and drawings, so none sees another's changes."""
    dataset = _converted(path)
    return replace(dataset, data=copy.deepcopy(dataset.data), svgs=dict(dataset.svgs))


@cache
def _converted(path: Path) -> ImdfDataset:
    """Converted once per run under xdist: the workers share one conversion
    (tests/venues/run_cache.py, keyed by the file's bytes and the code)."""
    return shared(f"osm-{path.name}", path.read_bytes(), lambda: osm_dataset(path, ImdfOptions()))


async def import_places(store: Store, limits: SvgLimits) -> None:
    """Grand'Place, the Caserne and Gare de l'Est imported into the store's empty database
    as `floorgate import-osm` imports them; under xdist, by the first worker of the run
    that asks, the others given a copy of every document it wrote (about 7 s of CPU a
    worker, tests/venues/run_cache.py)."""
    places = (MALL, CASERNE, STATION)

    async def build() -> None:
        for place in places:
            await import_venue(store, place_dataset(place), limits=limits)

    inputs = b"".join(place.read_bytes() for place in places) + repr(limits).encode()
    await shared_database("osm-places", inputs, store, build)


def features(path: Path) -> list[dict[str, Any]]:
    return list(orjson.loads(path.read_bytes())["features"])


def named_rooms(path: Path) -> set[tuple[str, str]]:
    """(level, name) of every named room drawn as an area: `indoor=room`, or an area on a
    level with `room=*` or a `shop=*` other than a mall; a room on `0;1` is on both, and
    one without `level` on level 0. A name that n rooms of one level share is numbered
    from 1 to n, as floorgate names them (docs/imdf.md, "Names")."""
    found: list[tuple[str, str]] = []
    for feature in features(path):
        tags = feature["properties"]
        if feature["geometry"]["type"] not in ("Polygon", "MultiPolygon") or not tags.get("name"):
            continue
        older = (
            "level" in tags
            and "indoor" not in tags
            and ("room" in tags or tags.get("shop") not in (None, "mall", "department_store"))
        )
        if tags.get("indoor") == "room" or older:
            for level in str(tags.get("level", "0")).split(";"):
                found.append((level, tags["name"]))
    counts = Counter(found)
    return {
        (level, name if counts[level, name] == 1 else f"{name} {number}")
        for level, name in counts
        for number in range(1, counts[level, name] + 1)
    }
