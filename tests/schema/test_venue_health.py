"""`venueHealth(id)` (issue 65, point 6), the operators' venue health report, through the
real ASGI app: Harbour Station with its Sun Terrace cut off, imported as `import-imdf`
imports it (its report stored), answers what `floorgate check --venue --json` gives;
a key without service.admin is refused before anything runs; an unknown asset and one
out of the key's scope are Not found; an asset imported without a stored report (a
plain dataset) answers its live part and says the rest needs a re-import; the field is
priced high (`VENUE_HEALTH_COST`): two fit an operation, a third is refused."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
import pytest_asyncio

from parsing.imdf.read import read_archive
from parsing.imdf.venue import ImdfOptions
from resolvers.auth.keys import create_key
from resolvers.auth.permissions import ADMIN, ALL_PERMISSIONS
from rest.app import create_app
from routing.imdf.health import NOT_MEASURED
from storage.database import Store
from storage.imdf.dataset import import_venue, venue_dataset
from tests._dbserver import fresh_store
from tests.venues.imdf_shared_ordinals import harbour_station

QUERY = """query ($id: ID!) { venueHealth(id: $id) {
  assetId format levels parts worst lines tilesChecked notes
  findings { severity kind subject detail level modes reason line }
  counts { kind count }
  levelPairs { lower lowerName upper upperName foot wheelchair connectors { kind count } via }
  accuracy { pairs median p90 max seed worst { source target mapId routeM exactM ratio } }
} }"""


@dataclass
class Station:
    http: httpx.AsyncClient
    asset_id: str
    keys: dict[str, str]  # by role: admin, plain (every permission but admin), other
    levels: dict[str, str]  # IMDF level ids by key (tests/venues/imdf_shared_ordinals.py)
    store: Store
    stack: str  # the stack map's id


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def station(db_server, settings) -> AsyncIterator[Station]:
    built = harbour_station(terrace_joined=False)
    cut = built.venue
    dataset = venue_dataset(read_archive(cut.files()), ImdfOptions())
    asset_id = dataset.data["assets"][0]["id"]
    async with fresh_store(db_server) as store:
        await import_venue(store, dataset, limits=settings.svg_limits)
        # the same venue as a plain dataset (`floorgate import`): no stored report
        plain = venue_dataset(read_archive(cut.files()), ImdfOptions(id_prefix="plain"))
        plain.health = None
        await import_venue(store, plain, limits=settings.svg_limits)
        others = [p for p in ALL_PERMISSIONS if p != ADMIN]
        keys = {
            "admin": (await create_key(store, "ops", [ADMIN], None)).secret,
            "plain": (await create_key(store, "app", others, None)).secret,
            "other": (await create_key(store, "other", [ADMIN], ["plain"])).secret,
        }
        transport = httpx.ASGITransport(app=create_app(settings, store))
        async with httpx.AsyncClient(transport=transport, base_url="https://testserver") as http:
            yield Station(http, asset_id, keys, built.levels, store, dataset.stack_map)


async def ask(station: Station, key: str, asset_id: str, query: str = QUERY) -> dict[str, Any]:
    response = await station.http.post(
        "/graphql",
        json={"query": query, "variables": {"id": asset_id}},
        headers={"API-Key": station.keys[key]},
    )
    assert response.status_code == 200
    return dict(response.json())


@pytest.mark.asyncio(loop_scope="session")
async def test_the_operator_reads_the_report_worst_first(station: Station) -> None:
    body = await ask(station, "admin", station.asset_id)
    assert "errors" not in body, body
    report = body["data"]["venueHealth"]
    assert {k: report[k] for k in ("assetId", "format", "levels", "parts", "worst")} == {
        "assetId": station.asset_id,
        "format": 1,
        "levels": 5,
        "parts": ["import", "live"],
        "worst": "error",
    }
    assert report["counts"] == [
        {"kind": "levels-not-joined", "count": 4},
        {"kind": "level-not-joined", "count": 1},
        {"kind": "unreachable", "count": 2},  # the terrace's kiosk and lawn: no route
    ]
    assert report["notes"] == [NOT_MEASURED]
    assert report["accuracy"] is None and report["tilesChecked"] > 0
    assert report["levelPairs"][0] == {
        "lower": station.levels["lower"],
        "lowerName": "Lower Level",
        "upper": station.levels["concourse"],
        "upperName": "Concourse",
        "foot": True,
        "wheelchair": True,
        "connectors": [
            {"kind": "stairs", "count": 1},
            {"kind": "elevator", "count": 1},
            {"kind": "escalator", "count": 1},
        ],
        "via": [],
    }
    line = (
        "error levels-not-joined: 'Lower Level' and 'Sun Terrace' (foot, wheelchair): no "
        "stairs, elevator, escalator, ramp or door joins them, directly or through other levels"
    )
    assert report["findings"][0] == {
        "severity": "error",
        "kind": "levels-not-joined",
        "subject": "'Lower Level' and 'Sun Terrace'",
        "detail": "no stairs, elevator, escalator, ramp or door joins them, directly or "
        "through other levels",
        "level": "",
        "modes": ["foot", "wheelchair"],
        "reason": "",
        "line": line,
    }
    assert report["lines"] == [f["line"] for f in report["findings"]]
    assert report["lines"][0] == line and len(report["lines"]) == 7  # 2 units: no route


@pytest.mark.asyncio(loop_scope="session")
async def test_a_key_without_the_operators_permission_is_refused(station: Station) -> None:
    body = await ask(station, "plain", station.asset_id)
    assert body["data"] is None
    assert [(e["message"], e["extensions"]) for e in body["errors"]] == [
        (f"Access denied: missing permission {ADMIN}", {"code": "FORBIDDEN"})
    ]


@pytest.mark.asyncio(loop_scope="session")
async def test_an_unknown_asset_or_one_out_of_scope_is_not_found(station: Station) -> None:
    for key, asset_id in (("admin", "no-such-venue"), ("other", station.asset_id)):
        body = await ask(station, key, asset_id)
        assert body["data"] == {"venueHealth": None}
        assert [(e["message"], e["extensions"]) for e in body["errors"]] == [
            ("Not found", {"code": "NOT_FOUND"})
        ]


@pytest.mark.asyncio(loop_scope="session")
async def test_an_asset_without_a_stored_report_answers_its_live_part(station: Station) -> None:
    body = await ask(station, "other", "plain")
    report = body["data"]["venueHealth"]
    assert (report["parts"], report["levels"], report["levelPairs"]) == (["live"], 0, [])
    assert report["lines"] == [] and report["accuracy"] is None
    assert report["notes"] == [
        "no stored report: level pairs, unreachable places, repaired geometry and route "
        "accuracy are found by import-imdf or import-osm; import the venue again"
    ]
    assert report["worst"] is None and report["tilesChecked"] > 0


@pytest.mark.asyncio(loop_scope="session")
async def test_it_is_priced_high(station: Station) -> None:
    two = "query ($id: ID!) { a: venueHealth(id: $id) { worst } b: venueHealth(id: $id) { worst } }"
    assert "errors" not in await ask(station, "admin", station.asset_id, two)
    three = two.replace("} }", "} c: venueHealth(id: $id) { worst } }")
    body = await ask(station, "admin", station.asset_id, three)
    assert body["data"] is None
    assert body["errors"][0]["extensions"]["code"] == "COST_LIMIT"


PUT = """mutation ($input: LocationInput!) { putLocation(input: $input) { id } }"""
DELETE = """mutation ($id: ID!) { deleteLocation(id: $id) }"""


@pytest.mark.asyncio(loop_scope="session")
async def test_a_place_listed_twice_after_the_import_is_found_when_asked(
    station: Station,
) -> None:
    """An operator's location of the Café's name put on the Café (issue 65, point 3's
    case): the next report names both, inside the Café's unit; the kept answer of the
    first ask is not served again (the write moved what it read)."""
    before = (await ask(station, "admin", station.asset_id))["data"]["venueHealth"]
    assert all(f["kind"] != "listed-twice" for f in before["findings"])
    cafe = await station.store["locations"].find_one({"unit_map_id": station.stack, "name": "Café"})
    assert cafe is not None
    twin = {
        "id": "cafe-counter",
        "assetId": station.asset_id,
        "unitMapId": station.stack,
        "name": "café",
        "x": cafe["x"] + 0.5,
        "y": cafe["y"],
        "floors": [{"id": floor["id"]} for floor in cafe["floors"]],
    }
    headers = {"API-Key": station.keys["admin"]}
    put = await station.http.post(
        "/graphql", json={"query": PUT, "variables": {"input": twin}}, headers=headers
    )
    assert put.json() == {"data": {"putLocation": {"id": "cafe-counter"}}}
    try:
        after = (await ask(station, "admin", station.asset_id))["data"]["venueHealth"]
    finally:
        await station.http.post(
            "/graphql", json={"query": DELETE, "variables": {"id": "cafe-counter"}}, headers=headers
        )
    twins = [f for f in after["findings"] if f["kind"] == "listed-twice"]
    unit = cafe["_id"].split(":", 1)[1]  # `<map id>:<unit id>`
    assert twins == [
        {
            "severity": "warning",
            "kind": "listed-twice",
            "subject": "'café' x2",  # the first by id names them
            "detail": f"2 locations of one name inside unit 'Café' ({unit}) (level 1): "
            f"cafe-counter, {cafe['_id']}; one place should be listed once",
            "level": "",
            "modes": [],
            "reason": "",
            "line": f"warning listed-twice: 'café' x2: 2 locations of one name inside unit "
            f"'Café' ({unit}) (level 1): cafe-counter, {cafe['_id']}; one place should be "
            "listed once",
        }
    ]
