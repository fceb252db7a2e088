"""A route's access rule comes from its plan or, for a route not planned, from its
document over the schema (`RouteOperation.requirement`); either way it is checked before
a body is read, and a key scoped to another asset learns nothing of this one."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from resolvers.auth.keys import create_key
from resolvers.auth.permissions import ALL_PERMISSIONS
from rest.v1.router import Router
from rest.v1.routes import ROUTES
from schema.build import build_schema
from schema.execution.running.planned.routes import PLANS
from schema.execution.running.route import RouteOperation
from schema.execution.running.route_documents import RouteDocuments, requirement_of
from storage.settings import Settings

PLANNED = "/v1/assets/asset-1"  # getAsset: planned
UNPLANNED = "/v1/maps/map-1/locations"  # listUnitMapLocations: through the schema
FLAGGED_PLANNED = "/v1/assets/references"  # listAssetReferences: planned, flag `references`
MATRIX = "/v1/maps/map-1/distance-matrix"  # a body, not planned
FLAGS = {"Experimental-Flags": "distances,locations-resource,references"}


def test_the_paths_are_of_the_kinds_named():
    router = Router(ROUTES)
    paths = (PLANNED, FLAGGED_PLANNED, UNPLANNED)
    ids = [router.match(path, "GET")[0].route.operation_id for path in paths]
    assert ids == ["getAsset", "listAssetReferences", "listUnitMapLocations"]
    assert [operation_id in PLANS for operation_id in ids] == [True, True, False]


async def test_every_route_demands_what_its_root_field_demands():
    """The plan's rule and the schema's agree for planned routes; every other route's
    comes from its document."""
    schema = build_schema(Settings())._schema
    documents = RouteDocuments(schema, 1)

    async def built() -> RouteDocuments:
        return documents

    for route in ROUTES:
        operation = RouteOperation(route, built, None)  # type: ignore[arg-type]
        assert await operation.requirement() == requirement_of(schema, route), route
        assert (operation.plan is not None) == (route.operation_id in PLANS)


@pytest.fixture(scope="module")
async def other_asset_key(store) -> str:
    return (await create_key(store, "other asset", list(ALL_PERMISSIONS), ["asset-2"])).secret


@pytest.mark.parametrize("path", [PLANNED, UNPLANNED])
async def test_a_key_of_another_asset_gets_404(client, other_asset_key, path):
    answer = await client.get(path, headers={"API-Key": other_asset_key, **FLAGS})
    assert (answer.status_code, answer.json()) == (404, {"message": "Not found"})


@pytest.mark.parametrize(
    ("path", "flag"), [(FLAGGED_PLANNED, "references"), (UNPLANNED, "locations-resource")]
)
async def test_a_flag_the_rule_names_is_required_on_either_kind(client, keys, path, flag):
    """The flag comes from the plan (references) or from the schema (locations)."""
    without = await client.get(path, headers={"API-Key": keys.full})
    with_flags = await client.get(path, headers={"API-Key": keys.full, **FLAGS})
    assert (without.status_code, without.json(), with_flags.status_code) == (
        404,
        {
            "message": "Not found: this experimental resource requires the "
            f'Experimental-Flags header to include "{flag}"'
        },
        200,
    )


async def test_a_body_is_not_read_before_the_rule_of_a_route_not_planned(client, keys):
    read: list[bytes] = []

    async def body() -> AsyncIterator[bytes]:
        read.append(b"x")
        yield b'{"data": {"sources": [], "targets": []}}'

    for key in (keys.plain, keys.scoped):
        answer = await client.post(
            MATRIX,
            content=body(),
            headers={"API-Key": key, "Content-Type": "application/json", **FLAGS},
        )
        assert (answer.status_code, answer.json()) == (
            403,
            {"message": "Access denied: missing permission service.distances.calculate"},
        )
    assert read == []
