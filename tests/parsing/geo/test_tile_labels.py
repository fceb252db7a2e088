"""What the tiles tell a map about names (issue 66, points 1 and 2): each location's
`rank` (a generated name or a non-public place is named only zoomed in), and each
level's name in `tiles.json` `level_names`, two buildings' levels sharing an ordinal
under both names."""

from __future__ import annotations

from typing import Any

from parsing.geo.tile_features import tile_features
from parsing.geo.tile_style import tile_json
from parsing.geo.tiles import build_index
from parsing.imdf.label_rank import label_rank


def _level(uid: str, name: str | None, level: str, floor: str, west: float) -> dict[str, Any]:
    ring = [[west, 0.0], [west + 0.001, 0.0], [west + 0.001, 0.001], [west, 0.001], [west, 0.0]]
    return {
        "type": "Feature",
        "geometry": {"type": "Polygon", "coordinates": [ring]},
        "properties": {
            "feature_type": "level",
            "uid": uid,
            "name": name,
            "level": level,
            "tags": {"floor": floor},
        },
    }


def _location(id_: str, name: str | None, tags: dict[str, str]) -> dict[str, Any]:
    return {
        "type": "Feature",
        "geometry": {"type": "Point", "coordinates": [0.0005, 0.0005]},
        "properties": {
            "feature_type": "location",
            "location_id": id_,
            "name": name,
            "floor_ids": ["f0"],
            "level": "0",
            "tags": tags,
        },
    }


def test_locations_carry_their_rank_and_levels_their_names() -> None:
    collection = {
        "type": "FeatureCollection",
        "features": [
            _level("L0", "Ground", "0", "f0", 0.0),
            _level("L1a", "Concourse", "1", "f1", 0.0),
            _level("L1b", "Mezzanine", "1", "f1b", 0.01),
            _level("L1c", "Concourse", "1", "f1c", 0.02),
            _level("L2", None, "2", "f2", 0.0),
            _location("a", "Atrium", {"imdf:category": "lobby"}),
            _location("b", "212D", {"imdf:category": "room"}),
            _location("c", "Plant Room", {"imdf:category": "nonpublic"}),
            _location("d", "Restroom 1", {"svc:name": "generated"}),
            _location("e", None, {}),
        ],
    }
    index = build_index(tile_features([collection], label_rank))
    ranks = {
        f.properties["id"]: f.properties.get("rank")
        for f in index.features
        if f.layer == "locations"
    }
    assert ranks == {"a": "0", "b": "1", "c": "2", "d": "2", "e": None}
    document = tile_json(index, "Venue", "https://x/{z}/{x}/{y}.mvt", 14, 22)
    assert document["levels"] == ["0", "1", "2"]
    assert document["level_names"] == {"0": "Ground", "1": "Concourse / Mezzanine"}
