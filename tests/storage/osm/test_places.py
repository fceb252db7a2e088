"""The three OSM places import (issue 49, point 6): every named room is a unit with its
name on the levels the data gives, and the station and the malls route between floors
wherever the data joins them, through E18 on the stack map; what the data does not
join, the report names. Each place is converted once per process and its tests share
the dataset, each with its own copy (tests/venues/osm_places.py `place_dataset`). Data (c)
OpenStreetMap contributors, ODbL."""

from __future__ import annotations

import itertools
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import pytest_asyncio

from resolvers.auth.keys import create_key
from resolvers.auth.permissions import DISTANCES_CALCULATE
from rest.app import create_app
from storage.imdf.dataset import ImdfDataset, import_venue
from tests._dbserver import fresh_store
from tests.venues.osm_places import (
    CASERNE,
    CASERNE_XML,
    MALL,
    STATION,
    named_rooms,
    place_dataset,
)

STOP = re.compile(r'<circle cx="([-0-9.]+)" cy="([-0-9.]+)"[^>]*data-connector-id=')
FLAGS = "distances, directions, locations-resource"
PLACES = {"station": STATION, "mall": MALL, "caserne": CASERNE, "caserne-xml": CASERNE_XML}


def level_of(dataset: ImdfDataset) -> dict[str, str]:
    """Floor id -> the level as OSM writes it (`Level -1` -> `-1`)."""
    return {f["id"]: f["short_label"] for f in dataset.data["floors"]}


@pytest.mark.parametrize("path", [STATION, MALL, CASERNE], ids=lambda p: p.stem)
def test_every_named_room_is_a_unit_with_its_name(path: Path) -> None:
    dataset = place_dataset(path)
    levels = level_of(dataset)
    units = {(levels[u["floor_id"]], u["name"]) for u in dataset.data["units"]}
    expected = named_rooms(path)
    assert expected <= units, sorted(expected - units)


def test_levels_as_the_data_says() -> None:
    found = {
        name: sorted(level_of(place_dataset(path)).values(), key=float)
        for name, path in PLACES.items()
    }
    assert found == {
        "station": ["-1", "0"],
        "mall": ["0", "1", "2"],
        "caserne": ["-1", "0", "1"],
        "caserne-xml": ["-1", "0", "1", "2"],  # the XML puts one room on 0;2
    }


def test_the_xml_and_the_geojson_of_one_place_give_the_same_names() -> None:
    names = [
        {u["name"] for u in place_dataset(path).data["units"]} for path in (CASERNE, CASERNE_XML)
    ]
    assert names[0] == names[1]
    assert len(names[0]) == 53


def test_the_attribution_is_on_every_drawing_and_map() -> None:
    dataset = place_dataset(CASERNE)
    assert all(
        "<desc>(c) OpenStreetMap contributors, ODbL</desc>" in s for s in dataset.svgs.values()
    )
    assert all({"osm", "odbl"} <= set(m["tags"]) for m in dataset.data["unit_maps"])
    assert dataset.summary[-1] == "data (c) OpenStreetMap contributors, ODbL"


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def imported(
    db_server: Any, settings: Any
) -> AsyncIterator[tuple[httpx.AsyncClient, dict[str, str], dict[str, ImdfDataset]]]:
    """The three places in one database, and a client with a key that routes."""
    datasets = {name: place_dataset(PLACES[name]) for name in ("station", "mall", "caserne")}
    async with fresh_store(db_server) as store:
        for dataset in datasets.values():
            await import_venue(store, dataset, limits=settings.svg_limits)
        key = (await create_key(store, "osm", [DISTANCES_CALCULATE], None)).secret
        transport = httpx.ASGITransport(app=create_app(settings, store))
        async with httpx.AsyncClient(transport=transport, base_url="https://testserver") as http:
            yield http, {"API-Key": key, "Experimental-Flags": FLAGS}, datasets


def samples(dataset: ImdfDataset) -> dict[str, str]:
    """One listed unit per level that the import reaches on foot (the first by id)."""
    unreachable = (
        {u.unit_id for u in dataset.reachability.unreachable} if dataset.reachability else set()
    )
    found: dict[str, str] = {}
    for unit in sorted(dataset.data["units"], key=lambda u: u["id"]):
        if unit["id"] not in unreachable:
            found.setdefault(unit["floor_id"], unit["id"])
    return found


def waypoints(dataset: ImdfDataset) -> dict[str, list[dict[str, Any]]]:
    """Per floor, the places a person may start from: its sample listed unit (by id) and
    each connector stop drawn on the floor's map (by its point)."""
    found: dict[str, list[dict[str, Any]]] = {f["id"]: [] for f in dataset.data["floors"]}
    for floor, unit in samples(dataset).items():
        found[floor].append({"id": f"{dataset.stack_map}:{unit}"})
    for floor, points in found.items():
        for x, y in STOP.findall(dataset.svgs[floor]):
            points.append({"x": float(x), "y": float(y), "floor_id": floor})
    return found


async def routed(
    http: httpx.AsyncClient,
    headers: dict[str, str],
    dataset: ImdfDataset,
    sources: list[dict[str, Any]],
    targets: list[dict[str, Any]],
    mode: str = "foot",
) -> bool:
    """Whether E18 on the stack map finds a way from one of `sources` to one of `targets`
    (a source a request: E18 takes at most 50 pairs), on foot or by `wheelchair`."""
    request: dict[str, Any] = {"targets": targets, "costing": "pedestrian"}
    if mode == "wheelchair":
        request["costing_options"] = {"pedestrian": {"mode": "wheelchair"}}
    for source in sources:
        response = await http.post(
            f"/v1/unitmaps/{dataset.stack_map}/distance-matrix",
            headers=headers,
            json={"data": {"sources": [source], **request}},
        )
        assert response.status_code == 200, response.text
        [row] = response.json()["data"]["sources"]
        found = [t["distance"] for t in row["targets"] if t["distance"] is not None]
        assert all(float(d) > 0 for d in found)
        if found:
            return True
    return False


@pytest.mark.asyncio(loop_scope="session")
@pytest.mark.parametrize(
    ("name", "rooms", "walkable", "step_free", "not_joined"),
    [
        # the data draws no stairs, lift or escalator
        ("station", [], [], [], {"0": ("foot", "wheelchair")}),
        # on foot: three steps 0;1 from the ground floor's footways and platforms to the
        # mall's and to a landing, one steps 1;2 from the landing's middle up to level
        # 2's footway (across the landing its foot cuts in two: 0/2); its two lifts
        # (0;2) land on level 2 where nobody walks, so no level but the ground floor is
        # step-free
        (
            "mall",
            [],
            [("0", "1"), ("0", "2"), ("1", "2")],
            [],
            {"1": ("wheelchair",), "2": ("wheelchair",)},
        ),
        ("caserne", *[[("-1", "0"), ("-1", "1"), ("0", "1")]] * 3, {}),
    ],
)
async def test_routes_between_floors_where_the_data_joins_them(
    imported: Any,
    name: str,
    rooms: list[tuple[str, str]],
    walkable: list[tuple[str, str]],
    step_free: list[tuple[str, str]],
    not_joined: dict[str, tuple[str, ...]],
) -> None:
    """`rooms`: the pairs of levels where a listed unit that the import reaches routes to
    one on the other (the first by id of each level); `walkable`: the pairs where any
    listed unit or connector stop routes to one of the other level, on foot; `step_free`
    the same by wheelchair."""
    http, headers, datasets = imported
    dataset = datasets[name]
    levels = level_of(dataset)
    stack = dataset.stack_map
    by_level = {levels[floor]: unit for floor, unit in samples(dataset).items()}
    assert _unjoined(dataset) == not_joined
    found = []
    for low, high in itertools.combinations(sorted(by_level, key=float), 2):
        one, other = ([{"id": f"{stack}:{by_level[level]}"}] for level in (low, high))
        if await routed(http, headers, dataset, one, other):
            found.append((low, high))
    assert found == rooms
    places = {levels[floor]: points for floor, points in waypoints(dataset).items()}
    for mode, expected in (("foot", walkable), ("wheelchair", step_free)):
        found = []
        for low, high in itertools.combinations(sorted(places, key=float), 2):
            if await routed(http, headers, dataset, places[low], places[high], mode):
                found.append((low, high))
        assert (mode, found) == (mode, expected)


def test_the_report_names_the_connector_ends_that_stand_in_no_unit() -> None:
    dataset = place_dataset(MALL)
    kind = "connector end in no unit of its level, stands alone"
    # the ramp and two escalators of the Galerie Échirolles (1;2, outside the mall's
    # extent) on both levels; on level 2 the ends of escalator 493461476, stairs
    # 493461478, 493461484 and 494491595 and of both lifts
    assert dataset.report.counts[kind] == 12
    assert dataset.report.examples[kind][0] == "way/241045176 on level 1"
    joined_none = "connector with fewer than two ends where people walk, joins no level"
    assert dataset.report.counts[joined_none] == 9


def _unjoined(dataset: ImdfDataset) -> dict[str, tuple[str, ...]]:
    """The levels the report names as joined to no other (`level-not-joined`), with the
    modes (foot, wheelchair) in which they are not."""
    assert dataset.reachability is not None
    shorts = {f["id"]: f["short_label"] for f in dataset.data["floors"]}
    return {shorts[level.level]: level.modes for level in dataset.reachability.levels}
