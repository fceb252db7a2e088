"""End to end: `floorgate serve` over TLS sends the demo's parsed map JSON compressed, as
a browser asks for it (docs/api.md, "Compression"); a client that asks for nothing
gets the bytes as stored, and the compressed answer's tag revalidates."""

from __future__ import annotations

import gzip
import ssl

import brotli
import httpx
import pytest

from tests.servers import own_demo_database, serve_tls

pytestmark = pytest.mark.e2e
BROWSER = "gzip, deflate, br, zstd"  # Chromium's Accept-Encoding


async def test_the_demo_map_json_arrives_compressed_over_tls(db_server, tmp_path):
    async with own_demo_database(db_server, tmp_path, "floorgate_compression_e2e") as demo:
        settings, key = demo
        with serve_tls(settings.data_dir, db_server, settings) as served:
            tls = ssl.create_default_context(cafile=str(served.certs.ca_cert))
            async with httpx.AsyncClient(base_url=served.base, verify=tls, timeout=10) as client:
                maps = await client.get("/v1/maps", headers={"API-Key": key})
                path = maps.json()["data"][0]["url"].removeprefix(served.base)
                plain = await client.get(path, headers={"Accept-Encoding": "identity"})
                wire: dict[str, tuple[httpx.Response, bytes]] = {}
                for accept in (BROWSER, "gzip"):
                    async with client.stream("GET", path, headers={"Accept-Encoding": accept}) as r:
                        wire[accept] = (r, b"".join([part async for part in r.aiter_raw()]))
                etag = wire[BROWSER][0].headers["etag"]
                again = await client.get(
                    path, headers={"Accept-Encoding": BROWSER, "If-None-Match": etag}
                )
    assert plain.status_code == 200 and "content-encoding" not in plain.headers
    assert plain.headers["content-type"] == "application/vnd.map+json"
    assert len(plain.content) > 10_000
    (br, br_body), (gz, gz_body) = wire[BROWSER], wire["gzip"]
    assert (br.headers["content-encoding"], gz.headers["content-encoding"]) == ("br", "gzip")
    assert br.headers["vary"] == gz.headers["vary"] == "Accept-Encoding"
    assert brotli.decompress(br_body) == gzip.decompress(gz_body) == plain.content
    assert len(br_body) < len(gz_body) < len(plain.content) / 5
    assert etag == plain.headers["etag"][:-1] + '-br"'
    assert (again.status_code, again.headers["etag"]) == (304, etag)
