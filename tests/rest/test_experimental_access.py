"""Every experimental route with and without its flag, with and without its permission,
and out of the key's scope, in the contract's order of checks."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
import pytest_asyncio

from resolvers.auth.keys import create_key
from resolvers.auth.permissions import (
    ALL_PERMISSIONS,
    ASSET_REFERENCES_READ,
    FLAG_LOCATIONS,
    FLAG_REFERENCES,
    FLAG_UNIT_ATTRIBUTES,
    UNIT_ATTRIBUTES_READ,
    UNIT_ATTRIBUTES_WRITE,
    UNIT_REFERENCES_READ,
)
from storage import collections as c

REMOVE_NOTHING = {
    "data": [
        {
            "group_id": "w-features",
            "attribute_id": "w-features-patio",
            "asset_id": "asset-1",
            "unit_id": "u-010",
        }
    ]
}


@dataclass(frozen=True)
class Case:
    method: str
    path: str
    flag: str
    permission: str | None
    ok_status: int = 200
    body: dict | None = None

    def __str__(self) -> str:
        return f"{self.method} {self.path}"


CASES = [
    Case("GET", "/v1/assets/references", FLAG_REFERENCES, ASSET_REFERENCES_READ),
    Case("GET", "/v1/units/references", FLAG_REFERENCES, UNIT_REFERENCES_READ),
    Case("GET", "/v1/unitmaps/map-1/locations", FLAG_LOCATIONS, None),
    Case("GET", "/v1/maps/map-1/locations", FLAG_LOCATIONS, None),
    Case("GET", "/v1/units/attribute-groups", FLAG_UNIT_ATTRIBUTES, UNIT_ATTRIBUTES_READ),
    Case(
        "GET",
        "/v1/units/attribute-groups/features/units",
        FLAG_UNIT_ATTRIBUTES,
        UNIT_ATTRIBUTES_READ,
    ),
    Case(
        "PUT",
        "/v1/units/attribute-groups/w-features/units/remove",
        FLAG_UNIT_ATTRIBUTES,
        UNIT_ATTRIBUTES_WRITE,
        204,
        REMOVE_NOTHING,
    ),
]


def flag_message(flag: str) -> str:
    return (
        f"Not found: this experimental resource requires the Experimental-Flags header "
        f'to include "{flag}"'
    )


async def call(client, case: Case, headers: dict[str, str], path: str | None = None):
    return await client.request(case.method, path or case.path, headers=headers, json=case.body)


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def scoped_all(store) -> str:
    """Every permission, but only asset-2."""
    return (await create_key(store, "scoped-all", list(ALL_PERMISSIONS), ["asset-2"])).secret


@pytest.mark.parametrize("case", CASES, ids=str)
async def test_with_flag_and_permission(client, keys, case):
    headers = {"API-Key": keys.full, "Experimental-Flags": f"distances, {case.flag.upper()} "}
    response = await call(client, case, headers)
    assert response.status_code == case.ok_status


@pytest.mark.parametrize("case", CASES, ids=str)
async def test_without_key(client, case):
    response = await call(client, case, {"Experimental-Flags": case.flag})
    assert response.status_code == 401
    assert response.json() == {"message": "No API key found in request"}


@pytest.mark.parametrize("case", CASES, ids=str)
async def test_without_flag(client, keys, case):
    other_flags = {"Experimental-Flags": "references-x, locations"}
    for headers in ({"API-Key": keys.full}, {"API-Key": keys.full, **other_flags}):
        response = await call(client, case, headers)
        assert response.status_code == 404
        assert response.json() == {"message": flag_message(case.flag)}


@pytest.mark.parametrize("case", [case for case in CASES if case.permission], ids=str)
async def test_without_permission(client, keys, case):
    response = await call(client, case, {"API-Key": keys.plain, "Experimental-Flags": case.flag})
    assert response.status_code == 403
    assert response.json() == {"message": f"Access denied: missing permission {case.permission}"}


@pytest.mark.parametrize("case", [case for case in CASES if case.permission], ids=str)
async def test_flag_is_checked_before_permission(client, keys, case):
    response = await call(client, case, {"API-Key": keys.plain})
    assert response.status_code == 404
    assert response.json() == {"message": flag_message(case.flag)}


@pytest.mark.parametrize("case", CASES, ids=str)
async def test_invalid_key_before_flag(client, case):
    response = await call(client, case, {"API-Key": "fg_unknown"})
    assert response.status_code == 403
    assert response.json() == {"message": "Invalid authentication credentials"}


async def test_out_of_scope(client, scoped_all, store):
    """Lists leave out other assets; a map of another asset is 404; writes refuse its units."""
    headers = {
        "API-Key": scoped_all,
        "Experimental-Flags": "references,locations-resource,unit-attributes-resource",
    }
    assets = await client.get("/v1/assets/references", headers=headers)
    assert [r["id"] for r in assets.json()["data"]] == ["ar-3"]
    units = await client.get("/v1/units/references", headers=headers)
    assert [(r["unit_id"], r["key"]) for r in units.json()["data"]] == [("Ab", "acme-pms")]
    for path in ("/v1/unitmaps/map-1/locations", "/v1/maps/map-1/locations"):
        hidden = await client.get(path, headers=headers)
        assert hidden.status_code == 404
        assert hidden.json() == {"message": "Not found"}
    own = await client.get("/v1/maps/map-3/locations", headers=headers)
    assert [loc["id"] for loc in own.json()["data"]] == ["loc-elm"]
    assignments = await client.get("/v1/units/attribute-groups/features/units", headers=headers)
    assert [(a["unit_id"]) for a in assignments.json()["data"]] == ["Ab"]
    before = await store[c.ASSIGNMENTS].count_documents({})
    write = await client.put(
        "/v1/units/attribute-groups/w-features/units", headers=headers, json=REMOVE_NOTHING
    )
    assert write.status_code == 422
    assert write.json()["fields"] == {"data.0.unit_id": ["no unit 'u-010' in asset 'asset-1'"]}
    assert await store[c.ASSIGNMENTS].count_documents({}) == before


async def test_api_key_query_parameter_with_flag(client, keys):
    response = await client.get(
        f"/v1/units/attribute-groups?api-key={keys.full}",
        headers={"Experimental-Flags": FLAG_UNIT_ATTRIBUTES},
    )
    assert response.status_code == 200


async def test_static_segments_win_over_ids(client, keys):
    """/v1/units/references and /v1/units/attribute-groups are not E7 with that unit id."""
    for path in ("/v1/units/references", "/v1/units/attribute-groups"):
        response = await client.get(path, headers={"API-Key": keys.full})
        assert response.status_code == 404
        assert response.json()["message"].startswith("Not found: this experimental resource")
    wrong_method = await client.post(
        "/v1/units/attribute-groups/features/units", headers={"API-Key": keys.full}
    )
    assert wrong_method.status_code == 405
    assert wrong_method.headers["allow"] == "GET, HEAD, PUT"
