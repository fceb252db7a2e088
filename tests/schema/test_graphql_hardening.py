"""Attacks of the hardening review (issue 30) on /graphql, through the real app and a real
served process: what a document may cost (introspection included; keyed and keyless
ceilings), how large it may be and what its caches keep, huge number literals, and one
refused root field among others."""

from __future__ import annotations

import asyncio
import ssl
import threading
import time
from dataclasses import replace
from pathlib import Path

import httpx
import pytest
import strawberry
from graphql import get_introspection_query, parse

import schema.execution.guard
import schema.execution.running.request
import schema.execution.running.strategies
from resolvers.auth.keys import create_key
from resolvers.auth.permissions import (
    ADMIN,
    FLAG_UNIT_ATTRIBUTES,
    UNIT_ATTRIBUTES_WRITE,
    UNIT_MAPS_PARSE,
)
from resolvers.context import RequestContext, Services
from rest.app import create_app
from schema.build import Schema, build_schema
from schema.execution.executor import CompiledExecutor
from schema.execution.guard import DocumentCaches
from schema.execution.operation_cost import operation_cost
from schema.execution.operation_limits import OperationLimits
from schema.execution.plans import plans_of
from schema.execution.running.document import run_operation
from schema.permissions import KeyRequired, requires
from tests.schema.strawberry_pipeline import OperationGuard
from tests.schema.test_compiled_executor import strawberry_schema_of
from tests.schema.test_graphql_guard import headers
from tests.servers import serve_tls

pytestmark = pytest.mark.security

KEYLESS_LIMIT = 25_000  # FLOORGATE_GRAPHQL_MAX_COST_WITHOUT_KEY
MAX_DOCUMENT = 1024 * 1024  # FLOORGATE_GRAPHQL_MAX_DOCUMENT_BYTES
DEEP = "__schema { types { fields { type { ofType { ofType { name } } } } } }"
WALKS = "{ " + " ".join(f"a{i}: {DEEP}" for i in range(30)) + " }"  # finding 1
HUGE_INT = "9" * 5000  # past Python's 4,300-digit limit of int(str)
GRAPHIQL_QUERIES = [  # what GraphiQL sends on load (its options vary by version)
    get_introspection_query(),
    get_introspection_query(
        descriptions=True,
        specified_by_url=True,
        directive_is_repeatable=True,
        schema_description=True,
        input_value_deprecation=True,
        one_of=True,
    ),
]


def cost_refusal(cost: int, limit: int) -> dict:
    return {
        "data": None,
        "errors": [
            {
                "message": f"Query cost {cost} exceeds the limit of {limit}: ask for smaller pages "
                "or fewer fields",
                "extensions": {"code": "COST_LIMIT", "cost": cost, "limit": limit},
            }
        ],
    }


def cost_of(client: httpx.AsyncClient, query: str) -> int:
    graphql_schema = strawberry_schema_of(client._transport.app)._schema
    return operation_cost(graphql_schema, parse(query), {})


# -- finding 1: introspection is costed, keyless documents have a low ceiling --------------


@pytest.mark.serial  # "at once" is under a second: measured on idle cores
@pytest.mark.parametrize("method", ["GET", "POST"])
async def test_keyless_introspection_walks_are_refused_at_once(client, method):
    """30 aliases of a walk of every field's type reference cost what they walk (42,900
    on today's schema; 0.9 s of CPU when run), over the keyless ceiling: refused before
    anything runs."""
    cost = cost_of(client, WALKS)
    assert cost > KEYLESS_LIMIT
    started = time.perf_counter()
    if method == "GET":
        response = await client.get("/graphql", params={"query": WALKS}, headers=headers(None))
    else:
        response = await client.post("/graphql", json={"query": WALKS}, headers=headers(None))
    seconds = time.perf_counter() - started
    assert response.status_code == 200
    assert response.json() == cost_refusal(cost, KEYLESS_LIMIT)
    assert seconds < 1.0, seconds


@pytest.mark.parametrize("query", GRAPHIQL_QUERIES)
@pytest.mark.parametrize("keyed", [False, True])
async def test_graphiqls_introspection_works_with_and_without_a_key(client, keys, query, keyed):
    response = await client.post(
        "/graphql", json={"query": query}, headers=headers(keys.full if keyed else None)
    )
    assert response.status_code == 200
    body = response.json()
    assert "errors" not in body
    assert body["data"]["__schema"]["queryType"]["name"] == "Query"
    assert cost_of(client, query) < KEYLESS_LIMIT


async def test_keyed_introspection_is_charged_to_the_key(store, settings, client):
    """Sixteen walks are priced over 20,000 (three rate-limit units needed before they
    run) and their answer holds over 10,000 fields: two units spent, like any query of
    that size (it was charged nothing: one unit for the key's lookup), and the validation
    of a new document of their tokens."""
    walks = "{ " + " ".join(f"a{i}: {DEEP}" for i in range(16)) + " }"
    cost = cost_of(client, walks)
    assert 20_000 < cost <= 30_000
    limited = replace(settings, rate_limit_per_second=0.001, rate_limit_burst=60)
    key = (await create_key(store, "introspection charged", [], None)).secret
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=create_app(limited, store)), base_url="https://t"
    ) as limited_client:
        response = await limited_client.post(
            "/graphql", json={"query": walks}, headers=headers(key)
        )
        assert response.status_code == 200
        assert "errors" not in response.json()
        assert 10_000 < response.content.count(b'":') <= 20_000
        # ... and its validation, new: 18 units for its 338 tokens (issue 63, finding 1)
        assert response.headers["RateLimit-Remaining"] == str(60 - 2 - 18)


def just_under_the_keyless_ceiling(settings) -> str:
    """As many aliases of DEEP as today's schema lets a keyless document hold (17 when
    written; the schema grows)."""
    graphql_schema = build_schema(settings)._schema

    def walks(count: int) -> str:
        return "{ " + " ".join(f"a{i}: {DEEP}" for i in range(count)) + " }"

    count = 1
    while operation_cost(graphql_schema, parse(walks(count + 1)), {}) < KEYLESS_LIMIT:
        count += 1
    assert count >= 10, count  # still a walk that takes the CPU pool a while
    return walks(count)


def served_client(served, **kwargs) -> httpx.AsyncClient:
    context = ssl.create_default_context(cafile=str(served.certs.ca_cert))
    return httpx.AsyncClient(base_url=served.base, verify=context, timeout=30, **kwargs)


@pytest.mark.serial  # refusals to 2 s, other clients' latency to 1.5 s: measured on idle cores
def test_keyed_clients_are_served_while_12_keyless_walks_run(tmp_path, db_server, settings, keys):
    """A real server: 12 keyless walks at once on connections of their own, first the 30
    walks (each refused in under two seconds), then 17 (just under the ceiling: they run, on
    the CPU pool); a keyed GET /v1/assets on another connection answers within 1.5 s every
    time. On main the 30 walks ran, 0.9 s of CPU each (16 saturated two workers); run on
    the event loop, the 17 held it 3.2 s."""
    under = just_under_the_keyless_ceiling(settings)

    async def scenario(served) -> tuple[list[float], list[float], list[float]]:
        limits = httpx.Limits(max_connections=12)
        async with (
            served_client(served, limits=limits) as attackers,
            served_client(served) as other,
        ):
            await other.get("/v1/assets", headers={"API-Key": keys.full})  # warm
            done = False
            latencies: list[float] = []

            async def keyed_gets() -> None:
                while not done:
                    started = time.perf_counter()
                    response = await other.get("/v1/assets", headers={"API-Key": keys.full})
                    latencies.append(time.perf_counter() - started)
                    assert response.status_code == 200
                    await asyncio.sleep(0.02)

            async def walk(query: str, refused: bool) -> float:
                started = time.perf_counter()
                response = await attackers.post(
                    "/graphql", json={"query": query}, headers=headers(None)
                )
                assert response.status_code == 200
                body = response.json()
                if refused:
                    assert body["errors"][0]["extensions"]["code"] == "COST_LIMIT"
                else:
                    assert "errors" not in body and len(body["data"]) == under.count("__schema")
                return time.perf_counter() - started

            async def attack() -> tuple[list[float], list[float]]:
                nonlocal done
                try:
                    refusals = await asyncio.gather(*(walk(WALKS, True) for _ in range(12)))
                    answers = await asyncio.gather(*(walk(under, False) for _ in range(12)))
                    return refusals, answers
                finally:
                    done = True

            (refusals, answers), _ = await asyncio.gather(attack(), keyed_gets())
            return refusals, answers, latencies

    # The address's budget as large as the walks need: here what is measured is the walks'
    # own work, refused by their cost or run on the CPU pool. (At the default burst of 50,
    # the first walk's validation, 49 units for its 632 tokens since issue 63, leaves the
    # other eleven a 429 at once: tests/schema/execution/test_validation_price.py.)
    roomy = {"FLOORGATE_UNAUTHENTICATED_BURST": "10000"}
    with serve_tls(tmp_path, db_server, settings, **roomy) as served:
        refusals, answers, latencies = asyncio.run(scenario(served))
    # Refused, 12 at once on new TLS connections (the client in this process): under 1 s
    # when written, 0.83-1.03 s on 2026-11-27's slower machine (whether new connections
    # were paced or not). Twelve that ran would take 5 s and more (0.9 s of CPU each).
    assert max(refusals) < 2.0, refusals
    assert max(answers) < 10.0, answers  # 12 x 0.15 s of CPU on a pool of two threads
    assert len(latencies) > 3 and max(latencies) < 1.5, latencies


async def test_costly_introspection_alone_executes_on_the_cpu_pool(client, keys, monkeypatch):
    """GraphiQL's schema query (40 ms), keyed or not, runs off the event loop; a cheap
    one, or one that also asks for data, runs in place."""
    threads: list[str] = []
    run_cpu = schema.execution.running.strategies.run_cpu

    async def recorded(function, *args):
        threads.append("pool")
        return await run_cpu(function, *args)

    monkeypatch.setattr(schema.execution.running.strategies, "run_cpu", recorded)
    for query, key, expected in [
        (GRAPHIQL_QUERIES[1], None, ["pool"]),
        (GRAPHIQL_QUERIES[0], keys.full, ["pool"]),
        ("{ __typename __schema { queryType { name } } }", None, []),
        ("{ assets { data { id } } __schema { types { name fields { name } } } }", keys.full, []),
    ]:
        threads.clear()
        response = await client.post("/graphql", json={"query": query}, headers=headers(key))
        assert response.status_code == 200 and "errors" not in response.json()
        assert threads == expected, query


# -- finding 3: document size, caches bounded in bytes, parses off the loop ---------------


async def test_a_document_over_the_limit_is_413_naming_it(client, keys):
    too_large = {"message": f"GraphQL document too large: at most {MAX_DOCUMENT} bytes"}
    query = "{ assets { data { id } } }"
    padded = query + " " * (MAX_DOCUMENT + 1 - len(query))
    response = await client.post("/graphql", json={"query": padded}, headers=headers(keys.full))
    assert (response.status_code, response.json()) == (413, too_large)
    # counted in UTF-8 bytes: 2 bytes each, half as many characters
    accented = query + "#" + "é" * (MAX_DOCUMENT // 2)
    response = await client.post("/graphql", json={"query": accented}, headers=headers(keys.full))
    assert (response.status_code, response.json()) == (413, too_large)
    # at the limit it runs
    exact = query + " " * (MAX_DOCUMENT - len(query))
    response = await client.post("/graphql", json={"query": exact}, headers=headers(keys.full))
    assert response.status_code == 200 and "errors" not in response.json()


async def test_the_document_limit_is_a_setting_and_bounds_a_gets_query_string(
    store, settings, keys
):
    """A GET's whole query string, with or without a key, before anything else (httpx
    sends at most 64 KiB of it: the limit is lowered here)."""
    small = replace(settings, graphql_max_document_bytes=1000)
    too_large = {"message": "GraphQL document too large: at most 1000 bytes"}
    query = "{ assets { data { id } } }"
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=create_app(small, store)), base_url="https://t"
    ) as client:
        for key in (keys.full, None):
            response = await client.get(
                "/graphql", params={"query": query + " " * 990}, headers=headers(key)
            )
            assert (response.status_code, response.json()) == (413, too_large)
        response = await client.post(
            "/graphql", json={"query": query + " " * 975}, headers=headers(keys.full)
        )
        assert (response.status_code, response.json()) == (413, too_large)
        response = await client.get(
            "/graphql", params={"query": query + " " * 900}, headers=headers(keys.full)
        )
        assert response.status_code == 200 and "errors" not in response.json()


async def test_a_keyless_get_query_string_is_bounded_like_a_keyless_body(client, monkeypatch):
    """Without a key only introspection can succeed: a GET's query string over the keyless
    body limit is refused unread, as a POST's body is (lowered here: httpx sends at most
    64 KiB of a query string)."""
    monkeypatch.setattr("rest.graphql_http.view.MAX_UNAUTHENTICATED_BODY_BYTES", 1000)
    query = "{ __typename }" + " " * 1000
    for response in (
        await client.get("/graphql", params={"query": query}),
        await client.post("/graphql", json={"query": query}),
    ):
        assert (response.status_code, response.json()) == (
            200,
            {
                "data": None,
                "errors": [
                    {
                        "message": "No API key found in request",
                        "extensions": {"code": "UNAUTHENTICATED"},
                    }
                ],
            },
        )
    response = await client.get("/graphql", params={"query": "{ __typename }" + " " * 900})
    assert response.json() == {"data": {"__typename": "Query"}}


def big_document(number: int, kind: str) -> str:
    """A valid document of about 900 KB: a long string, or 4,900 comment lines (tokens,
    each kept with a copy of its text by a parse)."""
    query = f"query Big{number} {{ assets(perPage: 1) {{ data {{ id }} }} }}\n"
    if kind == "string":
        name = f"{number:06d}" + "x" * 900_000
        return query.replace("{ assets", f'{{ a: __type(name: "{name}") {{ name }} assets', 1)
    line = f"# {number:06d} " + "c" * 175 + "\n"
    return query + line * 4_900


async def test_document_caches_are_bounded_in_bytes_and_keyed_by_digest(client, keys):
    graphql = strawberry_schema_of(client._transport.app)
    caches, plans = graphql.caches, plans_of(graphql._schema)
    for number in range(20):
        query = big_document(number, "string" if number % 2 else "comments")
        response = await client.post("/graphql", json={"query": query}, headers=headers(keys.full))
        assert response.status_code == 200
        body = response.json()
        assert body["data"]["assets"]["data"], body
        assert body["data"].get("a", "not asked") in (None, "not asked")
    # Each asked once: they wait in the segment of new documents (a quarter of the budget).
    figures = caches.figures()
    assert 0 < figures["bytes_used"] <= figures["budget_bytes"] == 16 * 1024 * 1024
    assert 0 < caches.new.bytes <= caches.new.max_bytes == 4 * 1024 * 1024
    segments = (caches.entries, caches.new)
    assert all(isinstance(key, bytes) and len(key) == 16 for s in segments for key in s.entries)
    assert set(caches.by_document) == {
        id(entry.document) for s in segments for entry, _ in s.entries.values()
    }
    assert 0 < plans.documents.bytes <= plans.documents.max_bytes == 16 * 1024 * 1024
    kept = [entry.source.body for entry, _ in plans.documents.entries.values()]
    assert sum(len(body) > 800_000 for body in kept) < 20  # the oldest were dropped


async def test_a_long_document_is_parsed_off_the_event_loop(client, keys, monkeypatch):
    """A long document's parse (0.2 s for 900 KB), and the JSON of a long body, run on the
    CPU pool; short ones on the loop, where a thread's hand-off would cost more."""
    threads: list[tuple[int, str]] = []
    decoded: list[tuple[int, str]] = []
    parse_and_size = schema.execution.guard.parse_and_size
    operation_params = schema.execution.running.request.operation_params

    def recorded(query: str, max_tokens: int):
        threads.append((len(query), threading.current_thread().name))
        return parse_and_size(query, max_tokens)

    def recorded_params(request):
        decoded.append((len(request.body or b""), threading.current_thread().name))
        return operation_params(request)

    monkeypatch.setattr(schema.execution.guard, "parse_and_size", recorded)
    monkeypatch.setattr(schema.execution.running.request, "operation_params", recorded_params)
    long_one = big_document(1000, "string")
    for query in (long_one, "{ assets(perPage: 2) { data { id } } }"):
        response = await client.post("/graphql", json={"query": query}, headers=headers(keys.full))
        assert response.status_code == 200
    (long_len, long_thread), (_, short_thread) = threads
    assert long_len == len(long_one) and long_thread.startswith("floorgate-cpu")
    assert short_thread == threading.main_thread().name
    (long_body, long_thread), (short_body, short_thread) = decoded
    assert long_body > len(long_one) and long_thread.startswith("floorgate-cpu")
    assert short_body < 100 and short_thread == threading.main_thread().name


async def test_a_document_of_many_tokens_is_validated_off_the_event_loop(client, keys, monkeypatch):
    """Validation takes 15-40 us a token: 5,000 tokens held the loop up to 0.2 s."""
    calls: list[str] = []
    run_cpu = schema.execution.guard.run_cpu

    async def recorded(function, *args):
        calls.append(function.__name__)
        return await run_cpu(function, *args)

    monkeypatch.setattr(schema.execution.guard, "run_cpu", recorded)
    many = "{ __typename }" + "\n#" * 600  # tokens, comments included
    for query, expected in [(many, ["validate_document"]), ("{ __typename }", [])]:
        calls.clear()
        response = await client.post("/graphql", json={"query": query}, headers=headers(keys.full))
        assert response.status_code == 200 and "errors" not in response.json()
        assert calls == expected


def rss_bytes(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


def test_20_distinct_900_kb_documents_grow_a_served_process_by_less_than_100_mb(
    tmp_path, db_server, settings, keys
):
    """Measured in a real served process: on main each document stayed in the parse,
    validation and plan caches, keyed by its whole text (a 15 MB one: +28.7 MB; these,
    2.5 MB each: 50 MB for 20, 150 MB for 60). Bounded in bytes (16 + 16 MiB, Python's
    live memory stays flat), the growth levels off at what the allocator keeps (40-55 MB
    after 20 to 100 documents)."""

    async def send(served) -> list[int]:
        rss = []
        async with served_client(served) as client:
            for _ in range(5):  # warm: key cache, plans of small documents, TLS
                await client.post(
                    "/graphql",
                    json={"query": "{ assets { data { id } } }"},
                    headers=headers(keys.full),
                )
            rss.append(rss_bytes(served.process.pid))
            for number in range(60):
                query = big_document(number, "string" if number % 2 else "comments")
                response = await client.post(
                    "/graphql", json={"query": query}, headers=headers(keys.full)
                )
                assert response.status_code == 200
                assert response.json()["data"]["assets"]["data"]
                if number in (19, 59):
                    rss.append(rss_bytes(served.process.pid))
        return rss

    with serve_tls(tmp_path, db_server, settings) as served:
        before, after_20, after_60 = asyncio.run(send(served))
    mib = 1024 * 1024
    assert after_20 - before < 100 * mib, (before, after_20, after_60)
    assert after_60 - before < 100 * mib, (before, after_20, after_60)


# -- finding 11: number literals past int()'s 4,300 digits --------------------------------


@pytest.mark.parametrize("method", ["GET", "POST"])
@pytest.mark.parametrize(
    ("query", "column"),
    [
        (f"{{ assets(perPage: {HUGE_INT}) {{ data {{ id }} }} }}", 19),
        (f"query($n: Int = {HUGE_INT}) {{ assets(perPage: $n) {{ data {{ id }} }} }}", 17),
        (
            f'{{ distanceMatrix(unitMapId: "m", input: {{sources: [{{x: {HUGE_INT}.5, y: 1, '
            f'floorId: "f"}}], targets: []}}) {{ distanceMethod }} }}',
            56,
        ),
    ],
)
async def test_a_huge_number_literal_is_a_validation_error(client, keys, method, query, column):
    message = f"Number literal of {5002 if column == 56 else 5000} characters: at most 100"
    if method == "GET":
        response = await client.get(
            "/graphql", params={"query": query}, headers=headers(keys.full, "distances")
        )
    else:
        response = await client.post(
            "/graphql", json={"query": query}, headers=headers(keys.full, "distances")
        )
    assert response.status_code == 200
    assert response.json() == {
        "data": None,
        "errors": [
            {
                "message": message,
                "locations": [{"line": 1, "column": column}],
                "extensions": {"code": "BAD_USER_INPUT", "fields": {"query": [message]}},
            }
        ],
    }


@pytest.mark.parametrize("method", ["GET", "POST"])
@pytest.mark.parametrize("value", [HUGE_INT, "1" + "0" * 400 + ".5", "1e400"])
async def test_a_huge_number_in_variables_is_input_error(client, keys, method, value):
    """JSON numbers past 64 bits or a double's range do not decode: the request cannot be
    read (422), nothing is parsed or run."""
    query = "query($n: Int) { assets(perPage: $n) { data { id } } }"
    variables = '{"n": ' + value + "}"
    if method == "GET":
        response = await client.get(
            "/graphql", params={"query": query, "variables": variables}, headers=headers(keys.full)
        )
    else:
        body = '{"query": "' + query + '", "variables": ' + variables + "}"
        response = await client.post(
            "/graphql",
            content=body,
            headers=headers(keys.full) | {"Content-Type": "application/json"},
        )
    assert (response.status_code, response.json()) == (
        422,
        {
            "message": "Resource validation failed",
            "fields": {"body": ["Unable to parse request body as JSON"]},
        },
    )


# -- finding 15: a refused root field among others ------------------------------------------


async def test_a_refused_root_field_among_others_fails_at_its_path(client, keys):
    """`parseUnitMap` needs a permission `plain` lacks; `asset` needs only a key. The
    refusal is the field's error, with its path; the field is non-null, so per the spec
    `data` is null (it was one error without a path, nothing else run)."""
    query = '{ asset(id: "asset-1") { id } parseUnitMap(svg: "<svg/>") }'
    response = await client.post("/graphql", json={"query": query}, headers=headers(keys.plain))
    assert response.status_code == 200
    assert response.json() == {
        "data": None,
        "errors": [
            {
                "message": f"Access denied: missing permission {UNIT_MAPS_PARSE}",
                "locations": [{"line": 1, "column": 31}],
                "path": ["parseUnitMap"],
                "extensions": {"code": "FORBIDDEN"},
            }
        ],
    }


async def test_when_every_root_field_is_refused_nothing_runs(client, keys):
    for query in ('{ parseUnitMap(svg: "<svg/>") }', '{ __typename parseUnitMap(svg: "<svg/>") }'):
        response = await client.post("/graphql", json={"query": query}, headers=headers(keys.plain))
        assert response.json() == {
            "data": None,
            "errors": [
                {
                    "message": f"Access denied: missing permission {UNIT_MAPS_PARSE}",
                    "extensions": {"code": "FORBIDDEN"},
                }
            ],
        }


async def test_a_mutation_with_a_refused_field_is_refused_whole(client, store):
    """Mutations run one after the other and their fields are non-null: a refused one
    would null `data` after the others had written. Nothing runs: one error, no path
    (with the query rule, `deleteLocation` ran and the refusal was at its field's path)."""
    admin = (await create_key(store, "admin only", [ADMIN], None)).secret
    query = (
        'mutation { deleteLocation(id: "no-such-location") '
        'unassignUnitAttributes(groupId: "g", data: []) { unitId } }'
    )
    response = await client.post(
        "/graphql", json={"query": query}, headers=headers(admin, FLAG_UNIT_ATTRIBUTES)
    )
    assert response.json() == {
        "data": None,
        "errors": [
            {
                "message": f"Access denied: missing permission {UNIT_ATTRIBUTES_WRITE}",
                "extensions": {"code": "FORBIDDEN"},
            }
        ],
    }


@strawberry.type
class OpenAndSecret:
    @strawberry.field(permission_classes=[KeyRequired])
    def open(self) -> str:
        return "answered"

    @strawberry.field(permission_classes=[requires(UNIT_MAPS_PARSE)])
    def secret(self) -> str | None:
        return "leaked"


async def test_a_refused_nullable_root_field_is_null_and_the_others_answer(store, settings, keys):
    """On a schema whose refused field is nullable, both paths (direct and strawberry's)
    answer the other field, and null with the error at the refused one's path."""
    caches = DocumentCaches(OperationLimits.from_settings(settings), 1 << 20, 5000, 1 << 20)
    small = Schema(
        query=OpenAndSecret,
        execution_context_class=CompiledExecutor,
        extensions=[lambda: OperationGuard(caches)],
    )
    small.caches = caches
    services = Services(store, settings)
    query = "{ open secret }"
    expected = {"open": "answered", "secret": None}
    context = RequestContext(services, keys.plain, frozenset())
    document = await caches.document(query)
    direct = await run_operation(small, document, document.definitions[0], None, context)
    context = RequestContext(services, keys.plain, frozenset())
    pipeline = await small.execute(query, context_value=context)
    for result in (direct, pipeline):
        assert result.data == expected
        (error,) = result.errors
        assert (error.message, error.path) == (
            f"Access denied: missing permission {UNIT_MAPS_PARSE}",
            ["secret"],
        )
        assert error.original_error.extensions == {"code": "FORBIDDEN"}
