"""Every mutation of the schema checks the key's asset scope (`resolvers.auth.scope`): a key
scoped to asset-2 that holds every write permission cannot change asset-1, and a record
of asset-1 behaves, word for word, like one that does not exist.

Each case runs a mutation twice: once naming a record of asset-1, once naming one that
does not exist; the two answers must be the same (ids aside). Replacing a stored record
of another asset is 404: ids are global, so that answer says only that the id is taken.
The test fails for any mutation of the schema without a case, so a new mutation cannot
skip the rule unnoticed.
"""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from resolvers.auth.keys import create_key
from resolvers.auth.permissions import ADMIN, UNIT_ATTRIBUTES_WRITE
from schema.build import build_schema
from storage import collections as c
from storage.settings import Settings

SVG = (
    '<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100">'
    '<g id="units"><rect id="unit-u-001" x="0" y="0" width="10" height="10"/></g></svg>'
)
NOT_FOUND = [{"message": "Not found", "extensions": {"code": "NOT_FOUND"}}]
LOCATION = {"name": "Gym", "x": 1.0, "y": 2.0, "floors": [{"id": "f-1"}]}
ASSIGNMENT = {"groupId": "w-view", "attributeId": "w-view-city"}

PUT_MAP = "mutation($i: UnitMapInput!, $s: String!) { putUnitMap(input: $i, svg: $s) { id } }"
PUT_ASSET_REF = "mutation($i: AssetReferenceInput!) { putAssetReference(input: $i) { id } }"
DELETE_ASSET_REF = "mutation($id: ID!) { deleteAssetReference(id: $id) }"
PUT_UNIT_REF = "mutation($i: UnitReferenceInput!) { putUnitReference(input: $i) { key } }"
DELETE_UNIT_REF = "mutation($u: ID!, $k: String!) { deleteUnitReference(unitId: $u, key: $k) }"
PUT_LOCATION = "mutation($i: LocationInput!) { putLocation(input: $i) { id } }"
DELETE_LOCATION = "mutation($id: ID!) { deleteLocation(id: $id) }"
ASSIGN = (
    "mutation($g: ID!, $d: [UnitAttributeAssignmentInput!]!) "
    "{ assignUnitAttributes(groupId: $g, data: $d) { unitId } }"
)
# Closures (issue 50): a map of another asset is as missing as no map (404).
CLOSE_CONNECTOR = (
    "mutation($m: ID!, $c: ID!) { closeConnector(unitMapId: $m, connectorId: $c) { kind } }"
)
CLOSE_UNIT = "mutation($m: ID!, $u: ID!) { closeUnit(unitMapId: $m, unitId: $u) { kind } }"
CLOSE = "mutation($m: ID!, $u: ID) { close(unitMapId: $m, unitId: $u) { kind } }"
REOPEN = "mutation($m: ID!, $u: ID) { reopen(unitMapId: $m, unitId: $u) }"
CLOSURE_FIELDS = ("closeConnector", "closeUnit", "close", "reopen")
UNASSIGN = (
    "mutation($g: ID!, $d: [UnitAttributeAssignmentInput!]!) "
    "{ unassignUnitAttributes(groupId: $g, data: $d) { unitId } }"
)

# (mutation field, document, variables naming asset-1's record, the same naming a missing
# one, the id to put in place of the missing one's when comparing)
SAME_AS_MISSING: list[tuple[str, str, dict[str, Any], dict[str, Any], tuple[str, str]]] = [
    (
        "putUnitMap",
        PUT_MAP,
        {"i": {"id": "m-new", "assetId": "asset-1", "name": "New"}, "s": SVG},
        {"i": {"id": "m-new", "assetId": "asset-zz", "name": "New"}, "s": SVG},
        ("asset-zz", "asset-1"),
    ),
    (
        "putAssetReference",
        PUT_ASSET_REF,
        {"i": {"id": "ar-new", "assetId": "asset-1", "key": "acme-pms", "value": "1"}},
        {"i": {"id": "ar-new", "assetId": "asset-zz", "key": "acme-pms", "value": "1"}},
        ("asset-zz", "asset-1"),
    ),
    ("deleteAssetReference", DELETE_ASSET_REF, {"id": "ar-1"}, {"id": "ar-zz"}, ("ar-zz", "ar-1")),
    (
        "putUnitReference",
        PUT_UNIT_REF,
        {"i": {"assetId": "asset-2", "unitId": "u-001", "key": "new-key", "value": "1"}},
        {"i": {"assetId": "asset-2", "unitId": "u-zzz", "key": "new-key", "value": "1"}},
        ("u-zzz", "u-001"),
    ),
    (
        "deleteUnitReference",
        DELETE_UNIT_REF,
        {"u": "u-001", "k": "realpage"},
        {"u": "u-zzz", "k": "realpage"},
        ("u-zzz", "u-001"),
    ),
    (
        "putLocation",
        PUT_LOCATION,
        {"i": {"id": "loc-new", "assetId": "asset-2", "unitMapId": "map-1", **LOCATION}},
        {"i": {"id": "loc-new", "assetId": "asset-2", "unitMapId": "map-zz", **LOCATION}},
        ("map-zz", "map-1"),
    ),
    (
        "deleteLocation",
        DELETE_LOCATION,
        {"id": "loc-gym"},
        {"id": "loc-zzz"},
        ("loc-zzz", "loc-gym"),
    ),
    (
        "assignUnitAttributes",
        ASSIGN,
        {"g": "w-view", "d": [{**ASSIGNMENT, "assetId": "asset-1", "unitId": "u-001"}]},
        {"g": "w-view", "d": [{**ASSIGNMENT, "assetId": "asset-1", "unitId": "u-zzz"}]},
        ("u-zzz", "u-001"),
    ),
    (
        "unassignUnitAttributes",
        UNASSIGN,
        {
            "g": "features",
            "d": [
                {
                    "groupId": "features",
                    "attributeId": "features-balcony",
                    "assetId": "asset-1",
                    "unitId": "u-002",
                }
            ],
        },
        {
            "g": "features",
            "d": [
                {
                    "groupId": "features",
                    "attributeId": "features-balcony",
                    "assetId": "asset-1",
                    "unitId": "u-zzz",
                }
            ],
        },
        ("u-zzz", "u-002"),
    ),
    (
        "closeConnector",
        CLOSE_CONNECTOR,
        {"m": "map-1", "c": "s"},
        {"m": "map-zz", "c": "s"},
        ("", ""),
    ),
    (
        "closeUnit",
        CLOSE_UNIT,
        {"m": "map-1", "u": "u-001"},
        {"m": "map-zz", "u": "u-001"},
        ("", ""),
    ),
    ("close", CLOSE, {"m": "map-1", "u": "u-001"}, {"m": "map-zz", "u": "u-001"}, ("", "")),
    ("reopen", REOPEN, {"m": "map-1", "u": "u-001"}, {"m": "map-zz", "u": "u-001"}, ("", "")),
]

# Puts over a stored record of asset-1, moving it into the key's asset-2: 404.
MOVES: list[tuple[str, str, dict[str, Any]]] = [
    ("putUnitMap", PUT_MAP, {"i": {"id": "map-1", "assetId": "asset-2", "name": "Mine"}, "s": SVG}),
    (
        "putAssetReference",
        PUT_ASSET_REF,
        {"i": {"id": "ar-1", "assetId": "asset-2", "key": "acme-pms", "value": "1"}},
    ),
    (
        "putUnitReference",
        PUT_UNIT_REF,
        {"i": {"assetId": "asset-2", "unitId": "u-001", "key": "realpage", "value": "1"}},
    ),
    (
        "putLocation",
        PUT_LOCATION,
        {"i": {"id": "loc-gym", "assetId": "asset-2", "unitMapId": "map-3", **LOCATION}},
    ),
]


@pytest.fixture(scope="module")
async def scoped_admin(store) -> str:
    created = await create_key(store, "scoped admin", [ADMIN, UNIT_ATTRIBUTES_WRITE], ["asset-2"])
    return created.secret


async def run(client, key: str, document: str, variables: dict[str, Any]) -> dict[str, Any]:
    response = await client.post(
        "/graphql",
        json={"query": document, "variables": variables},
        headers={"API-Key": key, "Experimental-Flags": "unit-attributes-resource, directions"},
    )
    assert response.status_code == 200
    return response.json()


async def everything(store) -> dict[str, list[Any]]:
    """Every stored document and file name, to show that nothing changed."""
    # (`readers`: a reading process's budget, which the first read through the cache
    # records, not data)
    names = sorted(
        n for n in await store.db.list_collection_names() if n not in (c.API_KEYS, c.READERS)
    )
    return {
        name: await store[name]
        .find({}, {"_id": 0} if name == c.ASSIGNMENTS else None)
        .sort([("$natural", 1)])
        .to_list()
        for name in names
    }


def test_every_mutation_has_a_case():
    mutations = set(build_schema(Settings())._schema.mutation_type.fields)
    assert mutations == {case[0] for case in SAME_AS_MISSING}
    assert {case[0] for case in MOVES} <= mutations


async def test_out_of_scope_is_the_same_as_missing(client, store, scoped_admin):
    before = await everything(store)
    for field, document, out_of_scope, missing, (missing_id, real_id) in SAME_AS_MISSING:
        seen = await run(client, scoped_admin, document, out_of_scope)
        expected = await run(client, scoped_admin, document, missing)
        if missing_id:
            expected = orjson.loads(
                orjson.dumps(expected).replace(missing_id.encode(), real_id.encode())
            )
        assert seen == expected, field
        if field in CLOSURE_FIELDS:
            assert seen["data"] is None and seen["errors"][0]["extensions"]["code"] == (
                "NOT_FOUND"
            ), field
        elif field.startswith("delete"):
            assert seen == {"data": {field: False}}, field
        elif field.endswith("Attributes"):
            assert seen["errors"][0]["extensions"]["code"] == "BAD_USER_INPUT", field
        else:
            assert seen["data"] is None and seen["errors"][0]["extensions"]["code"] == (
                "BAD_USER_INPUT"
            ), field
    assert await everything(store) == before


async def test_moving_a_record_out_of_another_asset_is_404(client, store, scoped_admin):
    before = await everything(store)
    for field, document, variables in MOVES:
        result = await run(client, scoped_admin, document, variables)
        assert result["data"] is None, field
        assert [{k: e[k] for k in ("message", "extensions")} for e in result["errors"]] == (
            NOT_FOUND
        ), field
    assert await everything(store) == before


async def test_the_scoped_key_still_writes_its_own_asset(client, store, scoped_admin):
    put = await run(
        client,
        scoped_admin,
        PUT_ASSET_REF,
        {"i": {"id": "ar-scope", "assetId": "asset-2", "key": "realpage", "value": "77"}},
    )
    assert put == {"data": {"putAssetReference": {"id": "ar-scope"}}}
    deleted = await run(client, scoped_admin, DELETE_ASSET_REF, {"id": "ar-scope"})
    assert deleted == {"data": {"deleteAssetReference": True}}
    assert await store[c.ASSET_REFERENCES].count_documents({"_id": "ar-scope"}) == 0
