"""Big inputs cost what they are and no more (issue 30, findings 2 and 4): a refused SVG
parse keeps nothing of its tree, and big JSON bodies are counted before work and read off
the event loop. Memory and latency are measured on `floorgate serve` as a real process."""

from __future__ import annotations

import re
import ssl
import threading
import time
from collections.abc import Iterator

import httpx
import orjson
import pytest

from parsing.errors import SvgError
from parsing.limits import SvgLimits
from parsing.svg import parse_unit_map
from resolvers.auth.keys import create_key
from resolvers.limits import MAX_WRITE_BODY_BYTES, MAX_WRITE_ITEMS
from tests.e2e.test_connections import client_context, wait_until_ready
from tests.rest.test_http_hardening import rss_mb
from tests.servers import Served, serve_tls

pytestmark = pytest.mark.security

SVG_NS = "http://www.w3.org/2000/svg"
RECT = '<rect width="1" height="1"/>'
# ~8.4 MB: 300,000 elements, over the default limit of 200,000.
TOO_MANY = f'<svg xmlns="{SVG_NS}">{RECT * 300_000}</svg>'.encode()
# ~5.3 MB: 190,000 elements, read whole, then refused by the walk at its last element.
REFUSED_LATE = (
    f'<svg xmlns="{SVG_NS}" width="9" height="9">{RECT * 190_000}'
    '<use href="http://x.test/a"/></svg>'
)
FLAGS = {"Experimental-Flags": "unit-attributes-resource"}
ASSIGN = "/v1/units/attribute-groups/g-1/units"
MATRIX = "/v1/maps/map-1/distance-matrix"
SVG_HEADERS = {"Content-Type": "image/svg+xml"}
PARSE = "query ($svg: String!) { parseUnitMap(svg: $svg) }"
LATE_MESSAGE = (
    '<use> refers to "http://x.test/a" outside the SVG; only "#id" references and '
    "data: URIs are allowed (line 1)"
)
MANY = re.compile(r"the SVG has (\d+) or more elements; the limit is 200000")


@pytest.fixture(scope="module")
def served(tmp_path_factory, db_server, settings) -> Iterator[tuple[Served, ssl.SSLContext]]:
    with serve_tls(tmp_path_factory.mktemp("big"), db_server, settings) as served:
        context = client_context(served)
        wait_until_ready(served, context)
        yield served, context


# -- finding 2: a refused parse leaks nothing ------------------------------------------------


def test_too_many_elements_stop_the_parse_early():
    """Elements are counted while the document is read: 600,000 are refused after about
    200,000, not after a tree of all of them was built."""
    limits = SvgLimits(max_bytes=32 * 1024 * 1024)
    with pytest.raises(SvgError) as refused:
        parse_unit_map(f'<svg xmlns="{SVG_NS}">{RECT * 600_000}</svg>', limits)
    found = MANY.fullmatch(refused.value.message)
    assert found and 200_000 < int(found.group(1)) < 210_000, refused.value.message
    assert refused.value.__traceback__ is not None
    assert refused.value.__context__ is None and refused.value.__cause__ is None


def test_a_refused_parse_keeps_no_frame_of_the_parse():
    """The error raised holds only the entry's frame (whose input is dropped): not the
    parser's frames, which held the tree."""
    with pytest.raises(SvgError) as refused:
        parse_unit_map(REFUSED_LATE)
    frames = []
    trace = refused.value.__traceback__
    while trace is not None:
        frames.append(trace.tb_frame)
        trace = trace.tb_next
    assert [frame.f_code.co_name for frame in frames[1:]] == ["parse_unit_map"]  # test, entry
    assert "data" not in frames[1].f_locals
    assert str(refused.value) == LATE_MESSAGE


def test_ten_refused_8_mb_parses_grow_rss_less_than_100_mb(served, keys):
    """REST (E10) and GraphQL (`parseUnitMap`), refused early (too many elements) and
    late (after the whole tree was read): 1.9 GB before, now under 100 MB."""
    server, context = served
    headers = {"API-Key": keys.full}
    with httpx.Client(verify=context, base_url=server.base, timeout=60) as client:
        warm = client.post("/v1/maps/parse", content=TOO_MANY, headers={**headers, **SVG_HEADERS})
        assert warm.status_code == 422
        before = rss_mb(server.process.pid)
        answers = []
        for _ in range(3):
            answers.append(
                client.post("/v1/maps/parse", content=TOO_MANY, headers={**headers, **SVG_HEADERS})
            )
            answers.append(
                client.post(
                    "/v1/maps/parse", content=REFUSED_LATE, headers={**headers, **SVG_HEADERS}
                )
            )
        for _ in range(2):
            answers.append(
                client.post(
                    "/graphql",
                    headers=headers,
                    json={"query": PARSE, "variables": {"svg": TOO_MANY.decode()}},
                )
            )
        answers.append(
            client.post(
                "/graphql",
                headers=headers,
                json={"query": PARSE, "variables": {"svg": REFUSED_LATE}},
            )
        )
        answers.append(
            client.post("/v1/maps/parse", content=TOO_MANY, headers={**headers, **SVG_HEADERS})
        )
        after = rss_mb(server.process.pid)
    assert len(answers) == 10
    for answer in answers:
        if answer.url.path == "/graphql":
            error = answer.json()["errors"][0]
            assert answer.json()["data"] is None
            assert error["extensions"]["code"] == "BAD_USER_INPUT"
            message = error["extensions"]["fields"]["svg"][0]
        else:
            assert answer.status_code == 422
            assert answer.json()["message"] == "Resource validation failed"
            message = answer.json()["fields"]["body"][0]
        assert MANY.fullmatch(message) or message == LATE_MESSAGE, message
    assert after - before < 100, (before, after)


# -- finding 4: JSON bodies are counted before work and read off the loop -------------------


def assignments(count: int) -> list[dict[str, str]]:
    return [
        {"group_id": "g-1", "attribute_id": "a-1", "asset_id": "asset-1", "unit_id": f"u-{number}"}
        for number in range(count)
    ]


@pytest.mark.parametrize("path", [ASSIGN, ASSIGN + "/remove"])
async def test_more_items_than_the_maximum_are_refused_by_count(client, full_headers, path):
    response = await client.put(
        path, json={"data": assignments(MAX_WRITE_ITEMS + 1)}, headers={**full_headers, **FLAGS}
    )
    assert response.status_code == 422
    assert response.json() == {
        "message": "Resource validation failed",
        "fields": {
            "data": [
                f"must have at most {MAX_WRITE_ITEMS} items per request, not {MAX_WRITE_ITEMS + 1}"
            ]
        },
    }


async def test_the_maximum_itself_passes_the_count(client, full_headers):
    """1,000 items are read and validated (then refused for what they name, not their number)."""
    response = await client.put(
        ASSIGN, json={"data": assignments(MAX_WRITE_ITEMS)}, headers={**full_headers, **FLAGS}
    )
    assert response.status_code in (404, 422)
    assert "items per request" not in response.text


@pytest.mark.serial  # other requests' latency to 0.5 s: measured on idle cores
def test_a_15_mb_body_does_not_hold_other_requests(served, keys):
    """15 MB of small nested lists, to E21 and E18: refused as they arrive (413: a
    route's body is at most MAX_WRITE_BODY_BYTES or MAX_QUERY_BODY_BYTES), never parsed.
    The largest E21 body that is read, 2 MB of them, is read on the CPU pool. Meanwhile
    GETs on another connection answer as usual."""
    server, context = served
    body = orjson.dumps({"data": [[123456789] * 9_999 for _ in range(150)]})
    assert len(body) > 14_000_000
    largest = orjson.dumps({"data": [[123456789] * 9_999 for _ in range(20)]})
    assert 1_900_000 < len(largest) < MAX_WRITE_BODY_BYTES
    latencies: list[float] = []
    done = threading.Event()

    def probe() -> None:
        with httpx.Client(verify=context, base_url=server.base, timeout=10) as client:
            while not done.is_set():
                started = time.monotonic()
                assert client.get("/healthz").status_code == 200
                latencies.append(time.monotonic() - started)
                time.sleep(0.02)

    headers = {
        "API-Key": keys.full,
        "Content-Type": "application/json",
        "Experimental-Flags": "unit-attributes-resource, distances",
    }
    with httpx.Client(verify=context, base_url=server.base, timeout=60) as client:
        prober = threading.Thread(target=probe)
        prober.start()
        try:
            started = time.monotonic()
            refused = [
                client.put(ASSIGN, content=body, headers=headers),
                client.post(MATRIX, content=body, headers=headers),
            ]
            read = client.put(ASSIGN, content=largest, headers=headers)
            took = time.monotonic() - started
        finally:
            done.set()
            prober.join()
    for response in refused:
        assert (response.status_code, response.json()) == (
            413,
            {"message": "Request body too large"},
        )
    assert read.status_code == 422
    assert read.json() == {
        "message": "Resource validation failed",
        "fields": {f"data.{index}": ["must be an object"] for index in range(20)},
    }
    assert len(latencies) >= 5, (took, latencies)
    assert max(latencies) < 0.5, (took, sorted(latencies)[-5:])


@pytest.mark.security
async def test_a_keyed_graphql_body_past_a_document_and_small_variables_is_413(client, keys, store):
    """Without `service.admin` (whose maps carry large SVG variables), a /graphql body is
    a document and small variables: past them it is refused unread."""
    plain = (await create_key(store, "reader", [], None)).secret
    padding = "#" + "x" * (2 * 1024 * 1024) + "\n"
    body = {"query": padding + "{ assets { data { id } } }"}
    refused = await client.post("/graphql", json=body, headers={"API-Key": plain})
    assert (refused.status_code, refused.json()) == (413, {"message": "Request body too large"})
    assert refused.headers["connection"] == "close"
    admin = await client.post("/graphql", json=body, headers={"API-Key": keys.full})
    assert admin.status_code == 413  # the document limit (1 MiB), after the body is read
    assert admin.json() == {"message": "GraphQL document too large: at most 1048576 bytes"}
