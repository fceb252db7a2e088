"""Bad input is 4xx, never 500: nested JSON on /graphql, integers of any length and in
any script, a repeated `api-key`."""

from __future__ import annotations

import pytest

FAILED = "Resource validation failed"


async def test_deeply_nested_json_on_graphql_is_422(client, keys):
    nested = b"[" * 100_000 + b"]" * 100_000
    body = b'{"query": "{ __typename }", "variables": {"v": ' + nested + b"}}"
    response = await client.post(
        "/graphql", content=body, headers={"API-Key": keys.full, "Content-Type": "application/json"}
    )
    assert (response.status_code, response.json()) == (
        422,
        {"message": FAILED, "fields": {"body": ["Unable to parse request body as JSON"]}},
    )


async def test_deeply_nested_variables_in_a_get_are_422(client, keys):
    """Nested past what the JSON reader follows (1,024), yet within the request target's
    8 KiB once percent-encoded."""
    response = await client.get(
        "/graphql",
        params={"query": "{ __typename }", "variables": '{"v": ' + "[" * 1100 + "]" * 1100 + "}"},
        headers={"API-Key": keys.full},
    )
    assert (response.status_code, response.json()) == (
        422,
        {"message": FAILED, "fields": {"body": ["Unable to parse request body as JSON"]}},
    )


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("9" * 5000, "must be at most 2147483647"),
        ("-" + "9" * 5000, "must be at most 2147483647"),
        ("0" * 5000 + "7", None),  # leading zeros: still 7
        ("2147483648", "must be at most 2147483647"),
        ("\uff11", "must be an integer"),  # fullwidth one
        ("\u0661\u0660", "must be an integer"),  # Arabic-Indic ten
        ("1\u00b2", "must be an integer"),
    ],
)
async def test_integers_of_any_length_and_script(client, keys, value, message):
    response = await client.get(
        "/v1/units", params={"per-page": value}, headers={"API-Key": keys.full}
    )
    if message is None:
        assert response.status_code == 200
        assert response.json()["paging"]["per_page"] == 7
        return
    assert (response.status_code, response.json()) == (
        422,
        {"message": FAILED, "fields": {"per-page": [message]}},
    )


async def test_api_key_twice_in_the_query_is_422(client, keys):
    repeated = {"message": FAILED, "fields": {"api-key": ["must be given once"]}}
    rest = await client.get(f"/v1/assets?api-key={keys.full}&api-key={keys.plain}")
    assert (rest.status_code, rest.json()) == (422, repeated)
    same = await client.get(f"/v1/assets?api-key={keys.full}&api-key={keys.full}")
    assert (same.status_code, same.json()) == (422, repeated)
    graphql = await client.post(
        f"/graphql?api-key={keys.full}&api-key={keys.plain}",
        json={"query": "{ assets { data { id } } }"},
    )
    assert (graphql.status_code, graphql.json()) == (422, repeated)


async def test_header_and_query_key_header_wins(client, keys):
    response = await client.get("/v1/assets?api-key=fg_invented", headers={"API-Key": keys.full})
    assert response.status_code == 200
    assert [asset["id"] for asset in response.json()["data"]] == ["asset-1", "asset-2", "asset-3"]
