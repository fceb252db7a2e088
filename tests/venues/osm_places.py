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
from storage.imdf.dataset import ImdfDataset
from storage.osm.dataset import osm_dataset
from tests.venues.data import OSM_INDOOR

MAPS = OSM_INDOOR
STATION = MAPS / "gare-de-l-est.geojson"
MALL = MAPS / "grand-place.geojson"
CASERNE = MAPS / "caserne.geojson"
CASERNE_XML = MAPS / "caserne.osm"


def place_dataset(path: Path) -> ImdfDataset:
    """`osm_dataset(path, ImdfOptions())`, converted once per process (up to a second and
    a half each: the tests of one place share it), each caller given its own copy of the
    data and drawings, so none sees another's changes."""
    dataset = _converted(path)
    return replace(dataset, data=copy.deepcopy(dataset.data), svgs=dict(dataset.svgs))


@cache
def _converted(path: Path) -> ImdfDataset:
    return osm_dataset(path, ImdfOptions())


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
