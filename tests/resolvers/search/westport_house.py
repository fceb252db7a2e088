"""Westport House (Dundee), a real 7-level office, as a floorgate dataset for the search
tests: its rooms as units and locations on one map without a drawing.

Westport House indoor map data (c) WRLD / eeGeo, CC BY 4.0 (tests/data/README.md).

WRLD's files (`examples/westport-house/`) are a FeatureCollection per level of polygons
whose `properties.type` says what they are. Every room, bathroom, stairs, elevator and
`no_geometry` area (WRLD's name for a named space drawn flat) becomes a location at its
polygon's centroid (metres east and north of the building's point); those with a `name`
(else a `roomnumber`) are also units, the location standing for its unit (`svc:id`).
Bathrooms, elevators and stairs are tagged with their kind (`svc:category`), as a
converter would; walls, doors, windows, outlines, floor openings and inaccessible spaces
are left out.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import orjson
from shapely.geometry import shape

from tests.venues.data import WESTPORT_HOUSE

FOLDER = WESTPORT_HOUSE
ASSET = "westport-house"
MAP = "westport-house-map"
ATTRIBUTION = "Westport House indoor map data (c) WRLD / eeGeo, CC BY 4.0"
PLACES = ("room", "bathroom", "stairs", "elevator", "no_geometry")
CATEGORY = {"bathroom": "restroom", "elevator": "elevator", "stairs": "stairs"}
METRES_PER_DEGREE = 111_320.0


@dataclass
class Westport:
    """The dataset, and what it was built with: location ids by WRLD type, and the named
    places as (kind, id, name)."""

    dataset: dict[str, Any]
    by_type: dict[str, list[str]] = field(default_factory=dict)
    named: list[tuple[str, str, str]] = field(default_factory=list)


def westport() -> Westport:
    """The dataset of Westport House, read from WRLD's files (tests/data/)."""
    main = orjson.loads((FOLDER / "main.json").read_bytes())
    lon0, lat0 = main["location"]["coordinates"]
    scale_x = METRES_PER_DEGREE * math.cos(math.radians(lat0))
    floors, units, locations = [], [], []
    built = Westport({})
    for level in main["levels"]:
        floor = level["id"]
        floors.append(
            {
                "id": floor,
                "asset_id": ASSET,
                "name": level["readable_name"],
                "short_label": level["name"],
                "sort": level["z_order"] + 1,
            }
        )
        collection = orjson.loads((FOLDER / level["filename"]).read_bytes())
        for feature in collection["features"]:
            props = feature["properties"]
            kind = props["type"]
            if kind not in PLACES or not feature.get("geometry"):
                continue
            point = shape(feature["geometry"]).centroid
            base = f"wh-{level['name'].lower()}-{props['id']}"
            name = (props.get("name") or props.get("roomnumber") or "").strip()
            tags = [{"key": "wrld:type", "value": kind}]
            if kind in CATEGORY:
                tags.append({"key": "svc:category", "value": CATEGORY[kind]})
            if props.get("name") and props.get("roomnumber"):
                tags.append({"key": "ref", "value": str(props["roomnumber"])})
            if name:
                units.append({"id": base, "asset_id": ASSET, "floor_id": floor, "name": name})
                tags.append({"key": "svc:id", "value": base})
                built.named.append(("unit", base, name))
            location = f"loc-{base}"
            locations.append(
                {
                    "id": location,
                    "asset_id": ASSET,
                    "unit_map_id": MAP,
                    "name": name,
                    "x": round((point.x - lon0) * scale_x, 3),
                    "y": round((point.y - lat0) * METRES_PER_DEGREE, 3),
                    "floors": [{"id": floor}],
                    "tags": tags,
                }
            )
            place = ("unit", base) if name else ("location", location)
            built.by_type.setdefault(kind, []).append(f"{place[0]}:{place[1]}")
    built.dataset = {
        "version": 1,
        "assets": [{"id": ASSET, "market": "office", "name": main["name"]}],
        "floors": floors,
        "units": units,
        "unit_maps": [
            {
                "id": MAP,
                "asset_id": ASSET,
                "name": main["name"],
                "style_type": "building",
                "unit_ids": [unit["id"] for unit in units],
            }
        ],
        "locations": locations,
    }
    return built
