"""Keys, scope, error rows of the contract, and the order of checks."""

from __future__ import annotations

import pytest

NOT_FOUND = {"message": "Not found"}


async def test_missing_key_is_401(client):
    response = await client.get("/v1/assets")
    assert response.status_code == 401
    assert response.json() == {"message": "No API key found in request"}


async def test_empty_key_counts_as_absent(client):
    response = await client.get("/v1/assets?api-key=", headers={"API-Key": "  "})
    assert response.status_code == 401
    assert response.json() == {"message": "No API key found in request"}


async def test_unknown_key_is_403(client):
    response = await client.get("/v1/assets", headers={"API-Key": "fg_nope"})
    assert response.status_code == 403
    assert response.json() == {"message": "Invalid authentication credentials"}


async def test_disabled_key_is_403(client, keys):
    response = await client.get("/v1/assets", headers={"API-Key": keys.disabled})
    assert response.status_code == 403
    assert response.json() == {"message": "Invalid authentication credentials"}


async def test_query_parameter_key_works(client, keys):
    response = await client.get(f"/v1/assets/asset-1?api-key={keys.full}")
    assert response.status_code == 200
    assert response.json()["id"] == "asset-1"


async def test_header_beats_query_key(client, keys):
    good_header = await client.get("/v1/assets?api-key=fg_wrong", headers={"API-Key": keys.full})
    assert good_header.status_code == 200
    bad_header = await client.get(f"/v1/assets?api-key={keys.full}", headers={"API-Key": "fg_x"})
    assert bad_header.status_code == 403


async def test_scoped_key_lists_only_its_asset(client, keys):
    headers = {"API-Key": keys.scoped}
    assets = await client.get("/v1/assets", headers=headers)
    assert [item["id"] for item in assets.json()["data"]] == ["asset-2"]
    units = await client.get("/v1/units", headers=headers)
    assert {item["asset_id"] for item in units.json()["data"]} == {"asset-2"}
    assert len(units.json()["data"]) == 4
    maps = await client.get("/v1/maps", headers=headers)
    assert [item["id"] for item in maps.json()["data"]] == ["map-3"]
    filtered = await client.get("/v1/maps?asset=asset-1", headers=headers)
    assert filtered.status_code == 200
    assert filtered.json()["data"] == []


@pytest.mark.parametrize(
    "path",
    [
        "/v1/assets/asset-1",
        "/v1/assets/asset-1/floors",
        "/v1/assets/asset-1/floors/f-1",
        "/v1/units/u-001",
        "/v1/maps/map-1",
        "/v1/maps/map-1/backgrounds",
        "/v1/maps/map-1/backgrounds/bg-1",
        "/v1/maps/map-1/levels/tags",
        "/v1/maps/map-1/units",
        "/v1/maps/map-1/units/u-001",
    ],
)
async def test_scoped_key_gets_404_outside_scope(client, keys, path):
    response = await client.get(path, headers={"API-Key": keys.scoped})
    assert response.status_code == 404
    assert response.json() == NOT_FOUND
    # The same path exists for a key with every asset.
    assert (await client.get(path, headers={"API-Key": keys.full})).status_code == 200


async def test_unknown_path_is_json_404(client, full_headers):
    for path in ("/v1/nothing", "/nowhere", "/v1/assets/asset-1/rooms", "/v1//units"):
        response = await client.get(path, headers=full_headers)
        assert response.status_code == 404, path
        assert response.json() == NOT_FOUND


async def test_wrong_method_is_405_with_allow(client, full_headers):
    response = await client.post("/v1/assets", headers=full_headers, json={})
    assert response.status_code == 405
    assert response.json() == {"message": "Method not allowed"}
    assert response.headers["allow"] == "GET, HEAD"
    graphql = await client.delete("/graphql")
    assert graphql.status_code == 405
    assert graphql.json() == {"message": "Method not allowed"}


async def test_order_auth_before_input(client, keys):
    no_key = await client.get(f"/v1/units/{'x' * 300}?page=abc")
    assert no_key.status_code == 401
    bad_key = await client.get("/v1/units?page=abc", headers={"API-Key": "fg_bad"})
    assert bad_key.status_code == 403


async def test_order_input_before_existence(client, full_headers):
    response = await client.get(f"/v1/assets/{'n' * 256}/floors", headers=full_headers)
    assert response.status_code == 422
    assert response.json()["fields"] == {"asset": ["must be at most 255 characters"]}


async def test_tags_filter_over_255_is_422(client, full_headers):
    response = await client.get("/v1/maps?tags=" + "a" * 256, headers=full_headers)
    assert response.status_code == 422
    assert response.json() == {
        "message": "Resource validation failed",
        "fields": {"tags": ["must be at most 255 characters"]},
    }


async def test_tags_filter_with_empty_item_is_422(client, full_headers):
    response = await client.get("/v1/maps?tags=ils,,mls", headers=full_headers)
    assert response.status_code == 422
    assert response.json()["fields"] == {
        "tags": ["must be a comma-separated list without empty items"]
    }


async def test_asset_filter_over_255_is_422(client, full_headers):
    response = await client.get("/v1/maps?asset=" + "a" * 256, headers=full_headers)
    assert response.status_code == 422
    assert response.json()["fields"] == {"asset": ["must be at most 255 characters"]}


async def test_plain_http_is_refused(app):
    import httpx

    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://plain") as plain:
        response = await plain.get("/v1/assets")
        probe = await plain.get("/healthz")
    assert response.status_code == 403
    assert response.json() == {"message": "HTTPS is required"}
    assert probe.status_code == 200  # health probes from a load balancer carry no data


async def test_body_over_limit_is_413(client, settings, full_headers):
    body = b"{" + b" " * settings.max_body_bytes + b"}"
    response = await client.post(
        "/graphql", content=body, headers={**full_headers, "Content-Type": "application/json"}
    )
    assert response.status_code == 413
    assert response.json() == {"message": "Request body too large"}


async def test_every_response_has_a_request_id(client):
    response = await client.get("/v1/assets")
    assert len(response.headers["x-request-id"]) == 16


async def test_head_is_the_get_without_its_body(client, full_headers):
    """RFC 9110 9.3.2: same status and headers as GET, no content."""
    get = await client.get("/v1/assets?per-page=2", headers=full_headers)
    head = await client.head("/v1/assets?per-page=2", headers=full_headers)
    assert (get.status_code, head.status_code) == (200, 200)
    assert head.content == b""
    assert head.headers["content-length"] == str(len(get.content))
    same = {name for name in get.headers if name not in ("x-request-id", "date")}
    assert {name: head.headers.get(name) for name in same} == {
        name: get.headers[name] for name in same
    }
    missing = await client.head("/v1/assets/no-such-asset", headers=full_headers)
    assert (missing.status_code, missing.content) == (404, b"")
    no_key = await client.head("/v1/assets")
    assert (no_key.status_code, no_key.content) == (401, b"")
    post_only = await client.head("/v1/maps/parse", headers=full_headers)
    assert (post_only.status_code, post_only.headers["allow"]) == (405, "POST")


async def test_a_parameter_given_twice_is_refused(client, full_headers):
    response = await client.get(
        "/v1/assets?page=1&page=2&per-page=5&per-page=5", headers=full_headers
    )
    assert response.status_code == 422
    assert response.json() == {
        "message": "Resource validation failed",
        "fields": {"page": ["must be given once"], "per-page": ["must be given once"]},
    }
    unknown_twice = await client.get("/v1/assets?x=1&x=2&per-page=1", headers=full_headers)
    assert unknown_twice.status_code == 200
    assert unknown_twice.json()["paging"]["next_url"].endswith("?x=1&x=2&page=2&per-page=1")
