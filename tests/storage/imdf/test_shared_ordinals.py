"""Levels sharing an ordinal are joined (issue 48, point 1), on Harbour Station
(tests/venues/imdf_shared_ordinals.py: ordinals 0, 1, 1, 2, 2), imported as `floorgate
import-imdf` imports it: every pair of named units is routed on the stack map on foot
and by wheelchair; a door between the two ordinal-1 levels is a door, not stairs; a
level that no connector or opening reaches is named by the import report.

Before issue 48 connectors were paired by position in the level order: the Lower Level
met only the first ordinal-1 level, the Parkway only the second ordinal-2 one, and the
door between the Concourse and the Sun Terrace joined nothing, so half the pairs below
had no route (`distance: null`)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest
import pytest_asyncio

from parsing.imdf.venue import ImdfOptions
from parsing.svg import parse_unit_map
from resolvers.auth.keys import create_key
from resolvers.auth.permissions import DISTANCES_CALCULATE
from rest.app import create_app
from rest.cli.main import parser
from routing.build import build_walk_graph
from storage.imdf.dataset import dataset_from_path, import_venue
from tests._dbserver import fresh_store
from tests.venues.imdf_shared_ordinals import LEVELS, ROOMS, SharedOrdinals, harbour_station
from tests.venues.imdf_venues import zip_bytes

FLAGS = "distances, directions, locations-resource"
MODES = ("foot", "wheelchair")


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def station(
    db_server, settings, tmp_path_factory
) -> AsyncIterator[tuple[httpx.AsyncClient, SharedOrdinals, dict[str, str]]]:
    """Harbour Station imported from its zip, and a client with a key that routes."""
    venue = harbour_station()
    archive = tmp_path_factory.mktemp("station") / "station.zip"
    archive.write_bytes(zip_bytes(venue.venue.files()))
    async with fresh_store(db_server) as store:
        await import_venue(
            store, dataset_from_path(archive, ImdfOptions()), limits=settings.svg_limits
        )
        key = (await create_key(store, "station", [DISTANCES_CALCULATE], None)).secret
        transport = httpx.ASGITransport(app=create_app(settings, store))
        async with httpx.AsyncClient(transport=transport, base_url="https://testserver") as http:
            yield http, venue, {"API-Key": key, "Experimental-Flags": FLAGS}


def named_units(venue: SharedOrdinals) -> dict[str, str]:
    """Stack-map location id -> unit key, for every named (listed) unit of the venue:
    the rooms and the Terrace's lawn (halls, stairs and lifts are drawn only)."""
    keys = [f"{level}:{room[0]}" for level, rooms in ROOMS.items() for room in rooms]
    return {f"{venue.stack}:{venue.units[k]}": k for k in sorted([*keys, "terrace:hall"])}


async def route(
    http: httpx.AsyncClient,
    venue: SharedOrdinals,
    headers: dict[str, str],
    a: str,
    b: str,
    mode: str,
) -> dict[str, Any]:
    response = await http.post(
        f"/v1/unitmaps/{venue.stack}/route",
        headers=headers,
        json={
            "data": {
                "from": {"id": f"{venue.stack}:{venue.units[a]}"},
                "to": {"id": f"{venue.stack}:{venue.units[b]}"},
                "mode": mode,
            }
        },
    )
    assert response.status_code == 200, response.text
    found = response.json()["route"]
    assert found is not None, response.text
    return dict(found)


async def matrix(
    http: httpx.AsyncClient,
    venue: SharedOrdinals,
    headers: dict[str, str],
    sources: list[dict[str, Any]],
    targets: list[dict[str, Any]],
    mode: str,
    method: str = "default",
) -> list[dict[str, Any]]:
    """E18's cells from one source (a waypoint's `id` is a unit key here)."""

    def placed(waypoint: dict[str, Any]) -> dict[str, Any]:
        if "id" not in waypoint:
            return waypoint
        return {"id": f"{venue.stack}:{venue.units[waypoint['id']]}"}

    response = await http.post(
        f"/v1/unitmaps/{venue.stack}/distance-matrix",
        headers=headers,
        json={
            "data": {
                "sources": [placed(w) for w in sources],
                "targets": [placed(w) for w in targets],
                "costing": "pedestrian",
                "costing_options": {"pedestrian": {"mode": mode}},
                "distance_method": method,
            }
        },
    )
    assert response.status_code == 200, response.text
    [row] = response.json()["data"]["sources"]
    return list(row["targets"])


def rides(found: dict[str, Any]) -> list[tuple[str, str | None]]:
    """The connectors a route takes: (kind, floor it leads to)."""
    return [
        (leg["connector"]["kind"], leg["connector"]["to_floor_id"])
        for leg in found["legs"]
        if leg["connector"]
    ]


async def test_every_pair_of_named_units_is_routed_on_foot_and_by_wheelchair(station):
    http, venue, headers = station
    places = named_units(venue)
    assert sorted(places.values()) == [
        "concourse:cafe",
        "concourse:gate",
        "deck:lounge",
        "lower:shop",
        "lower:ticket",
        "lower:unnamed",
        "parkway:office",
        "terrace:hall",
        "terrace:kiosk",
    ]
    waypoints = [{"id": place} for place in places]
    for mode in MODES:
        distances: list[float] = []
        missing = []
        for source in waypoints:  # one source a request: E18 takes at most 50 pairs
            response = await http.post(
                f"/v1/unitmaps/{venue.stack}/distance-matrix",
                headers=headers,
                json={
                    "data": {
                        "sources": [source],
                        "targets": waypoints,
                        "costing": "pedestrian",
                        "costing_options": {"pedestrian": {"mode": mode}},
                    }
                },
            )
            assert response.status_code == 200, response.text
            [row] = response.json()["data"]["sources"]
            for target, cell in zip(waypoints, row["targets"], strict=True):
                if cell["distance"] is None:
                    missing.append((places[source["id"]], places[target["id"]]))
                else:
                    distances.append(cell["distance"])
        assert missing == [], mode
        assert len(distances) == 81 and all(d >= 0 for d in distances)


async def test_the_wheelchair_takes_the_elevator_to_the_terrace_and_feet_the_stairs(station):
    http, venue, headers = station
    terrace = venue.levels["terrace"]
    chair = await route(http, venue, headers, "lower:shop", "terrace:kiosk", "wheelchair")
    assert rides(chair) == [("elevator", terrace)]
    lifts = [venue.units[f"{level}:lift-east"] for level in ("lower", "terrace", "deck")]
    assert chair["legs"][0]["connector"]["id"] == min(lifts)  # one stack, three levels
    assert not any("stairs" in step or "escalator" in step for step in chair["steps"])
    # On foot the stairs beside the shop climb one floor to the Terrace (ordinal 0 to 1:
    # 15 ft, 12 s). Counted by position they were two floors (30 ft, 24 s), and the
    # escalator to the Concourse and the door across beat them.
    foot = await route(http, venue, headers, "lower:shop", "terrace:kiosk", "foot")
    assert rides(foot) == [("stairs", terrace)]
    connector = foot["legs"][0]["connector"]
    assert (connector["distance"], connector["time"]) == (15.0, 12.0)
    assert (foot["distance"], foot["time"]) == (86.05, 28.15)
    actions = [step.split(", then ")[-1] for step in foot["steps"]]
    rides_told = [a for a in actions if a.startswith(("take the", "go through", "Take", "Go"))]
    assert rides_told == ["take the stairs up to Sun Terrace"]


async def test_a_ride_to_the_second_level_of_an_ordinal_climbs_one_floor(station):
    """The stack map draws each level's ordinal as its height (`data-level-height`), so
    the Lower Level (ordinal 0) and the Sun Terrace (the second level of ordinal 1, two
    positions above it) are one floor apart: the elevator climbs one floor, and costs
    one floor's ride, as E18 measures it too."""
    http, venue, headers = station
    chair = await route(http, venue, headers, "lower:shop", "terrace:kiosk", "wheelchair")
    assert any(s.endswith("take the elevator up to Sun Terrace") for s in chair["steps"])
    assert not any("floors" in s for s in chair["steps"])
    lift = chair["legs"][0]["connector"]
    assert (lift["kind"], lift["distance"], lift["time"]) == ("elevator", 10.0, 35.0)
    shop, kiosk = [{"id": "lower:shop"}], [{"id": "terrace:kiosk"}]
    [cell] = await matrix(http, venue, headers, shop, kiosk, "wheelchair")
    assert (cell["distance"], cell["time"]) == (chair["distance"], chair["time"])


def test_the_stack_map_draws_each_level_at_its_ordinal(tmp_path):
    """`data-level-height` on the stack map's levels is the IMDF ordinal (0, 1, 1, 2, 2),
    read back by the parser and kept by the stored walk graph; a level's own map (one
    level, no index) has its ordinal too: its GeoJSON `level` (docs/geojson.md)."""
    venue = harbour_station()
    archive = tmp_path / "station.zip"
    archive.write_bytes(zip_bytes(venue.venue.files()))
    dataset = dataset_from_path(archive, ImdfOptions())
    stack = parse_unit_map(dataset.svgs[venue.stack])
    by_floor = {level.tags["floor"]: level for level in stack.levels}
    assert {key: by_floor[venue.levels[key]].height for key in LEVELS} == {
        key: ordinal for key, (ordinal, *_) in LEVELS.items()
    }
    graph = build_walk_graph(stack)
    assert graph is not None and graph.level_heights == (0, 1, 1, 2, 2)
    own = parse_unit_map(dataset.svgs[venue.levels["terrace"]])
    assert [(level.index, level.height) for level in own.levels] == [(None, 1)]


async def test_straight_lines_between_levels_climb_their_heights(station):
    """E18's straight lines (`euclidean`) climb one floor height (10 ft) per floor of the
    levels' heights: from a point of the Lower Level to the same point of either
    ordinal-1 level 10 ft, of either ordinal-2 level 20 ft (by position, the Terrace was
    20 ft and the Deck 40 ft)."""
    http, venue, headers = station
    here = {"x": 700, "y": 300}
    source = [{**here, "floor_id": venue.levels["lower"]}]
    targets = [
        {**here, "floor_id": venue.levels[level]}
        for level in ("lower", "concourse", "terrace", "parkway", "deck")
    ]
    cells = await matrix(http, venue, headers, source, targets, "foot", "euclidean")
    assert [cell["distance"] for cell in cells] == [0, 10.0, 10.0, 20.0, 20.0]


async def test_the_door_between_levels_of_one_height_reads_as_a_door(station):
    """The Café (Concourse) to the kiosk (Sun Terrace): through the door in both modes,
    no floor climbed, no stairs named; its length is the walk, nothing added."""
    http, venue, headers = station
    for mode in MODES:
        found = await route(http, venue, headers, "concourse:cafe", "terrace:kiosk", mode)
        assert rides(found) == [("door", venue.levels["terrace"])]
        connector = found["legs"][0]["connector"]
        assert connector["id"] == venue.openings["between"]
        assert (connector["distance"], connector["time"]) == (0, 0)
        text = " ".join(found["steps"])
        assert "go through the door to Sun Terrace" in text
        assert "stairs" not in text and "elevator" not in text and " up " not in text
    # Back the other way, and to the Deck through the Parkway's shared edge.
    back = await route(http, venue, headers, "terrace:kiosk", "concourse:gate", "foot")
    assert rides(back) == [("door", venue.levels["concourse"])]
    deck = await route(http, venue, headers, "parkway:office", "deck:lounge", "wheelchair")
    assert [kind for kind, _ in rides(deck)] == ["door"]
    assert deck["legs"][0]["connector"]["id"] == (
        f"seam:{venue.units['parkway:hall']}:{venue.units['deck:hall']}"
    )


async def test_the_lower_level_reaches_both_levels_above_it(station):
    """Ordinal 0 meets each ordinal-1 level, and each meets the ordinal-2 level above it:
    to the Parkway and the Deck, one ride each, never through the other's level."""
    http, venue, headers = station
    for start, end in (("lower:ticket", "parkway:office"), ("lower:shop", "deck:lounge")):
        found = await route(http, venue, headers, start, end, "wheelchair")
        assert rides(found) == [("elevator", venue.levels[end.split(":")[0]])], end


# ---------------------------------------------------------------- the report


TERRACE_LINES = [
    "Levels no connector or opening reaches: 1 on foot, 1 by wheelchair:",
    "  level-not-joined (foot, wheelchair): 'Sun Terrace' (ordinal 1): no stairs, elevator, "
    "escalator, ramp or opening joins it to the other levels ('Lower Level', 'Concourse' and "
    "2 more)",
]


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    parsed = parser().parse_args(["import-imdf", *args])
    code = parsed.handler(parsed)
    out, err = capsys.readouterr()
    return code, out, err


def write_folder(venue: SharedOrdinals, folder: Path) -> Path:
    folder.mkdir()
    for name, data in venue.venue.files().items():
        (folder / name).write_bytes(data)
    return folder


def test_the_report_names_the_level_nothing_reaches(tmp_path, capsys):
    venue = harbour_station(terrace_joined=False)
    folder = write_folder(venue, tmp_path / "venue")
    report = tmp_path / "report.json"
    code, out, err = run(
        [str(folder), "--out", str(tmp_path / "out"), "--report", str(report)], capsys
    )
    assert (code, err) == (0, "")
    lines = out.splitlines()
    start = lines.index(TERRACE_LINES[0])
    assert lines[start : start + 2] == TERRACE_LINES
    document = orjson.loads(report.read_bytes())
    assert document["unreachable_levels"] == [
        {
            "level": venue.levels["terrace"],
            "level_name": "Sun Terrace",
            "ordinal": 1.0,
            "mode": ["foot", "wheelchair"],
            "reason": "level-not-joined",
            "detail": TERRACE_LINES[1].split("(ordinal 1): ", 1)[1],
        }
    ]


def test_a_joined_venue_reports_no_level(tmp_path, capsys):
    folder = write_folder(harbour_station(), tmp_path / "venue")
    report = tmp_path / "report.json"
    code, out, _ = run(
        [str(folder), "--out", str(tmp_path / "out"), "--report", str(report)], capsys
    )
    assert code == 0
    assert "Levels no connector or opening reaches" not in out
    assert "Unreachable" not in out
    document = orjson.loads(report.read_bytes())
    assert (document["unreachable_levels"], document["unreachable"]) == ([], [])
