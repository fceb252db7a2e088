"""Compressed answers (rest/compression.py, docs/api.md "Compression") through the real
app on the demo property: the parsed map JSON under /files, /v1, /graphql, the SDL,
OpenAPI and the GraphiQL assets (a streamed FileResponse) leave in br or gzip as the
client's Accept-Encoding weighs them, decode to exactly the identity bytes, carry
`Vary: Accept-Encoding` and an ETag with the coding's suffix that revalidates to 304;
small answers, HEAD, Range, images and the event stream of live changes are left as
they are (the stream still streams, event by event).

Bodies are read raw (`aiter_raw`) and decoded here, so what is checked is the bytes on
the wire, not httpx's decoding.
"""

from __future__ import annotations

import asyncio
import gzip
from pathlib import Path

import brotli
import httpx
import orjson
import pytest
import pytest_asyncio
from starlette.applications import Starlette
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from resolvers.auth.permissions import ALL_FLAGS
from rest.compression import COMPRESS_ON_LOOP_BYTES, MIN_BYTES, Compression, compress, negotiate
from rest.graphql_http.graphiql import GRAPHIQL_STATIC_DIR, GRAPHIQL_STATIC_PREFIX
from rest.graphql_http.sdl import SDL_PATH
from storage.files import delete_files, get_file, put_file
from tests.rest.graphql_http.test_subscriptions import FLAG, GROUP, item, live_group, write
from tests.streams import event_stream

__all__ = ["live_group"]  # the fixture of the live changes' test
IDENTITY = {"Accept-Encoding": "identity"}
BROWSER = "gzip, deflate, br, zstd"  # what Chromium asks for
CHANGES = f"/v1/units/attribute-groups/{GROUP}/units/changes?asset=asset-1"


async def raw(
    client: httpx.AsyncClient, url: str, method: str = "GET", **headers: str
) -> tuple[httpx.Response, bytes]:
    """The answer and its body as sent (not decoded)."""
    async with client.stream(method, url, headers=headers) as response:
        body = b"".join([chunk async for chunk in response.aiter_raw()])
    return response, body


def decoded(response: httpx.Response, body: bytes) -> bytes:
    coding = response.headers.get("content-encoding")
    if coding == "gzip":
        return gzip.decompress(body)
    if coding == "br":
        return brotli.decompress(body)
    assert coding is None, coding
    return body


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def map_json(demo) -> tuple[str, bytes, str]:
    """The path of the demo's largest parsed map document, its stored bytes and tag."""
    maps = await demo.client.get("/v1/maps", headers={**demo.headers(), **IDENTITY})
    urls = [
        unit_map["url"].removeprefix(demo.settings.public_url) for unit_map in maps.json()["data"]
    ]
    stored = [await get_file(demo.store, url.removeprefix("/files/")) for url in urls]
    path, file = max(zip(urls, stored, strict=True), key=lambda pair: len(pair[1].data))
    assert file.content_type == "application/vnd.map+json"
    assert len(file.data) > 40_000  # the demo building's whole map
    return path, file.data, file.etag


# ------------------------------------------------------------------------- negotiation


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        (None, (None, False)),  # no header: identity, as browsers and proxies expect
        ("", (None, False)),
        ("identity", (None, False)),
        ("gzip", ("gzip", False)),
        ("x-gzip", ("gzip", False)),
        ("GZip;Q=1", ("gzip", False)),
        ("deflate", (None, False)),
        (BROWSER, ("br", False)),
        ("gzip, br", ("br", False)),  # equal weights: br
        ("br;q=0, gzip", ("gzip", False)),
        ("gzip;q=0.5, br;q=0.4", ("gzip", False)),  # the client's weights first
        ("gzip;q=0.5, br;q=0.5", ("br", False)),
        ("gzip;q=0", (None, False)),
        ("*", ("br", False)),
        ("*;q=0.3, br;q=0", ("gzip", False)),
        ("*;q=0", (None, True)),
        ("*;q=0, identity", (None, False)),
        ("gzip, identity;q=0", ("gzip", True)),
        ("br;q=x, gzip", ("gzip", False)),  # a weight that does not parse: ignored
        ("br;q=2, gzip;q=0.1", ("gzip", False)),  # out of range: ignored
    ],
)
def test_the_coding_follows_the_clients_weights(header, expected):
    assert negotiate(header) == expected


# ------------------------------------------------------------------ the parsed map JSON


@pytest.mark.parametrize(
    ("accept", "coding"),
    [("identity", None), ("gzip", "gzip"), (BROWSER, "br"), ("br;q=0, gzip", "gzip")],
)
async def test_the_parsed_map_json_arrives_compressed(demo, map_json, accept, coding):
    path, stored, tag = map_json
    response, body = await raw(demo.client, path, **{"Accept-Encoding": accept})
    assert response.status_code == 200
    assert response.headers.get("content-encoding") == coding
    assert response.headers["vary"] == "Accept-Encoding"
    assert response.headers["content-type"] == "application/vnd.map+json"
    assert response.headers["content-length"] == str(len(body))
    assert response.headers["etag"] == (f'"{tag}-{coding}"' if coding else f'"{tag}"')
    assert response.headers["cache-control"] == "public, max-age=31536000, immutable"
    assert decoded(response, body) == stored  # byte for byte
    if coding:
        assert len(body) < len(stored) / 5  # measured: 45,339 bytes to 4,088 (gzip)


async def test_the_tag_of_either_representation_revalidates(demo, map_json):
    path, stored, tag = map_json
    plain, zipped, brotli_tag = f'"{tag}"', f'"{tag}-gzip"', f'"{tag}-br"'
    cases = [
        ("gzip", zipped, zipped),  # the tag the gzip answer carried
        ("gzip", f"W/{zipped}", zipped),
        ("gzip", plain, plain),  # the identity answer's tag is still good
        ("identity", zipped, zipped),  # the client holds the same bytes, decoded
        (BROWSER, f"{zipped}, {brotli_tag}", brotli_tag),  # of several: this request's coding
        (BROWSER, f'"other", {zipped}', zipped),
        ("gzip", "*", plain),
    ]
    for accept, if_none_match, etag in cases:
        for method in ("GET", "HEAD"):
            response, body = await raw(
                demo.client,
                path,
                method,
                **{"Accept-Encoding": accept, "If-None-Match": if_none_match},
            )
            assert (response.status_code, body) == (304, b""), (accept, if_none_match, method)
            assert response.headers["etag"] == etag, (accept, if_none_match)
            assert response.headers["vary"] == "Accept-Encoding"
            assert "content-encoding" not in response.headers
    for other in (f'"{tag}-zstd"', f'"{tag}x-gzip"', '"other-gzip"', f'"{tag[:-1]}-br"'):
        response, body = await raw(
            demo.client, path, **{"Accept-Encoding": "gzip", "If-None-Match": other}
        )
        assert response.status_code == 200, other
        assert response.headers["etag"] == zipped
        assert decoded(response, body) == stored


async def test_if_none_match_over_two_lines(demo, map_json):
    path, _, tag = map_json
    lines = [("Accept-Encoding", "gzip"), ("If-None-Match", '"other"')]
    lines.append(("If-None-Match", f'"{tag}-gzip"'))
    response = await demo.client.get(path, headers=lines)
    assert (response.status_code, response.headers["etag"]) == (304, f'"{tag}-gzip"')


async def test_head_names_the_coding_a_get_would_have(demo, map_json):
    path, stored, tag = map_json
    head, body = await raw(demo.client, path, "HEAD", **{"Accept-Encoding": "gzip"})
    assert (head.status_code, body) == (200, b"")
    assert head.headers["content-encoding"] == "gzip"
    assert head.headers["etag"] == f'"{tag}-gzip"'
    assert head.headers["vary"] == "Accept-Encoding"
    assert "content-length" not in head.headers  # known only once compressed
    head, body = await raw(demo.client, path, "HEAD", **IDENTITY)
    assert (head.status_code, body) == (200, b"")
    assert "content-encoding" not in head.headers
    assert head.headers["etag"] == f'"{tag}"'
    assert head.headers["content-length"] == str(len(stored))


# ----------------------------------------------------------------------- every face


async def test_v1_answers_and_their_tags(demo):
    url = "/v1/units?per-page=100"
    headers = demo.headers(*ALL_FLAGS)
    plain, plain_body = await raw(demo.client, url, **headers, **IDENTITY)
    assert plain.status_code == 200 and len(plain_body) > MIN_BYTES
    answer, body = await raw(demo.client, url, **headers, **{"Accept-Encoding": "gzip"})
    assert answer.headers["content-encoding"] == "gzip"
    assert answer.headers["vary"] == "Accept-Language, Accept-Encoding"
    assert answer.headers["cache-control"] == "private, no-cache"
    assert answer.headers["etag"] == plain.headers["etag"][:-1] + '-gzip"'
    assert decoded(answer, body) == plain_body
    again, body = await raw(
        demo.client,
        url,
        **headers,
        **{"Accept-Encoding": "gzip", "If-None-Match": answer.headers["etag"]},
    )
    assert (again.status_code, body, again.headers["etag"]) == (304, b"", answer.headers["etag"])


@pytest.mark.security
async def test_a_keyed_answer_is_never_kept_compressed(demo):
    """Only answers a shared cache may keep (`public`, `immutable`) are kept compressed:
    a keyed, private answer (what one key may see) never enters the process's cache,
    where another key's request for the same path could be served from it."""
    from rest import compression

    before = compression.ENCODED.figures()["entries"]
    for _ in range(2):
        answer, _ = await raw(
            demo.client,
            "/v1/units?per-page=100",
            **demo.headers(*ALL_FLAGS),
            **{"Accept-Encoding": "br"},
        )
        assert answer.headers["content-encoding"] == "br"
        assert answer.headers["cache-control"] == "private, no-cache"
    assert compression.ENCODED.figures()["entries"] == before


@pytest.mark.parametrize("method", ["GET", "POST"])
async def test_graphql_answers(demo, method):
    query = "{ units(perPage: 100) { data { id name assetId } } }"
    request = {"params": {"query": query}} if method == "GET" else {"json": {"query": query}}
    answers = {}
    for accept in ("identity", "br"):
        response = await demo.client.request(
            method, "/graphql", headers={**demo.headers(), "Accept-Encoding": accept}, **request
        )
        assert response.status_code == 200
        answers[accept] = response
    plain, compressed = answers["identity"], answers["br"]
    assert "content-encoding" not in plain.headers
    assert compressed.headers["content-encoding"] == "br"
    assert compressed.headers["vary"] == "Accept-Language, Accept-Encoding"
    assert int(compressed.headers["content-length"]) < len(plain.content) / 4
    assert compressed.content == plain.content  # httpx decoded it
    assert len(orjson.loads(plain.content)["data"]["units"]["data"]) == 100


@pytest.mark.parametrize(
    ("path", "media_type"),
    [
        (SDL_PATH, "text/plain"),
        ("/v1/openapi.json", "application/json"),
        ("/v1/openapi.yaml", "application/yaml"),
    ],
)
async def test_documents(demo, path, media_type):
    _, plain_body = await raw(demo.client, path, **IDENTITY)
    response, body = await raw(demo.client, path, **{"Accept-Encoding": "gzip"})
    assert response.headers["content-type"].startswith(media_type)
    assert response.headers["content-encoding"] == "gzip"
    assert response.headers["content-length"] == str(len(body))
    assert decoded(response, body) == plain_body
    assert len(body) < len(plain_body) / 3


async def test_small_answers_are_left_as_they_are(demo):
    response, body = await raw(demo.client, "/healthz", **{"Accept-Encoding": BROWSER})
    assert (body, response.headers["content-length"]) == (b'{"status":"ok"}', "15")
    assert "content-encoding" not in response.headers
    assert response.headers["vary"] == "Accept-Encoding"  # a client refusing identity gets gzip:
    response, body = await raw(demo.client, "/healthz", **{"Accept-Encoding": "gzip, identity;q=0"})
    assert response.headers["content-encoding"] == "gzip"
    assert gzip.decompress(body) == b'{"status":"ok"}'


async def test_an_error_over_a_kilobyte_is_compressed(demo):
    """Our JSON error format: a 422 naming each of 200 wrong items."""
    items = [{"group_id": 1, "attribute_id": [], "asset_id": {}, "unit_id": None}] * 200
    url = "/v1/units/attribute-groups/features/units"
    headers = {**demo.headers("unit-attributes-resource"), "Content-Type": "application/json"}
    plain = await demo.client.put(
        url, content=orjson.dumps({"data": items}), headers={**headers, **IDENTITY}
    )
    assert plain.status_code == 422 and len(plain.content) > MIN_BYTES
    assert set(orjson.loads(plain.content)) == {"message", "fields"}
    compressed = await demo.client.put(
        url, content=orjson.dumps({"data": items}), headers={**headers, "Accept-Encoding": "br"}
    )
    assert compressed.status_code == 422
    assert compressed.headers["content-encoding"] == "br"
    assert compressed.content == plain.content


async def test_a_streamed_static_file_is_compressed_once_and_ranges_are_not(demo):
    """GraphiQL's stylesheet (415 KiB) leaves Starlette's FileResponse in 64 KiB chunks;
    a public static file is held whole (up to KEEP_WHOLE_BYTES), compressed once and
    kept (ENCODED), so it goes with its length, as compressed whole."""
    url = f"{GRAPHIQL_STATIC_PREFIX}/graphiql.min.css"
    on_disk = (Path(GRAPHIQL_STATIC_DIR) / "graphiql.min.css").read_bytes()
    plain, plain_body = await raw(demo.client, url, **IDENTITY)
    assert plain_body == on_disk
    response, body = await raw(demo.client, url, **{"Accept-Encoding": BROWSER})
    assert response.status_code == 200
    assert response.headers["content-encoding"] == "br"
    assert response.headers["content-length"] == str(len(body))
    assert response.headers["etag"] == plain.headers["etag"][:-1] + '-br"'
    assert brotli.decompress(body) == on_disk
    assert body == compress("br", on_disk)
    kept, kept_body = await raw(demo.client, url, **{"Accept-Encoding": BROWSER})
    assert (kept.status_code, kept_body, kept.headers["etag"]) == (
        200,
        body,
        response.headers["etag"],
    )
    again, body = await raw(
        demo.client, url, **{"Accept-Encoding": BROWSER, "If-None-Match": response.headers["etag"]}
    )
    assert (again.status_code, body) == (304, b"")
    part, body = await raw(demo.client, url, **{"Accept-Encoding": BROWSER, "Range": "bytes=0-99"})
    assert (part.status_code, body) == (206, on_disk[:100])
    assert "content-encoding" not in part.headers


async def test_images_are_not_compressed(demo):
    """A stored image (2 KiB, over MIN_BYTES) leaves as it is, without Vary."""
    name = "tests/compression/pixel.png"
    image = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 8
    await put_file(demo.store, name, image, "image/png", immutable=True)
    try:
        response, body = await raw(demo.client, f"/files/{name}", **{"Accept-Encoding": BROWSER})
    finally:
        await delete_files(demo.store, [name])
    assert (response.status_code, body) == (200, image)
    assert response.headers["content-type"] == "image/png"
    assert "content-encoding" not in response.headers and "vary" not in response.headers
    assert response.headers["content-length"] == str(len(image))


async def test_the_event_stream_of_live_changes_is_not_compressed(app, client, keys, live_group):
    headers = {"API-Key": keys.full, "Experimental-Flags": FLAG, "Accept-Encoding": BROWSER}
    async with event_stream(app, CHANGES, headers) as stream:
        assert stream.status == 200
        assert stream.headers["content-type"].startswith("text/event-stream")
        assert "content-encoding" not in stream.headers
        assert await stream.event() == b"retry: 2000"  # before the stream ends: streamed
        await asyncio.sleep(0.3)
        await write(client, keys.full, [item("city", "u-007")])
        event = await stream.event()
        assert not stream.task.done()
    assert event.split(b"\n")[1] == b"event: assigned"


# -------------------------------------------------------- the middleware, on its own


def streaming_app(chunks: list[bytes], media_type: str = "application/json") -> Compression:
    async def body():
        for chunk in chunks:
            yield chunk
            await asyncio.sleep(0)

    async def streamed(request):
        return StreamingResponse(body(), media_type=media_type, headers={"ETag": '"t"'})

    async def whole(request):
        return Response(b"".join(chunks), media_type=media_type)

    return Compression(Starlette(routes=[Route("/streamed", streamed), Route("/whole", whole)]))


@pytest.mark.parametrize("coding", ["gzip", "br"])
async def test_a_stream_leaves_chunk_by_chunk_and_large_bodies_decode_whole(coding):
    chunks = [b"[", b'{"a":1},' * 200, b'{"b":2},' * (COMPRESS_ON_LOOP_BYTES // 4), b"0]"]
    expected = b"".join(chunks)
    sent: list[dict] = []
    app = streaming_app(chunks)

    requested = asyncio.Event()

    async def receive():
        if requested.is_set():
            await asyncio.Future()  # never disconnects
        requested.set()
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message):
        sent.append(message)

    scope = {
        "type": "http",
        "method": "GET",
        "path": "/streamed",
        "raw_path": b"/streamed",
        "query_string": b"",
        "headers": [(b"accept-encoding", coding.encode())],
        "scheme": "https",
        "server": ("testserver", 443),
    }
    await app(scope, receive, send)
    start, *bodies = sent
    headers = dict(start["headers"])
    assert headers[b"content-encoding"] == coding.encode()
    assert headers[b"etag"] == f'"t-{coding}"'.encode()
    assert b"content-length" not in headers
    # The first two chunks together pass MIN_BYTES: one part, then one per chunk, then
    # StreamingResponse's empty last one.
    assert [bool(part.get("more_body")) for part in bodies] == [True, True, True, False]
    joined = b"".join(part["body"] for part in bodies)
    assert (gzip.decompress(joined) if coding == "gzip" else brotli.decompress(joined)) == expected
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="https://testserver") as client:
        whole, body = await raw(client, "/whole", **{"Accept-Encoding": coding})
    assert whole.headers["content-length"] == str(len(body))  # over the loop's bound: the pool
    assert decoded(whole, body) == expected


async def test_a_short_stream_leaves_as_it_is():
    transport = httpx.ASGITransport(app=streaming_app([b'{"a":', b"1}"]))
    async with httpx.AsyncClient(transport=transport, base_url="https://testserver") as client:
        response, body = await raw(client, "/streamed", **{"Accept-Encoding": "gzip"})
    assert (body, response.headers["etag"]) == (b'{"a":1}', '"t"')
    assert "content-encoding" not in response.headers


def immutable_app(bodies: dict[str, bytes]) -> Compression:
    """Immutable answers that share one ETag (as Starlette's static files of equal size
    and time do)."""

    async def answer(request):
        return Response(
            bodies[request.url.path],
            media_type="application/json",
            headers={"ETag": '"same"', "Cache-Control": "public, max-age=31536000, immutable"},
        )

    return Compression(Starlette(routes=[Route(path, answer) for path in bodies]))


async def test_an_immutable_answer_is_compressed_once_per_process(monkeypatch):
    """A keyless client holding a /files address cannot make the server compress the
    same document again and again: the compressed body is kept, by path and tag."""
    from rest import compression

    compression.ENCODED.entries.clear()
    compression.ENCODED.bytes = 0
    runs: list[int] = []
    original = compression.Encoder.chunk

    def counting(self, data: bytes, last: bool) -> bytes:
        runs.append(len(data))
        return original(self, data, last)

    monkeypatch.setattr(compression.Encoder, "chunk", counting)
    first = orjson.dumps({"units": [{"id": f"u{n}", "name": f"Unit {n}"} for n in range(300)]})
    second = orjson.dumps({"units": [{"id": f"v{n}", "name": f"Room {n}"} for n in range(300)]})
    app = immutable_app({"/a.json": first, "/b.json": second})
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="https://testserver") as client:
        answers = [
            await raw(client, path, **{"Accept-Encoding": coding})
            for path in ("/a.json", "/b.json", "/a.json", "/b.json")
            for coding in ("br", "gzip", "br")
        ]
    # Two paths x two codings compressed once each, though both paths share their ETag.
    assert sorted(runs) == sorted([len(first), len(first), len(second), len(second)])
    for (response, body), path in zip(
        answers, ["/a.json"] * 3 + ["/b.json"] * 3 + ["/a.json"] * 3 + ["/b.json"] * 3, strict=True
    ):
        assert decoded(response, body) == (first if path == "/a.json" else second)
    assert compression.ENCODED.figures()["entries"] == 4
    assert compression.ENCODED.bytes <= compression.ENCODED_CACHE_BYTES


async def test_a_burst_for_a_cold_cacheable_file_holds_one_copy():
    """While one answer holds a cacheable streamed file whole to compress it once, another
    request for it streams its own (compressed chunk by chunk) instead of holding a
    second copy; when both are done nothing stays claimed and the file is kept."""
    from rest import compression

    chunks = [orjson.dumps({"n": n, "text": "x" * 4000}) for n in range(8)]
    gate = asyncio.Event()

    async def body():
        for index, chunk in enumerate(chunks):
            if index == 2:
                await gate.wait()  # the first answer is held here, mid-file
            yield chunk

    started: list[int] = []

    async def streamed(request):
        started.append(1)
        return StreamingResponse(
            body(),
            media_type="application/json",
            headers={"ETag": '"burst"', "Cache-Control": "public, max-age=86400"},
        )

    app = Compression(Starlette(routes=[Route("/burst.json", streamed)]))
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="https://testserver") as client:
        first = asyncio.create_task(raw(client, "/burst.json", **{"Accept-Encoding": "br"}))
        while not compression.COMPRESSING:
            await asyncio.sleep(0.001)
        second_task = asyncio.create_task(raw(client, "/burst.json", **{"Accept-Encoding": "br"}))
        while len(started) < 2:
            await asyncio.sleep(0.001)
        for _ in range(20):  # its start goes through the middleware before the gate opens
            await asyncio.sleep(0)
        gate.set()
        second, second_body = await second_task
        held, held_body = await first
    assert "content-length" not in second.headers  # streamed
    assert held.headers["content-length"] == str(len(held_body))  # held whole, compressed once
    assert decoded(second, second_body) == decoded(held, held_body) == b"".join(chunks)
    assert not compression.COMPRESSING
    assert len(compression.ENCODED.entries) >= 1
