"""The three OSM places import (issue 49, point 6): every named room is a unit with its
name on the levels the data gives, and the station and the malls route between floors
wherever the data joins them, through E18 on the stack map; what the data does not
join, the report names. Each place is converted once per process and its tests share
the dataset, each with its own copy (tests/venues/osm_places.py `place_dataset`). Data (c)
OpenStreetMap contributors, ODbL."""

from __future__ import annotations

import itertools
import re
from pathlib import Path
from typing import Any

import httpx
import pytest
import pytest_asyncio

from parsing.osm.convert import UNJOINED
from parsing.osm.lone_rooms import DOORLESS
from resolvers.auth.keys import create_key
from resolvers.auth.permissions import DISTANCES_CALCULATE
from storage.imdf.dataset import ImdfDataset
from tests.conftest import OsmPlaces
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
    osm_places: OsmPlaces,
) -> tuple[httpx.AsyncClient, dict[str, str], dict[str, ImdfDataset]]:
    """The three places as the session's `osm_places` imported them (these tests only
    read), the datasets they were imported from, and a key of this module's that routes."""
    datasets = {name: place_dataset(PLACES[name]) for name in ("station", "mall", "caserne")}
    key = (await create_key(osm_places.store, "osm", [DISTANCES_CALCULATE], None)).secret
    return osm_places.client, {"API-Key": key, "Experimental-Flags": FLAGS}, datasets


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


# Named rooms that route to no other level, as the import report explains them: a room
# with no door and no corridor, area or footway within 5 m (`room with no door ...`)
UNREACHED = {
    # none: the office and the ticket office drawn inside the hall have doors (derived
    # from the hall's ways) that the walk network and the report both join to them
    "station": set(),
    # the car repair shop beside the car park, 15 m from the nearest footway
    "mall": {("0", "Midas")},
    # the open-air centre's shops on the streets the data does not draw indoors
    "caserne": {
        ("-1", "Monoprix"),
        *(
            ("0", name)
            for name in (
                "Ayako Sushi",
                "Blue Box",
                "Cop Copine",
                "Crazyfête",
                "Direction du centre Commercial",
                "H&M",
                "L'InsTant",
                "Lolë",
                "Lucien & la Cocotte",
                "Marionnaud",
                "Modetic",
                "Paul",
                "Poste Incendie",
            )
        ),
        ("1", "Au vieux campeur"),
        ("1", "Ayako Sushi"),
        ("1", "H&M"),
    },
}
# Named rooms open to a part of their level that no connector reaches: the Caserne's
# supermarket and organic shop open onto a corridor of their own (way/562670861), 11 m
# from the mall's, entered from the street; a route never goes outside, and the report
# names them `own-entrance` (tests/routing/imdf/test_report_agrees.py)
# (and Gare de l'Est's hall "La Place", whose only door, node/227901, opens on the street)
APART = {
    "station": {("0", "La Place")},
    "mall": set(),
    "caserne": {("0", "Monoprix"), ("0", "Naturalia")},
}
TO_CASERNE = [("-1", "0"), ("-1", "1"), ("0", "1"), ("1", "0")]


@pytest.mark.asyncio(loop_scope="session")
@pytest.mark.parametrize(
    ("name", "foot", "wheelchair"),
    [
        # the data draws no stairs, lift or escalator: no level pair
        ("station", [], []),
        # steps 0;1 and 0;2 (whose tops are nodes of level 1's footbridge) and the two
        # lifts 0;2 (nodes of level 1's footways) join 0 and 1; level 2 holds no room
        ("mall", [("0", "1"), ("1", "0")], [("0", "1"), ("1", "0")]),
        # stairs and lifts drawn as areas (-1/0), steps and a lift (0/1); level -1's
        # only named room, Monoprix, has no door (the other test routes to -1)
        ("caserne", TO_CASERNE, TO_CASERNE),
    ],
)
async def test_every_named_room_routes_to_the_levels_the_connectors_join(
    imported: Any, name: str, foot: list[tuple[str, str]], wheelchair: list[tuple[str, str]]
) -> None:
    """From one listed unit of each level (the first by id that the import reaches), E18
    to every named room of each other level, on foot and by wheelchair: where the
    connectors join the two levels, every named room routes but those of UNREACHED
    (which the report names) and APART on the far level; where they do not, none does."""
    http, headers, datasets = imported
    dataset = datasets[name]
    levels = level_of(dataset)
    named = named_rooms(PLACES[name])
    rooms: dict[str, dict[str, str]] = {}
    for unit in sorted(dataset.data["units"], key=lambda u: u["id"]):
        level = levels[unit["floor_id"]]
        if (level, unit["name"]) in named:
            rooms.setdefault(level, {})[unit["id"]] = unit["name"]
    sources = {levels[floor]: unit for floor, unit in samples(dataset).items()}
    unreached, apart = UNREACHED[name], APART[name]
    assert dataset.reachability is not None
    reported = {
        (levels[u.level], u.name)
        for u in dataset.reachability.unreachable
        if (levels[u.level], u.name) in named and u.reason == "no-opening"
    }
    assert reported == unreached
    own = {
        (levels[u.level], u.name)
        for u in dataset.reachability.unreachable
        if (levels[u.level], u.name) in named and u.reason == "own-entrance"
    }
    assert own == apart
    for mode, joined in (("foot", foot), ("wheelchair", wheelchair)):
        found = []
        for low, high in itertools.permutations(sorted(rooms, key=float), 2):
            source = sources.get(low) or next(iter(rooms[low]))  # station: -1 is cut off
            distances = await matrix(http, headers, dataset, source, list(rooms[high]), mode)
            missing = {(high, rooms[high][u]) for u, d in distances.items() if d is None}
            far = {(high, n) for n in rooms[high].values()}
            if not far - unreached - apart:
                continue  # no named room there that can be reached (the Caserne's -1)
            if missing == far:
                continue  # not joined: nothing routes
            assert (mode, low, high, missing) == (mode, low, high, far & (unreached | apart))
            found.append((low, high))
        assert (mode, found) == (mode, joined)


async def matrix(
    http: httpx.AsyncClient,
    headers: dict[str, str],
    dataset: ImdfDataset,
    source: str,
    targets: list[str],
    mode: str,
) -> dict[str, float | None]:
    """E18 on the stack map from the unit `source` to each unit of `targets` (50 a
    request, E18's bound): unit id -> distance, None where no way leads."""
    stack = dataset.stack_map
    found: dict[str, float | None] = {}
    for start in range(0, len(targets), 50):
        batch = targets[start : start + 50]
        request: dict[str, Any] = {
            "sources": [{"id": f"{stack}:{source}"}],
            "targets": [{"id": f"{stack}:{unit}"} for unit in batch],
            "costing": "pedestrian",
        }
        if mode == "wheelchair":
            request["costing_options"] = {"pedestrian": {"mode": "wheelchair"}}
        response = await http.post(
            f"/v1/unitmaps/{stack}/distance-matrix", headers=headers, json={"data": request}
        )
        assert response.status_code == 200, response.text
        [row] = response.json()["data"]["sources"]
        for unit, target in zip(batch, row["targets"], strict=True):
            distance = target["distance"]
            assert distance is None or float(distance) > 0
            found[unit] = None if distance is None else float(distance)
    return found


@pytest.mark.asyncio(loop_scope="session")
@pytest.mark.parametrize(
    ("name", "walkable", "step_free", "not_joined"),
    [
        ("station", [], [], {"0": ("foot", "wheelchair")}),
        # level 2 is the footway at the top of steps 493461474 (from the landing of
        # level 1): on foot only
        ("mall", [("0", "1"), ("0", "2"), ("1", "2")], [("0", "1")], {"2": ("wheelchair",)}),
        ("caserne", *[[("-1", "0"), ("-1", "1"), ("0", "1")]] * 2, {}),
    ],
)
async def test_every_level_pair_joined_by_the_data_routes(
    imported: Any,
    name: str,
    walkable: list[tuple[str, str]],
    step_free: list[tuple[str, str]],
    not_joined: dict[str, tuple[str, ...]],
) -> None:
    """Over every pair of levels (level 2 of the mall holds no room): whether one of a
    level's sample unit and connector stops routes to one of the other's, on foot
    (`walkable`) and by wheelchair (`step_free`); the levels the report names as joined
    to none, with the modes."""
    http, headers, datasets = imported
    dataset = datasets[name]
    levels = level_of(dataset)
    assert _unjoined(dataset) == not_joined
    places = {levels[floor]: points for floor, points in waypoints(dataset).items()}
    for mode, expected in (("foot", walkable), ("wheelchair", step_free)):
        found = []
        for low, high in itertools.combinations(sorted(places, key=float), 2):
            if await routed(http, headers, dataset, places[low], places[high], mode):
                found.append((low, high))
        assert (mode, found) == (mode, expected)


def test_the_report_says_what_joins_no_level_and_why() -> None:
    mall = place_dataset(MALL).report
    moved = (
        "connector end on a node of a footway of another level, moved to the footway's "
        "level (check their level tags)"
    )
    # steps 493461476, 493461478, 493461484 and both lifts (0;2) end at nodes of
    # footways of level 1
    assert mall.counts[moved] == 5
    assert mall.examples[moved] == [
        "way/493461476 on level 2: a node of way/493466753 (level 1)",
        "way/493461478 on level 2: a node of way/493466753 (level 1)",
        "way/493461484 on level 2: a node of way/493466753 (level 1)",
    ]
    alone = (
        "connector end more than 5 m from where people walk on its level, stands alone: "
        "draw the corridor, area or footway it lands on, or correct its level"
    )
    # the ramp and two escalators of the Galerie Échirolles (1;2, outside the mall's
    # extent) on both levels, and the top of steps 494491595 (1;2), both of whose ends
    # are nodes of level 1's footways
    assert mall.counts[alone] == 7
    assert mall.examples[alone] == [
        "way/241045176 on level 1: the nearest walkable space is 20 m away",
        "way/241045176 on level 2: the nearest walkable space is 207 m away",
        "way/244423987 on level 1: the nearest walkable space is 20 m away",
    ]
    joined_none = "connector with fewer than two ends where people walk, joins no level"
    assert mall.counts[joined_none] == 4
    assert mall.examples["room drawn on its own joined to an open space within 5 m"] == [
        "way/512922631 on level 1 to grand-place-footways-level-1-2, 2.9 m"
    ]
    assert mall.examples[DOORLESS] == [
        "way/512908923 on level 1: the nearest walkable space is 13 m away",
        "way/566639557 on level 0: the nearest walkable space is 20 m away",
        "Midas (way/566639559 on level 0): the nearest walkable space is 15 m away",
    ]
    assert place_dataset(CASERNE).report.counts[DOORLESS] == 29
    station = place_dataset(STATION).report
    assert station.examples[UNJOINED] == ["levels -1, 0"]
    assert DOORLESS not in station.counts


def _unjoined(dataset: ImdfDataset) -> dict[str, tuple[str, ...]]:
    """The levels the report names as joined to no other (`level-not-joined`), with the
    modes (foot, wheelchair) in which they are not."""
    assert dataset.reachability is not None
    shorts = {f["id"]: f["short_label"] for f in dataset.data["floors"]}
    return {shorts[level.level]: level.modes for level in dataset.reachability.levels}
