"""How many units and levels an OSM place may have (issue 63, finding 6: 100,000 rooms
took 176 s and 1.6 GB before a refusal that named the SVG limit): counted from the tags
before any shape is built, the refusal naming the file, the element that crossed the
bound and the limit of parsing/osm/limits.py."""

from __future__ import annotations

import math
import time
from pathlib import Path

import pytest

from parsing.imdf.venue import ImdfOptions
from parsing.osm.limits import (
    MAX_OSM_LEVEL_UNITS,
    MAX_OSM_LEVELS,
    MAX_OSM_UNIT_POSITIONS,
    MAX_OSM_UNITS,
)
from parsing.osm.model import OsmError
from storage.osm.dataset import osm_dataset

pytestmark = pytest.mark.security

SIDE = 0.00002  # degrees: a room about 2 m wide


def rooms(levels: list[str]) -> bytes:
    """One square room per entry of `levels` (its `level` tag), side by side; the rooms
    share their corners' nodes."""
    columns = 120
    rows = len(levels) // columns + 2
    parts = [b"<?xml version='1.0' encoding='UTF-8'?>\n<osm version='0.6'>\n"]
    for row in range(rows + 1):
        for column in range(columns + 1):
            node = row * (columns + 1) + column + 1
            lat, lon = 45 + row * SIDE, 5 + column * SIDE
            parts.append(b"<node id='%d' lat='%.7f' lon='%.7f'/>\n" % (node, lat, lon))
    for index, level in enumerate(levels):
        row, column = divmod(index, columns)
        corner = row * (columns + 1) + column + 1
        ring = (corner, corner + 1, corner + columns + 2, corner + columns + 1, corner)
        nds = b"".join(b"<nd ref='%d'/>" % ref for ref in ring)
        parts.append(
            b"<way id='%d'>%s<tag k='indoor' v='room'/><tag k='level' v='%s'/></way>\n"
            % (index + 1, nds, level.encode())
        )
    return b"".join(parts) + b"</osm>"


def refusal(tmp_path: Path, levels: list[str]) -> str:
    path = tmp_path / "many.osm"
    path.write_bytes(rooms(levels))
    began = time.perf_counter()
    with pytest.raises(OsmError) as refused:
        osm_dataset(path, ImdfOptions())
    assert time.perf_counter() - began < 5  # no shape built: the bound comes first
    return str(refused.value).removeprefix(f"{path}: ")


def test_rooms_past_the_bound_of_one_level(tmp_path: Path) -> None:
    assert refusal(tmp_path, ["0"] * (MAX_OSM_LEVEL_UNITS + 1)) == (
        f"way/{MAX_OSM_LEVEL_UNITS + 1}: more than {MAX_OSM_LEVEL_UNITS} indoor areas (units) "
        "on level 0"
    )


def test_rooms_past_the_bound_of_the_file(tmp_path: Path) -> None:
    """Each room on two levels (`0;1`, `repeat_on` alike) is two units."""
    per_level = MAX_OSM_UNITS // 2 // 4
    levels = [f"{2 * (i // per_level)};{2 * (i // per_level) + 1}" for i in range(4 * per_level)]
    assert refusal(tmp_path, [*levels, "0"]) == (
        f"way/{4 * per_level + 1}: more than {MAX_OSM_UNITS} indoor areas (units) in one file"
    )


def test_levels_past_the_bound(tmp_path: Path) -> None:
    assert refusal(tmp_path, [str(level) for level in range(MAX_OSM_LEVELS + 1)]) == (
        f"way/{MAX_OSM_LEVELS + 1}: more than {MAX_OSM_LEVELS} levels in one file"
    )


def test_outlines_past_the_bound_of_positions(tmp_path: Path) -> None:
    """Every later step (walk paths, drawings) costs by the position: 36 round rooms of
    20,000 positions each (16 MB of GeoJSON) took 75 s and 549 MB; now refused at the
    room that crosses the bound, before any shape is built."""
    per_room = 2_000
    circle = [
        f"[{5 + 0.0001 * math.cos(2 * math.pi * k / per_room):.7f}, "
        f"{45 + 0.0001 * math.sin(2 * math.pi * k / per_room):.7f}]"
        for k in range(per_room)
    ]
    ring = ", ".join([*circle, circle[0]])
    room = (
        '{"type": "Feature", "id": "way/%d", "properties": {"indoor": "room", "level": "0"}, '
        '"geometry": {"type": "Polygon", "coordinates": [[%s]]}}'
    )
    rooms_needed = MAX_OSM_UNIT_POSITIONS // (per_room + 1) + 1
    path = tmp_path / "round.geojson"
    features = ", ".join(room % (k, ring) for k in range(1, rooms_needed + 1))
    path.write_text('{"type": "FeatureCollection", "features": [' + features + "]}")
    began = time.perf_counter()
    with pytest.raises(OsmError) as refused:
        osm_dataset(path, ImdfOptions())
    assert time.perf_counter() - began < 5
    assert str(refused.value) == (
        f"{path}: way/{rooms_needed}: units outlined by more than {MAX_OSM_UNIT_POSITIONS} "
        "positions in one file"
    )


@pytest.mark.parametrize("level", ["0;nan", "roof", "1e308"])
def test_areas_whose_level_names_none_are_refused_by_name(tmp_path: Path, level: str) -> None:
    """Was `the archive has no level`, from the IMDF pipeline, naming nothing."""
    path = tmp_path / "levels.osm"
    path.write_bytes(rooms([level, level]))
    with pytest.raises(OsmError) as refused:
        osm_dataset(path, ImdfOptions())
    assert str(refused.value) == (
        f"{path}: way/1: level={level!r} names no level, and no other indoor area makes a "
        "unit either: nothing to import"
    )


def test_a_place_within_the_bounds_is_imported(tmp_path: Path) -> None:
    path = tmp_path / "few.osm"
    path.write_bytes(rooms(["0", "0", "1"]))
    dataset = osm_dataset(path, ImdfOptions())
    assert dataset.summary[0].startswith("venue 'few': 2 levels, 3 units (3 listed)")
