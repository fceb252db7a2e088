"""E10 `POST /v1/maps/parse` and GraphQL `parseUnitMap`: one operation, two faces."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import orjson
import pytest

import storage.isolated as isolated
from parsing.limits import SvgLimits
from resolvers.auth.keys import create_key
from resolvers.auth.permissions import UNIT_MAPS_PARSE
from rest.app import create_app
from storage.settings import Settings
from tests.parsing.test_document import CONVENTIONS_EXAMPLE, EXAMPLE_SVG

MAP_XML = {"Content-Type": "application/vnd.map+xml"}
# The input of the example in docs/unit-map-svg.md, and the document it gives.
EXAMPLE_DOCUMENT = orjson.loads(CONVENTIONS_EXAMPLE)
PARSE = "query ($svg: String!) { parseUnitMap(svg: $svg) }"


async def test_parse_returns_the_parsed_document(client, full_headers):
    response = await client.post(
        "/v1/maps/parse", content=EXAMPLE_SVG, headers={**full_headers, **MAP_XML}
    )
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/vnd.map+json"
    assert response.json() == EXAMPLE_DOCUMENT


async def test_parse_accepts_image_svg_xml_and_a_charset(client, full_headers):
    latin = ('<?xml version="1.0" encoding="ISO-8859-1"?>' + EXAMPLE_SVG).replace(
        "Level 2", "Étage 2"
    )
    response = await client.post(
        "/v1/maps/parse",
        content=latin.encode("iso-8859-1"),
        headers={**full_headers, "Content-Type": "image/svg+xml"},
    )
    assert response.status_code == 200
    assert response.json()["elements"][0]["name"] == "Étage 2"
    utf8 = await client.post(
        "/v1/maps/parse",
        content=EXAMPLE_SVG.encode(),
        headers={**full_headers, "Content-Type": "application/vnd.map+xml; charset=utf-8"},
    )
    assert utf8.json() == EXAMPLE_DOCUMENT


async def test_graphql_parse_gives_the_same_document(client, full_headers):
    body = {"query": PARSE, "variables": {"svg": EXAMPLE_SVG}}
    response = await client.post("/graphql", json=body, headers=full_headers)
    assert response.json() == {"data": {"parseUnitMap": EXAMPLE_DOCUMENT}}


@pytest.mark.parametrize(
    ("headers", "content_type", "status", "body"),
    [
        ({}, "application/vnd.map+xml", 401, {"message": "No API key found in request"}),
        (
            "plain",
            "application/vnd.map+xml",
            403,
            {"message": "Access denied: missing permission service.unit-maps.parse"},
        ),
        # Access is checked before the media type.
        (
            "plain",
            "text/plain",
            403,
            {"message": "Access denied: missing permission service.unit-maps.parse"},
        ),
        ("full", "text/plain", 415, {"message": "Content type must be application/vnd.map+xml"}),
        (
            "full",
            "application/json",
            415,
            {"message": "Content type must be application/vnd.map+xml"},
        ),
        ("full", None, 415, {"message": "Content type must be application/vnd.map+xml"}),
    ],
)
async def test_parse_access_and_media_type(client, keys, headers, content_type, status, body):
    sent = {"API-Key": getattr(keys, headers)} if isinstance(headers, str) else {}
    if content_type:
        sent["Content-Type"] = content_type
    response = await client.post("/v1/maps/parse", content=EXAMPLE_SVG, headers=sent)
    assert response.status_code == status
    assert response.json() == body


@pytest.mark.parametrize(
    ("svg", "message"),
    [
        (
            "<svg><g></svg>",
            "malformed XML: Opening and ending tag mismatch: g line 1 and svg (line 1, column 15)",
        ),
        (
            '<?xml version="1.0"?>\n<!DOCTYPE svg [<!ENTITY x SYSTEM "file:///etc/passwd">]>\n'
            "<svg>&x;</svg>",
            'the SVG declares the XML entity "x"; entity declarations are not allowed',
        ),
        (
            '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" '
            'width="10" height="10">\n<use xlink:href="https://evil.example/x.svg#a"/></svg>',
            '<use> refers to "https://evil.example/x.svg#a" outside the SVG; only "#id" '
            "references and data: URIs are allowed (line 2)",
        ),
        ("<html/>", "the root element is <html>, not <svg> (line 1)"),
        ("", "malformed XML: Document is empty (line 1, column 1)"),
    ],
)
async def test_parse_rejects_bad_svg_with_422(client, full_headers, svg, message):
    response = await client.post(
        "/v1/maps/parse", content=svg.encode(), headers={**full_headers, **MAP_XML}
    )
    assert response.status_code == 422
    body = response.json()
    assert body["message"] == "Resource validation failed"
    assert body["fields"] == {"body": [message]}


async def test_parse_rejects_undecodable_text(client, full_headers):
    response = await client.post(
        "/v1/maps/parse", content=b"<svg>\xff</svg>", headers={**full_headers, **MAP_XML}
    )
    assert response.status_code == 422
    assert response.json() == {
        "message": "Resource validation failed",
        "fields": {"body": ["is not valid utf-8 text (byte 5)"]},
    }


async def test_parse_over_the_size_limit_is_413(store, settings, keys):
    small = Settings(
        data_dir=settings.data_dir,
        public_url=settings.public_url,
        database_name=settings.database_name,
        rate_limit_per_second=0,
        svg_limits=SvgLimits(max_bytes=len(EXAMPLE_SVG)),
    )
    transport = httpx.ASGITransport(app=create_app(small, store))
    async with httpx.AsyncClient(transport=transport, base_url="https://testserver") as client:
        headers = {"API-Key": keys.full, **MAP_XML}
        fits = await client.post("/v1/maps/parse", content=EXAMPLE_SVG, headers=headers)
        assert fits.status_code == 200
        over = await client.post("/v1/maps/parse", content=EXAMPLE_SVG + " ", headers=headers)
        assert over.status_code == 413
        assert over.json() == {"message": "Request body too large"}
        # Through GraphQL the parser's own limit answers, as a 422.
        body = {"query": PARSE, "variables": {"svg": EXAMPLE_SVG + " " * 10}}
        graphql = await client.post("/graphql", json=body, headers={"API-Key": keys.full})
        error = graphql.json()["errors"][0]
        assert error["extensions"]["code"] == "BAD_USER_INPUT"
        assert list(error["extensions"]["fields"]) == ["svg"]


async def test_get_on_the_parse_path_is_405_not_a_map_named_parse(client, full_headers):
    response = await client.get("/v1/maps/parse", headers=full_headers)
    assert response.status_code == 405
    assert response.headers["allow"] == "POST"
    assert response.json() == {"message": "Method not allowed"}


async def test_parse_is_deterministic_through_the_route(client, full_headers):
    headers = {**full_headers, **MAP_XML}
    first = await client.post("/v1/maps/parse", content=EXAMPLE_SVG, headers=headers)
    second = await client.post("/v1/maps/parse", content=EXAMPLE_SVG, headers=headers)
    assert first.content == second.content
    assert orjson.loads(first.content) == EXAMPLE_DOCUMENT


async def test_parse_rejects_an_unknown_charset(client, full_headers):
    headers = {**full_headers, "Content-Type": "application/vnd.map+xml; charset=klingon"}
    response = await client.post("/v1/maps/parse", content=EXAMPLE_SVG, headers=headers)
    assert response.status_code == 422
    assert response.json() == {
        "message": "Resource validation failed",
        "fields": {"body": ["unknown character encoding 'klingon'"]},
    }


# Bodies of 1 MiB or more reach the parse workers by a file (storage.isolated.Spooled).

PADDING = 1_200_000  # bytes of white space: a body over SPOOL_BYTES that parses at once
MISMATCH = "Opening and ending tag mismatch: g line 1 and svg"


HEAD = '<svg xmlns="http://www.w3.org/2000/svg" width="7" height="5">'


def padded(tail: str) -> bytes:
    return (HEAD + " " * PADDING + tail).encode()


@pytest.fixture
def spooled(tmp_path, monkeypatch) -> tuple[Path, list[str]]:
    """The spool folder (the test's own) and the files written to it."""
    monkeypatch.setattr(isolated, "SPOOL_DIR", str(tmp_path))
    written: list[str] = []
    spool = isolated._spooled

    def recording(value, known):
        done = spool(value, known)
        written.append("" if done is None else done.path)
        return done

    monkeypatch.setattr(isolated, "_spooled", recording)
    return tmp_path, written


async def test_a_large_body_without_the_permission_is_not_read(client, keys, spooled):
    """403 before the body is read: the client's stream is not drawn on past its start
    (or not at all), and no file is written."""
    pulled = 0

    async def body() -> AsyncIterator[bytes]:
        nonlocal pulled
        for _ in range(40):
            pulled += 1
            yield b" " * 65_536

    response = await client.post(
        "/v1/maps/parse", content=body(), headers={"API-Key": keys.plain, **MAP_XML}
    )
    assert (response.status_code, response.json()) == (
        403,
        {"message": "Access denied: missing permission service.unit-maps.parse"},
    )
    assert pulled <= 1
    folder, written = spooled
    assert written == [] and list(folder.iterdir()) == []


async def test_a_key_scoped_to_another_asset_parses_by_a_file_that_is_removed(
    client, store, spooled
):
    """E10 reads no asset: a key scoped to asset-2 with the permission parses as any key
    would. Its large bodies cross by a file each, answered or refused, and none stays."""
    key = (await create_key(store, "parse-scoped", [UNIT_MAPS_PARSE], ["asset-2"])).secret
    headers = {"API-Key": key, **MAP_XML}
    answered = await client.post("/v1/maps/parse", content=padded("</svg>"), headers=headers)
    assert answered.status_code == 200
    assert (answered.json()["width"], answered.json()["height"]) == (7, 5)
    unclosed = "<g></svg>"
    refused = await client.post("/v1/maps/parse", content=padded(unclosed), headers=headers)
    assert refused.status_code == 422
    column = len(HEAD) + PADDING + len(unclosed) + 1  # just past the document's end
    assert refused.json()["fields"] == {
        "body": [f"malformed XML: {MISMATCH} (line 1, column {column})"]
    }
    folder, written = spooled
    assert len(written) == 2 and all(written)
    assert list(folder.iterdir()) == []
