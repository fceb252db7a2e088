"""The guard of /graphql through the real app: root-field access before validation,
linear figures (depth, aliases, fragment spreads), the cost limit and its charge."""

from __future__ import annotations

import time
from dataclasses import replace

import httpx
import pytest
from graphql import get_introspection_query

from resolvers.auth.permissions import FLAG_LOCATIONS, UNIT_MAPS_PARSE
from rest.app import create_app
from schema.execution.operation_limits import OVERLAP_ABORTED
from tests.latency import latency_meanwhile

LEAF_INTROSPECTION = "__typename"
LEAF_DATA = "assets { data { id } }"  # costs 1 + 100 x (1 + 1) = 201


def doubling(fragments: int, leaf: str) -> str:
    """`fragments` fragments, each spreading the next one twice; the last holds `leaf`."""
    last = fragments - 1
    chain = " ".join(f"fragment F{i} on Query {{ ...F{i + 1} ...F{i + 1} }}" for i in range(last))
    return f"query {{ ...F0 }} {chain} fragment F{last} on Query {{ {leaf} }}"


def headers(key: str | None, *flags: str) -> dict[str, str]:
    result = {"Accept": "application/json"}
    if key:
        result["API-Key"] = key
    if flags:
        result["Experimental-Flags"] = ", ".join(flags)
    return result


async def post(
    client, query: str, key: str | None, variables: dict | None = None, *flags: str
) -> dict:
    response = await client.post(
        "/graphql",
        json={"query": query, "variables": variables or {}},
        headers=headers(key, *flags),
    )
    assert response.status_code == 200
    return response.json()


def invalid(message: str) -> dict:
    return {"code": "BAD_USER_INPUT", "fields": {"query": [message]}}


def only_error(body: dict) -> tuple[str, dict]:
    assert body["data"] is None
    (error,) = body["errors"]
    return error["message"], error["extensions"]


def cost_error(cost: int, limit: int = 250_000) -> tuple[str, dict]:
    return (
        f"Query cost {cost} exceeds the limit of {limit}: ask for smaller pages or fewer fields",
        {"code": "COST_LIMIT", "cost": cost, "limit": limit},
    )


KEYLESS_LIMIT = 25_000  # FLOORGATE_GRAPHQL_MAX_COST_WITHOUT_KEY


UNAUTHENTICATED = ("No API key found in request", {"code": "UNAUTHENTICATED"})


@pytest.mark.parametrize("fragments", [40, 60])
@pytest.mark.parametrize("method", ["GET", "POST"])
@pytest.mark.parametrize("keyed", [True, False])
@pytest.mark.parametrize("leaf", [LEAF_INTROSPECTION, LEAF_DATA])
async def test_doubling_fragments_answered_at_once(client, keys, fragments, method, keyed, leaf):
    """Each fragment spreads the next twice: 2^(n-1) uses of the last one. Every figure is
    computed once per fragment, so the answer takes milliseconds, with or without a key."""
    query = doubling(fragments, leaf)
    key = keys.full if keyed else None
    await post(client, "{ __typename }", key)  # warm: key lookup cached, code loaded
    started = time.process_time()
    if method == "GET":
        response = await client.get("/graphql", params={"query": query}, headers=headers(key))
    else:
        response = await client.post("/graphql", json={"query": query}, headers=headers(key))
    elapsed = time.process_time() - started
    assert response.status_code == 200
    uses = 2 ** (fragments - 1)
    if leaf == LEAF_DATA and not keyed:
        expected = UNAUTHENTICATED
    elif leaf == LEAF_DATA:
        expected = cost_error(uses * 201)
    else:
        expected = cost_error(uses, 250_000 if keyed else KEYLESS_LIMIT)
    assert only_error(response.json()) == expected
    assert elapsed < 2.0, elapsed  # about 10 ms; 2^59 uses would never end


async def test_doubling_aliases_refused_before_validation(client, keys):
    query = doubling(40, "a: __typename")
    assert only_error(await post(client, query, None)) == (
        f"{2**39} aliases found. Allowed: 30",
        invalid(f"{2**39} aliases found. Allowed: 30"),
    )


async def test_fragment_spreads_capped(client, keys):
    spreads = " ".join(["...F"] * 501)
    over = await post(client, f"{{ {spreads} }} fragment F on Query {{ __typename }}", None)
    message = "501 fragment spreads found. Allowed: 500"
    assert only_error(over) == (message, invalid(message))
    at_cap = " ".join(["...F"] * 500)
    body = await post(client, f"{{ {at_cap} }} fragment F on Query {{ __typename }}", None)
    assert body == {"data": {"__typename": "Query"}}


async def test_fragment_cycle_and_unknown_fragment(client, keys):
    cycle = "{ ...A } fragment A on Query { __typename ...B } fragment B on Query { ...A }"
    message = "Cannot spread fragment 'A' within itself via 'B'."
    assert only_error(await post(client, cycle, keys.full)) == (message, invalid(message))
    unknown = await post(client, "{ ...Missing __typename }", keys.full)
    assert only_error(unknown) == (
        "Unknown fragment 'Missing'.",
        invalid("Unknown fragment 'Missing'."),
    )


async def test_depth_names_the_operation_and_counts_through_fragments(client, keys):
    deep = "units { data { id } }"
    for _ in range(11):
        deep = f"assets {{ data {{ {deep} }} }}"  # not valid: depth is checked first
    body = await post(client, f"query Deep {{ ...D }} fragment D on Query {{ {deep} }}", keys.full)
    message = "'Deep' exceeds maximum operation depth of 12"
    assert only_error(body) == (message, invalid(message))
    # Parsed and measured once (DocumentCaches), refused every time; the
    # same text without a key is refused for the key, not by the remembered figures.
    query = f"query Deep {{ ...D }} fragment D on Query {{ {deep} }}"
    assert only_error(await post(client, query, keys.full)) == (message, invalid(message))
    assert only_error(await post(client, query, None)) == UNAUTHENTICATED


async def test_aliases_count_at_every_spread(client, keys):
    aliased = " ".join(f"a{i}: __typename" for i in range(16))
    body = await post(client, f"{{ ...A ...A }} fragment A on Query {{ {aliased} }}", None)
    assert only_error(body) == (
        "32 aliases found. Allowed: 30",
        invalid("32 aliases found. Allowed: 30"),
    )


@pytest.mark.parametrize("levels", [13, 100, 199, 200, 201, 1000, 1600])
async def test_deep_nesting_never_fails_the_server(client, keys, levels):
    """`{a{a{...}}}` up to the token limit: a depth error, or the parser's own refusal."""
    query = "{" + "a{" * levels + "b" + "}" * levels + "}"
    message = (
        "'anonymous' exceeds maximum operation depth of 12"
        if levels <= 199
        else "Syntax Error: Document is nested too deeply. Parsing aborted."
    )
    for key in (keys.full, None):
        error_message, extensions = only_error(await post(client, query, key))
        assert error_message.splitlines()[0] == message
        assert extensions["code"] == "BAD_USER_INPUT"


async def test_overlapping_fields_bounded(client, keys):
    query = "{ units { data { " + " ".join(["id"] * 2400) + " } } }"
    started = time.process_time()  # CPU, not wall time: other jobs on the machine don't count
    body = await post(client, query, keys.full)
    elapsed = time.process_time() - started
    assert only_error(body) == (OVERLAP_ABORTED, invalid(OVERLAP_ABORTED))
    # About 0.1 s of CPU (0.6 s on a loaded machine). The exact message shows the bounded
    # rule ran; tests/schema/test_operation_limits.py times the rule itself, in isolation.
    assert elapsed < 2.0, elapsed


# Cost


UNIT_FIELDS = "id assetId floorId name createdAt updatedAt"


async def test_one_full_page_passes(client, keys):
    body = await post(
        client, f"{{ units(perPage: 10000) {{ data {{ {UNIT_FIELDS} }} }} }}", keys.full
    )
    assert "errors" not in body
    ids = [unit["id"] for unit in body["data"]["units"]["data"]]
    assert len(ids) == 14
    assert ids == sorted(ids)


async def test_thirty_full_pages_refused_before_anything_runs(client, keys):
    page = f"units(perPage: 10000) {{ data {{ {UNIT_FIELDS} references {{ key value }} }} }}"
    query = "{ " + " ".join(f"p{i}: {page}" for i in range(30)) + " }"
    # 30 x (1 + 10000 x (1 + 6 + (1 + 3 x 2)))
    assert only_error(await post(client, query, keys.full)) == cost_error(4_200_030)


async def test_page_size_from_variables(client, keys):
    query = (
        "query ($n: Int) { "
        + " ".join(f"p{i}: units(perPage: $n) {{ data {{ id }} }}" for i in range(13))
        + " }"
    )
    # 13 x (1 + n x 2): 10,000 rows each is over, 2 rows each is not.
    assert only_error(await post(client, query, keys.full, {"n": 10000})) == cost_error(260_013)
    small = await post(client, query, keys.full, {"n": 2})
    assert "errors" not in small
    assert len(small["data"]["p12"]["data"]) == 2


async def test_parses_are_limited_to_a_handful(client, keys):
    svg = "<svg>" + " " * 4_999_989 + "</svg>"  # 5,000,000 characters
    query = (
        "query ($svg: String!) { "
        + " ".join(f"p{i}: parseUnitMap(svg: $svg)" for i in range(30))
        + " }"
    )
    # 30 x (1 + 9000 + 5,000,000 / 100)
    assert only_error(await post(client, query, keys.full, {"svg": svg})) == cost_error(1_770_030)
    five = (
        "query ($svg: String!) { "
        + " ".join(f"p{i}: parseUnitMap(svg: $svg)" for i in range(5))
        + " }"
    )
    assert only_error(await post(client, five, keys.full, {"svg": svg})) == cost_error(295_005)


async def test_introspection_passes_without_a_key(client):
    small = await post(client, "{ __schema { queryType { name } } }", None)
    assert small == {"data": {"__schema": {"queryType": {"name": "Query"}}}}
    full = await post(client, get_introspection_query(), None)
    assert "errors" not in full
    assert full["data"]["__schema"]["queryType"] == {"name": "Query", "kind": "OBJECT"}
    assert full["data"]["__schema"]["mutationType"] == {"name": "Mutation", "kind": "OBJECT"}


async def test_cost_is_charged_to_the_rate_limit(store, settings, keys):
    """One rate-limit unit per 10,000 of cost, at least one: a page of 10,000 units with
    paging (priced 120,001) needs 13 of a burst of 20 before it runs, and spends what its
    answer holds (a dozen units: one unit); a cheap query spends 1."""
    limited = replace(settings, rate_limit_per_second=0.001, rate_limit_burst=20)
    app = create_app(limited, store)
    costly = (
        f"{{ units(perPage: 10000) {{ paging {{ perPage currentPage prevPage nextPage }} "
        f"data {{ {UNIT_FIELDS} }} }} }}"
    )
    cheap = "{ units(perPage: 1) { data { id } } }"
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="https://t"
    ) as client:
        first = await client.post(
            "/graphql", json={"query": costly}, headers={"API-Key": keys.full}
        )
        assert "errors" not in first.json()
        assert first.headers["RateLimit-Remaining"] == "19"  # 13 taken, 12 given back
        for _ in range(8):  # 11 left
            assert "errors" not in await post(client, cheap, keys.full)
        refused = await post(client, costly, keys.full)  # the lookup takes 1, 12 more refused
        message, extensions = only_error(refused)
        assert (message, extensions["code"]) == ("API rate limit exceeded", "RATE_LIMITED")
        assert set(extensions) == {"code", "retryAfter"}
        assert 1990 < extensions["retryAfter"] <= 2000  # 2 units missing at 0.001 a second
        for _ in range(10):  # the 10 units left: cheap queries spend one each
            assert "errors" not in await post(client, cheap, keys.full)
        message, extensions = only_error(await post(client, cheap, keys.full))
        assert extensions["code"] == "RATE_LIMITED"
        for _ in range(20):
            assert "errors" not in await post(client, cheap, keys.plain)
        assert only_error(await post(client, cheap, keys.plain))[1]["code"] == "RATE_LIMITED"


# Access of the root fields, before validation


async def test_no_key_is_refused_before_validation(client):
    invalid_below = await post(client, "{ assets { data { id nope } } }", None)
    assert only_error(invalid_below) == UNAUTHENTICATED
    through_fragments = await post(
        client,
        "{ ... on Query { ...Q } } fragment Q on Query { __typename units { nope } }",
        None,
    )
    assert only_error(through_fragments) == UNAUTHENTICATED


async def test_permission_is_checked_before_validation(client, keys):
    body = await post(client, "{ parseUnitMap nope }", keys.plain)  # svg missing, nope unknown
    assert only_error(body) == (
        f"Access denied: missing permission {UNIT_MAPS_PARSE}",
        {"code": "FORBIDDEN"},
    )


async def test_flag_of_any_root_field_fails_the_operation(client, keys):
    """Before, the other root fields still answered; now nothing runs."""
    body = await post(
        client, '{ assets { data { id } } locations(unitMapId: "map-1") { etag } }', keys.full
    )
    assert only_error(body) == (
        "Not found: this experimental resource requires the Experimental-Flags header to "
        f'include "{FLAG_LOCATIONS}"',
        {"code": "FLAG_REQUIRED"},
    )
    with_flag = await post(
        client, '{ locations(unitMapId: "map-1") { etag } }', keys.full, None, FLAG_LOCATIONS
    )
    assert "errors" not in with_flag


@pytest.mark.serial  # other clients' latency to 0.2 s: measured on idle cores
@pytest.mark.parametrize("keyed", [True, False])
async def test_other_clients_are_served_during_the_doubling_attack(client, keys, keyed):
    attack = client.get(
        "/graphql",
        params={"query": doubling(40, LEAF_DATA)},
        headers=headers(keys.full if keyed else None),
    )
    response, seconds, worst = await latency_meanwhile(client, keys.plain, attack)
    assert only_error(response.json()) == (cost_error(2**39 * 201) if keyed else UNAUTHENTICATED)
    assert seconds < 0.2, seconds
    assert worst < 0.2, worst


@pytest.mark.serial  # other clients' latency to 0.2 s: measured on idle cores
async def test_other_clients_are_served_during_the_cost_attack(client, keys):
    """30 aliases of a full page of units with references: refused before it runs."""
    aliases = " ".join(
        f"a{i}: units(perPage: 10000) {{ data {{ id name floorId assetId "
        f"references {{ key value }} }} }}"
        for i in range(30)
    )
    attack = client.post(
        "/graphql", json={"query": "{ " + aliases + " }"}, headers=headers(keys.full, "references")
    )
    response, seconds, worst = await latency_meanwhile(client, keys.plain, attack)
    # each alias: 1 + 10000 x (data 1 + 4 fields + references 1 + 3 x 2 fields)
    assert only_error(response.json()) == cost_error(30 * 120_001)
    assert seconds < 0.2, seconds
    assert worst < 0.2, worst


async def test_a_bug_before_execution_is_internal_and_says_nothing(client, keys, monkeypatch):
    def broken(*_args, **_kwargs):
        raise TypeError("'NoneType' object is not iterable (internal detail)")

    monkeypatch.setattr("schema.execution.guard.operation_cost", broken)
    body = await post(client, "{ assets { data { id } } }", keys.full)
    assert only_error(body) == ("Server error", {"code": "INTERNAL"})


async def test_costs_are_kept_per_document_operation_and_small_variables():
    """The kept cost is the computed one for every page size; large variables are kept
    by a digest of what their price reads (16 bytes, not the variables)."""
    from schema.build import build_schema
    from schema.execution.operation_cost import operation_cost
    from storage.settings import Settings

    schema = build_schema(Settings())
    caches, graphql_schema = schema.caches, schema._schema
    document = await caches.document("query Q($n: Int) { units(perPage: $n) { data { id } } }")
    assert await caches.document("query Q($n: Int) { units(perPage: $n) { data { id } } }") is (
        document
    )
    for n in (1, 100, 10000, 1, 100):
        assert (
            caches.cost(graphql_schema, document, {"n": n}, None)
            == operation_cost(graphql_schema, document, {"n": n}, None)
            == 2 * n + 1
        )
    assert len(caches.parsed(document).costs) == 3
    padded = {"n": 5, "pad": "x" * 2000}
    assert caches.cost(graphql_schema, document, padded, None) == operation_cost(
        graphql_schema, document, padded, None
    )
    costs = caches.parsed(document).costs
    assert len(costs) == 4 and [len(key) for _, key in costs if isinstance(key, bytes)] == [16]
    first = await caches.validate(graphql_schema, document, ())
    assert await caches.validate(graphql_schema, document, ()) is first
