"""IMDF venues imported end to end (issue 19): floors, units, locations, GeoJSON back to
the archive's coordinates, and walking distances (E18, directions) against paths
computed by hand on the test venue's plan (tests/venues/imdf_venues.py).

The hand computation follows docs/imdf.md's rules: every door has a 0.3 m stub into each
unit it joins, and inside a unit lines keep 0.3 m from its walls, going around a
concave corner at that distance.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import pytest_asyncio
from pymongo import MongoClient

from parsing.imdf.read import ImdfError, Report, read_archive
from parsing.imdf.venue import ImdfOptions
from resolvers.auth.keys import create_key
from resolvers.auth.permissions import DISTANCES_CALCULATE
from rest.app import create_app
from storage import collections as c
from storage.datasets.fields import DatasetError
from storage.imdf.dataset import dataset_from_path, import_venue, venue_dataset
from storage.imdf.files import read_files
from tests._dbserver import fresh_store
from tests.venues.imdf_venues import DISPLAY, TwoLevels, stable_id, two_levels, zip_bytes

FLAGS = "distances, directions, locations-resource"
FEET = 0.3048
MARGIN = 0.3
FLOOR_HEIGHT_FT = 10.0


def hand_a_to_b() -> float:
    """Room A's display point to room B's on one level, in metres: into A's door stub,
    through the door, along the corridor's south side 0.3 m off the wall to the L's
    inner corner (27, 3) inset to (27.3, 2.7), then straight to B's door stub."""
    (ax, ay), (bx, by) = DISPLAY["A"], DISPLAY["B"]
    a_stub, b_stub = (2.5, 3 + MARGIN), (30 + MARGIN, 16.5)
    corridor_a, corridor_b, corner = (2.5, 3 - MARGIN), (30 - MARGIN, 16.5), (27.3, 2.7)
    return (
        math.dist((ax, ay), a_stub)
        + 4 * MARGIN
        + math.dist(corridor_a, corner)
        + math.dist(corner, corridor_b)
        + math.dist(b_stub, (bx, by))
    )


def hand_wheelchair_a0_to_b1() -> float:
    """Room A on level 0 to room B on level 1 by elevator, in feet: to the elevator's
    door (straight along the corridor, 0.3 m off its walls), into the elevator to its
    point, the ride (one floor step: 10 ft), out on level 1 and round the L's corner
    to room B."""
    (ax, ay), (bx, by), lift = DISPLAY["A"], DISPLAY["B"], DISPLAY["E"]
    lift_stub, corner = (17.5, MARGIN), (27.3, 2.7)
    inside_lift = math.dist(lift, (17.5, -MARGIN))
    level_0 = (
        math.dist((ax, ay), (2.5, 3.3))
        + 4 * MARGIN
        + math.dist((2.5, 2.7), lift_stub)
        + inside_lift
    )
    level_1 = (
        inside_lift
        + 4 * MARGIN
        + math.dist(lift_stub, corner)
        + math.dist(corner, (29.7, 16.5))
        + math.dist((30.3, 16.5), (bx, by))
    )
    return (level_0 + level_1) / FEET + FLOOR_HEIGHT_FT


def through_the_wall() -> float:
    """The same, were the corridor's corner cut straight (as a line through the wall)."""
    (ax, ay), (bx, by) = DISPLAY["A"], DISPLAY["B"]
    return (
        math.dist((ax, ay), (2.5, 3.3))
        + 4 * MARGIN
        + math.dist((2.5, 2.7), (29.7, 16.5))
        + math.dist((30.3, 16.5), (bx, by))
    )


@dataclass
class Env:
    client: httpx.AsyncClient
    store: Any
    venue: TwoLevels
    key: str
    report: Report

    @property
    def headers(self) -> dict[str, str]:
        return {"API-Key": self.key, "Experimental-Flags": FLAGS}


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def env(db_server, settings, tmp_path_factory) -> AsyncIterator[Env]:
    venue = two_levels()
    folder = tmp_path_factory.mktemp("imdf")
    archive = folder / "venue.zip"
    archive.write_bytes(zip_bytes(venue.venue.files()))
    async with fresh_store(db_server) as store:
        dataset = dataset_from_path(archive, ImdfOptions())
        await import_venue(store, dataset, limits=settings.svg_limits)
        key = (await create_key(store, "imdf", [DISTANCES_CALCULATE], None)).secret
        app = create_app(settings, store)
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="https://testserver") as client:
            yield Env(client, store, venue, key, dataset.report)


def venue_id(env: Env) -> str:
    return env.venue.venue.features["venue"][0]["id"]


async def get(env: Env, path: str) -> Any:
    response = await env.client.get(path, headers=env.headers)
    assert response.status_code == 200, response.text
    return response.json()


async def distance(env: Env, map_id: str, a: str, b: str, mode: str = "foot") -> float | None:
    body = {
        "data": {
            "sources": [{"id": a}],
            "targets": [{"id": b}],
            "distance_method": "pathfinding",
            "costing_options": {"pedestrian": {"mode": mode}},
        }
    }
    response = await env.client.post(
        f"/v1/unitmaps/{map_id}/distance-matrix", json=body, headers=env.headers
    )
    assert response.status_code == 200, response.text
    return response.json()["data"]["sources"][0]["targets"][0]["distance"]


# ---------------------------------------------------------------- what was imported


async def test_asset_floors_units_and_maps(env):
    asset = await get(env, f"/v1/assets/{venue_id(env)}")
    assert (asset["name"], asset["market"]) == ("Test Hall", "imdf")
    floors = (await get(env, f"/v1/assets/{venue_id(env)}/floors"))["data"]
    levels = env.venue.levels
    assert [(f["id"], f["name"], f["short_label"]) for f in floors] == [
        (levels[0], "Level 0", "L0"),
        (levels[1], "Level 1", "L1"),
    ]
    units = (await get(env, "/v1/units?per-page=100"))["data"]
    # Rooms and stairs/elevators: only rooms are API units by default (docs/imdf.md).
    expected = {env.venue.units[f"{k}{n}"]: f"Room {k}{n}" for k in "ABC" for n in (0, 1)}
    expected[env.venue.units["A1"]] = "Café"  # named by its one occupant (docs/imdf.md)
    assert {u["id"]: u["name"] for u in units} == expected
    maps = (await get(env, f"/v1/maps?asset={venue_id(env)}"))["data"]
    assert sorted(m["id"] for m in maps) == sorted([levels[0], levels[1], venue_id(env)])
    assert all("pathfinding" in m["tags"] and "imdf" in m["tags"] for m in maps)


async def test_locations_of_units_amenities_and_occupants(env):
    stack = venue_id(env)
    found = (await get(env, f"/v1/maps/{stack}/locations"))["data"]
    by_id = {loc["id"]: loc for loc in found}
    amenity = by_id[f"{env.venue.amenity}@{stack}"]
    assert amenity["name"] == "Restroom"
    assert {t["key"]: t["value"] for t in amenity["tags"]} == {
        "svc:amenity": "yes",
        "imdf:feature": "amenity",
        "imdf:category": "restroom",
    }
    assert amenity["floors"] == [{"id": env.venue.levels[0]}]
    # The café is room A1's one occupant: one place, the room's location (issue 48).
    cafe = by_id[f"{stack}:{env.venue.units['A1']}"]
    assert (cafe["name"], cafe["floors"]) == ("Café", [{"id": env.venue.levels[1]}])
    assert {t["key"]: t["value"] for t in cafe["tags"]} == {
        "svc:type": "unit",
        "svc:id": env.venue.units["A1"],
        "imdf:category": "room",
        "imdf:occupant": env.venue.occupant,
        "svc:category": "restaurant",
        "alt_name": "Room A1",
    }
    assert f"{env.venue.occupant}@{stack}" not in by_id
    room = by_id[f"{stack}:{env.venue.units['A0']}"]
    assert {t["key"]: t["value"] for t in room["tags"]} == {
        "svc:type": "unit",
        "svc:id": env.venue.units["A0"],
        "imdf:category": "room",
    }
    # Elevators and stairs are drawn, not units, yet places people look for (issue 47).
    lift = by_id[f"{env.venue.units['E0']}@{stack}"]
    assert (lift["name"], lift["floors"]) == ("Room E0", [{"id": env.venue.levels[0]}])
    assert {t["key"]: t["value"] for t in lift["tags"]} == {
        "imdf:feature": "unit",
        "imdf:category": "elevator",
        "svc:connector": "yes",
        "svc:connector-id": env.venue.venue.feature_id("relationship", "elevator"),
    }
    assert len(found) == 6 + 1 + 4  # rooms (the café in A1), the amenity, elevators, stairs


async def test_geojson_gives_back_the_archive_coordinates(env):
    """Every vertex of a unit and every location within 5 cm of the archive's."""
    level_map = await get(env, f"/v1/maps/{env.venue.levels[0]}")
    response = await env.client.get(level_map["geojson_url"].replace("https://localhost:8443", ""))
    assert response.status_code == 200
    features = {f["id"]: f for f in response.json()["features"]}
    source = {f["id"]: f for f in env.venue.venue.features["unit"]}
    for key in ("A0", "B0", "C0"):
        unit_id = env.venue.units[key]
        got = features[f"unit:{unit_id}"]["geometry"]["coordinates"][0]
        want = source[unit_id]["geometry"]["coordinates"][0]
        assert len(got) == len(want)
        for lon, lat in got:
            assert min(metres((lon, lat), tuple(w)) for w in want) <= 0.05, key
    amenity = next(f for f in env.venue.venue.features["amenity"])
    point = features[f"location:{amenity['id']}"]["geometry"]["coordinates"]
    assert metres(tuple(point), tuple(amenity["geometry"]["coordinates"])) <= 0.05


def metres(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    lat = math.radians((a[1] + b[1]) / 2)
    return math.hypot((a[0] - b[0]) * 111_320 * math.cos(lat), (a[1] - b[1]) * 111_320)


# ---------------------------------------------------------------- walking


async def test_around_the_corner_not_through_the_wall(env):
    level = env.venue.levels[0]
    a, b = (f"{level}:{env.venue.units[k]}" for k in ("A0", "B0"))
    feet = await distance(env, level, a, b)
    assert feet == pytest.approx(hand_a_to_b() / FEET, abs=0.02)
    assert feet > through_the_wall() / FEET + 10


async def test_a_locked_door_makes_its_room_unreachable(env):
    level = env.venue.levels[0]
    a, c_room = (f"{level}:{env.venue.units[k]}" for k in ("A0", "C0"))
    assert await distance(env, level, a, c_room) is None
    reach = venue_dataset(read_archive(env.venue.venue.files()), ImdfOptions()).reachability
    assert reach is not None  # C on both levels, behind its locked door (docs/imdf.md)
    assert [(u.name, u.reason) for u in reach.unreachable] == [
        ("Room C0", "only-closed-openings"),
        ("Room C1", "only-closed-openings"),
    ]


async def test_wheelchair_takes_the_elevator_and_foot_may_take_the_stairs(env):
    stack = venue_id(env)
    a0, b1 = f"{stack}:{env.venue.units['A0']}", f"{stack}:{env.venue.units['B1']}"
    for mode, allowed in (("wheelchair", {"elevator"}), ("foot", {"elevator", "stairs"})):
        response = await env.client.post(
            f"/v1/unitmaps/{stack}/route",
            headers=env.headers,
            json={"data": {"from": {"id": a0}, "to": {"id": b1}, "mode": mode}},
        )
        assert response.status_code == 200, response.text
        route = response.json()["route"]
        kinds = {leg["connector"]["kind"] for leg in route["legs"] if leg["connector"]}
        assert kinds and kinds <= allowed, (mode, kinds)
        assert route["distance"] == await distance(env, stack, a0, b1, mode)
    chair = await distance(env, stack, a0, b1, "wheelchair")
    # Within 3 cm: where the corridor's lines cross near each other, the drawing's
    # 2.5 cm joins bend them a little (docs/imdf.md).
    assert chair == pytest.approx(hand_wheelchair_a0_to_b1(), abs=0.1)


async def test_reimport_updates_in_place(env, settings):
    before = {
        name: await env.store[name].count_documents({})
        for name in (c.ASSETS, c.FLOORS, c.UNITS, c.UNIT_MAPS, c.LOCATIONS)
    }
    dataset = venue_dataset(read_archive(env.venue.venue.files()), ImdfOptions())
    await import_venue(env.store, dataset, limits=settings.svg_limits)
    after = {name: await env.store[name].count_documents({}) for name in before}
    assert after == before


# ---------------------------------------------------------------- archives in the wild


def test_non_standard_archives_are_read_and_reported(tmp_path):
    venue = two_levels(door_gap=0.3)
    folder = tmp_path / "wild"
    for name, data in venue.venue.files(wild=True).items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(data)
    dataset = dataset_from_path(folder, ImdfOptions())
    kinds = dataset.report.counts
    assert kinds["array in place of a FeatureCollection"] == 8
    assert kinds["3-D coordinates, altitude dropped"] > 0
    # Each label read once: the venue, 2 levels, 12 units, the amenity and the occupant.
    assert kinds["label is a plain string, not a language map"] == 17
    # Room A's door, in the middle of a 0.3 m wall: snapped 0.15 m onto room A and onto
    # the corridor, on both levels; A stays reachable, only the locked rooms do not.
    assert kinds["opening snapped onto its unit"] == 4
    assert dataset.report.examples["opening snapped onto its unit"][0].endswith(": 0.15 m")
    assert dataset.reachability is not None
    assert [u.name for u in dataset.reachability.unreachable] == ["Room C0", "Room C1"]
    assert len(dataset.data["units"]) == 6
    standard = venue_dataset(read_archive(venue.venue.files()), ImdfOptions())
    # The wild archive's labels are plain strings (English only); the standard one names
    # its levels in English and French, and every language is kept (issue 51).
    assert dataset.data["floors"] == [
        {**floor, "name": floor["name"]["en"]} for floor in standard.data["floors"]
    ]


def test_language_option_and_unit_categories():
    venue = two_levels()
    french = venue_dataset(read_archive(venue.venue.files()), ImdfOptions(languages=("fr",)))
    assert french.data["language"] == "fr"
    assert [f["name"] for f in french.data["floors"]] == [
        {"fr": "Niveau 0", "en": "Level 0"},
        {"fr": "Niveau 1", "en": "Level 1"},
    ]
    rooms_and_stairs = ImdfOptions(units=frozenset({"room", "stairs"}))
    listed = venue_dataset(read_archive(venue.venue.files()), rooms_and_stairs)
    assert len(listed.data["units"]) == 8


def test_what_cannot_be_read_is_an_error(tmp_path):
    not_zip = tmp_path / "venue.zip"
    not_zip.write_bytes(b"not a zip")
    with pytest.raises(ImdfError, match="not a readable zip archive"):
        read_files(not_zip)
    with pytest.raises(ImdfError, match="no such file or folder"):
        read_files(tmp_path / "missing")
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ImdfError, match="no venue"):
        dataset_from_path(empty, ImdfOptions())


def test_a_zip_bomb_is_refused_before_it_is_inflated(tmp_path, monkeypatch):
    """Bounds come from the zip's directory: 2 MiB of zeros packs to a few KiB and is
    refused under a 1 MiB bound (512 MiB in use) without being read; so is a zip of
    more files than the bound."""
    from storage.imdf import files as imdf_import

    monkeypatch.setattr(imdf_import, "MAX_ARCHIVE_BYTES", 1024 * 1024)
    bomb = tmp_path / "bomb.zip"
    bomb.write_bytes(zip_bytes({"unit.geojson": b"0" * (2 * 1024 * 1024)}))
    assert bomb.stat().st_size < 20_000
    with pytest.raises(ImdfError, match="bytes of JSON, at most 1048576"):
        read_files(bomb)
    monkeypatch.setattr(imdf_import, "MAX_ARCHIVE_FILES", 3)
    many = tmp_path / "many.zip"
    many.write_bytes(zip_bytes({f"f{n}.json": b"{}" for n in range(4)}))
    with pytest.raises(ImdfError, match="4 JSON files, at most 3"):
        read_files(many)


async def test_nothing_is_written_when_the_dataset_has_a_problem(db_server, settings):
    venue = two_levels()
    dataset = venue_dataset(read_archive(venue.venue.files()), ImdfOptions())
    dataset.data["units"][0]["floor_id"] = "no-such-floor"
    async with fresh_store(db_server) as store:
        with pytest.raises(DatasetError):
            await import_venue(store, dataset, limits=settings.svg_limits)
        with pytest.raises(DatasetError):
            await import_venue(store, dataset, limits=settings.svg_limits, dry_run=True)
        assert await store[c.ASSETS].count_documents({}) == 0


def test_cli_dry_run_then_import_then_a_bad_archive(tmp_path, db_server):
    database = "floorgate_cli_imdf"
    env = {
        **os.environ,
        "FLOORGATE_MONGODB_URI": db_server.uri,
        "FLOORGATE_DATABASE": database,
        "FLOORGATE_DATA_DIR": str(tmp_path),
    }
    venue = two_levels(door_gap=0.3)
    archive = tmp_path / "venue.zip"
    archive.write_bytes(zip_bytes(venue.venue.files()))
    dry = run_cli(["import-imdf", str(archive), "--dry-run"], env)
    assert dry.returncode == 0, dry.stderr
    assert "would import without problems; nothing was written" in dry.stdout
    assert "opening snapped onto its unit: 4 (e.g." in dry.stdout
    with MongoClient(db_server.uri) as client:
        assert client[database]["assets"].count_documents({}) == 0
    done = run_cli(["import-imdf", str(archive), "--asset-id", "hall"], env)
    assert done.returncode == 0, done.stderr
    assert "units: 6 inserted, 0 updated" in done.stdout
    bad = tmp_path / "bad.zip"
    bad.write_bytes(b"PK not really")
    refused = run_cli(["import-imdf", str(bad)], env)
    assert refused.returncode == 1
    assert "Nothing was imported:" in refused.stderr and "not a readable zip" in refused.stderr
    with MongoClient(db_server.uri) as client:
        assert client[database]["units"].count_documents({"asset_id": "hall"}) == 6
        client.drop_database(database)


def run_cli(args: list[str], env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    floorgate = str(Path(sys.executable).with_name("floorgate"))
    return subprocess.run([floorgate, *args], capture_output=True, text=True, timeout=120, env=env)


def test_cli_out_writes_an_importable_dataset(tmp_path):
    venue = two_levels()
    archive = tmp_path / "venue.zip"
    archive.write_bytes(zip_bytes(venue.venue.files()))
    out = tmp_path / "review"
    done = run_cli(["import-imdf", str(archive), "--out", str(out)])
    assert done.returncode == 0, done.stderr
    assert "venue 'Test Hall': 2 levels, 12 units (6 listed)" in done.stdout
    assert (out / "dataset.json").is_file()
    assert len(list((out / "maps").glob("*.svg"))) == 3


def test_the_venue_gives_the_asset_its_address_and_position():
    """Vendor clients read an asset's address and position (docs/api.md, Vendor paths):
    the venue's `address` feature and display point give them; nothing is made up."""
    venue = two_levels().venue
    [feature] = venue.features["venue"]
    address_id = venue.add(
        "address",
        stable_id("address:hq"),
        None,
        {
            "address": "1 Rue de Rivoli",
            "unit": "Bât. B",
            "locality": "Paris",
            "province": "FR-75C",
            "country": "FR",
            "postal_code": "75001",
            "postal_code_ext": None,
            "postal_code_vanity": None,
        },
    )
    feature["properties"] |= {"address_id": address_id, "alt_name": {"en": "HQ"}}
    asset = venue_dataset(read_archive(venue.files()), ImdfOptions()).data["assets"][0]
    lon, lat = feature["properties"]["display_point"]["coordinates"]
    assert {name: value for name, value in asset.items() if name not in ("id", "name")} == {
        "market": "imdf",
        "display_name": "HQ",
        "address_line1": "1 Rue de Rivoli",
        "address_line2": "Bât. B",
        "address_city": "Paris",
        "address_state": "75C",
        "address_postal_code": "75001",
        "address_country": "FR",
        "latitude": lat,
        "longitude": lon,
    }

    feature["properties"] |= {"address_id": "gone", "alt_name": None, "display_point": None}
    bare = venue_dataset(read_archive(venue.files()), ImdfOptions())
    assert set(bare.data["assets"][0]) == {"id", "market", "name"}  # null in the API
    assert bare.report.counts["venue address not in the archive"] == 1
