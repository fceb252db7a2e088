"""GraphQL over HTTP: same keys, scope and codes as REST; nested fields batched."""

from __future__ import annotations

import httpx
import pytest
import pytest_asyncio
from pymongo import monitoring

from rest.app import create_app
from storage.database import connect
from tests.fixtures import T0, T1


async def gql(client, query: str, key: str | None, variables: dict | None = None) -> dict:
    headers = {"API-Key": key} if key else {}
    response = await client.post(
        "/graphql", json={"query": query, "variables": variables or {}}, headers=headers
    )
    assert response.status_code == 200
    return response.json()


async def test_nested_query(client, keys):
    body = await gql(
        client,
        '{ asset(id: "asset-1") { id floors { id units { id } } '
        "unitMaps { id backgrounds { id } levelTags { key values { value } } units { id } } } }",
        keys.full,
    )
    assert "errors" not in body
    asset = body["data"]["asset"]
    assert [floor["id"] for floor in asset["floors"]] == ["f-1", "f-2"]
    assert [unit["id"] for unit in asset["floors"][0]["units"]] == [
        "u-001",
        "u-002",
        "u-003",
        "u-004",
        "u-005",
    ]
    first_map = asset["unitMaps"][0]
    assert first_map["backgrounds"] == [{"id": "bg-1"}, {"id": "bg-2"}]
    assert first_map["levelTags"] == [
        {"key": "building", "values": [{"value": "b-1"}]},
        {"key": "floor", "values": [{"value": "f-1"}]},
    ]
    assert [unit["id"] for unit in first_map["units"]] == [
        "u-001",
        "u-002",
        "u-003",
        "u-004",
        "u-005",
    ]


async def test_camel_case_fields_and_timestamps(client, keys):
    body = await gql(
        client, '{ unit(id: "u-001") { assetId floorId createdAt updatedAt } }', keys.full
    )
    assert body == {
        "data": {"unit": {"assetId": "asset-1", "floorId": "f-1", "createdAt": T0, "updatedAt": T1}}
    }


async def test_paged_query(client, keys):
    body = await gql(
        client,
        "{ units(perPage: 2, page: 2) { paging { perPage currentPage "
        "prevPage nextPage } data { id } } }",
        keys.full,
    )
    assert body["data"]["units"] == {
        "paging": {"perPage": 2, "currentPage": 2, "prevPage": 1, "nextPage": 3},
        "data": [{"id": "ab"}, {"id": "u-001"}],
    }


async def test_error_codes_match_rest(client, keys):
    no_key = await gql(client, "{ assets { data { id } } }", None)
    assert no_key["data"] is None
    assert no_key["errors"][0]["message"] == "No API key found in request"
    assert no_key["errors"][0]["extensions"] == {"code": "UNAUTHENTICATED"}
    bad_key = await gql(client, "{ assets { data { id } } }", "fg_bad")
    assert bad_key["errors"][0]["extensions"] == {"code": "INVALID_KEY"}
    missing = await gql(client, '{ asset(id: "zzz") { id } }', keys.full)
    assert missing["data"] == {"asset": None}
    assert missing["errors"][0]["message"] == "Not found"
    assert missing["errors"][0]["extensions"] == {"code": "NOT_FOUND"}
    invalid = await gql(client, "{ units(perPage: 0) { data { id } } }", keys.full)
    assert invalid["errors"][0]["message"] == "Resource validation failed"
    assert invalid["errors"][0]["extensions"] == {
        "code": "BAD_USER_INPUT",
        "fields": {"perPage": ["must be an integer of at least 1"]},
    }


async def test_scope_applies_to_graphql(client, keys):
    body = await gql(client, '{ assets { data { id } } asset(id: "asset-1") { id } }', keys.scoped)
    assert body["data"] == {"assets": {"data": [{"id": "asset-2"}]}, "asset": None}
    assert body["errors"][0]["extensions"] == {"code": "NOT_FOUND"}


async def test_alias_limit(client, keys):
    aliases = " ".join(f'a{i}: asset(id: "asset-1") {{ id }}' for i in range(40))
    body = await gql(client, "{ " + aliases + " }", keys.full)
    assert body["data"] is None
    assert body["errors"][0]["message"] == "40 aliases found. Allowed: 30"


async def test_token_limit(client, keys):
    fields = " ".join(["id"] * 6000)
    body = await gql(client, "{ assets { data { " + fields + " } } }", keys.full)
    assert body["data"] is None
    assert body["errors"][0]["message"] == (
        "Syntax Error: Document contains more than 5000 tokens. Parsing aborted."
    )


async def test_depth_limit(store, keys):
    from resolvers.context import RequestContext, Services
    from schema.build import build_schema
    from schema.execution.running.document import run_operation
    from storage.settings import Settings

    settings = Settings(graphql_max_depth=3)
    schema = build_schema(settings)
    query = "{ assets { data { floors { units { id } } } } }"
    context = RequestContext(Services(store, settings), keys.full, frozenset())
    document = await schema.caches.document(query)
    result = await run_operation(schema, document, document.definitions[0], None, context)
    assert result.data is None
    assert [error.message for error in result.errors] == [
        "'anonymous' exceeds maximum operation depth of 3"
    ]


async def test_strawberry_pipeline_runs_nothing():
    """Every operation goes through the runner: strawberry's own `execute` on the
    service's schema answers an error, its `subscribe` raises; neither runs anything."""
    from schema.build import build_schema
    from storage.settings import Settings

    schema = build_schema(Settings())
    refused = "an operation ran outside floorgate's runner"
    result = await schema.execute("{ __typename }")
    assert (result.data, [error.message for error in result.errors]) == (None, [refused])
    result = schema.execute_sync("{ __typename }")
    assert (result.data, [error.message for error in result.errors]) == (None, [refused])
    stream = await schema.subscribe("subscription { __typename }")
    with pytest.raises(RuntimeError, match=refused):
        await anext(stream)


async def test_syntax_error_is_bad_input(client, keys):
    response = await client.post(
        "/graphql", json={"query": "{ assets {"}, headers={"API-Key": keys.full}
    )
    body = response.json()
    assert body["errors"][0]["extensions"]["code"] == "BAD_USER_INPUT"


async def test_graphiql_page_on_browser_get(client):
    response = await client.get("/graphql", headers={"Accept": "text/html"})
    assert response.status_code == 200
    assert "floorgate GraphiQL" in response.text
    assert "unpkg.com" not in response.text


class CommandCounter(monitoring.CommandListener):
    def __init__(self) -> None:
        self.commands: list[str] = []

    def started(self, event: monitoring.CommandStartedEvent) -> None:
        # Not the process's poll of staged imports' switches (storage/cache/switch_gate.py),
        # nor its record of its request budget before it.
        target = event.command.get(event.command_name)
        if event.database_name == "floorgate_loaders" and target not in ("switches", "readers"):
            self.commands.append(event.command_name)

    def succeeded(self, event: monitoring.CommandSucceededEvent) -> None:
        pass

    def failed(self, event: monitoring.CommandFailedEvent) -> None:
        pass


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def counted(db_server, settings, keys, store):
    """An app on its own database of 100 maps, with a client that counts commands."""
    from dataclasses import replace

    from resolvers.auth.keys import API_KEYS

    counter = CommandCounter()
    # The read cache off: these count the commands the loaders send.
    local = replace(settings, database_name="floorgate_loaders", read_cache_mb=0)
    counted_store = connect(db_server.uri, local, event_listeners=[counter])
    await counted_store.client.drop_database("floorgate_loaders")
    await counted_store.ensure_indexes()
    stamps = {"created_at": T0, "updated_at": T1}
    await counted_store["assets"].insert_one({"_id": "big", "market": "m", "name": "Big", **stamps})
    await counted_store["units"].insert_many(
        [
            {"_id": f"u{n:04d}", "asset_id": "big", "floor_id": "f", "name": str(n), **stamps}
            for n in range(1000)
        ]
    )
    await counted_store["unit_maps"].insert_many(
        [
            {
                "_id": f"m{n:03d}",
                "asset_id": "big",
                "background_id": None,
                "name": f"M{n}",
                "style": "a",
                "style_type": "floor_plate",
                "tags": [],
                "routing_tier": "no_routing",
                "geojson_url": None,
                "unit_ids": [f"u{(n * 10 + k) % 1000:04d}" for k in range(10)],
                **stamps,
            }
            for n in range(100)
        ]
    )
    async for key in store[API_KEYS].find({}):
        await counted_store[API_KEYS].insert_one(key)
    app = create_app(local, counted_store)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="https://testserver") as client:
        yield client, counter
    await counted_store.close()


async def test_maps_with_units_cost_bounded_commands(counted, keys):
    client, counter = counted
    await gql(client, "{ __typename }", keys.full)  # the key lookup, cached from here
    counter.commands.clear()
    body = await gql(
        client,
        "{ unitMaps(perPage: 100) { data { id units { id name } backgrounds { id } "
        "levelTags { key } } } }",
        keys.full,
    )
    assert "errors" not in body
    maps = body["data"]["unitMaps"]["data"]
    assert len(maps) == 100
    assert [unit["id"] for unit in maps[7]["units"]] == [f"u{70 + k:04d}" for k in range(10)]
    # the maps page: 1 find; units of all maps, backgrounds, level tags: one command
    # each, an aggregate for lists of over 25 values (resolvers/loaders.py find_in).
    assert sorted(counter.commands) == ["aggregate"] * 3 + ["find"]


async def test_nested_units_of_assets_batched(counted, keys):
    client, counter = counted
    await gql(client, "{ __typename }", keys.full)  # the key lookup, cached from here
    counter.commands.clear()
    body = await gql(
        client, "{ assets { data { units { id } floors { id } unitMaps { id } } } }", keys.full
    )
    assert len(body["data"]["assets"]["data"][0]["units"]) == 1000
    # assets page, units, floors, maps (the key lookup was cached by the first request).
    assert counter.commands.count("find") == 4


async def test_malformed_graphql_requests_get_json_errors(client, keys):
    headers = {"API-Key": keys.full}
    not_json = await client.post(
        "/graphql", content=b"{oops", headers={**headers, "Content-Type": "application/json"}
    )
    assert not_json.status_code == 422
    assert not_json.json() == {
        "message": "Resource validation failed",
        "fields": {"body": ["Unable to parse request body as JSON"]},
    }
    wrong_type = await client.post(
        "/graphql",
        content=b"{ assets { data { id } } }",
        headers={**headers, "Content-Type": "text/plain"},
    )
    assert wrong_type.status_code == 415
    assert wrong_type.json() == {"message": "Content type must be application/json"}
    no_query = await client.post("/graphql", json={"variables": {}}, headers=headers)
    assert no_query.status_code == 422
    assert no_query.json()["fields"] == {"body": ["No GraphQL query found in the request"]}


async def test_graphql_over_get(client, keys):
    response = await client.get(
        "/graphql",
        params={"query": '{ unit(id: "u-001") { name } }'},
        headers={"API-Key": keys.full, "Accept": "application/json"},
    )
    assert response.status_code == 200
    assert response.json() == {"data": {"unit": {"name": "101"}}}
