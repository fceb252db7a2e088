"""The schema's SDL is served at /graphql/schema.graphql without a key, and
docs/schema.graphql is that text (`make generate` writes it after a schema change)."""

from __future__ import annotations

from pathlib import Path

from graphql import build_schema as build_from_sdl
from graphql import lexicographic_sort_schema, print_schema

from rest.graphql_http.sdl import SDL_PATH
from tests.schema.test_compiled_executor import strawberry_schema_of

COMMITTED = Path(__file__).parents[3] / "docs" / "schema.graphql"


async def test_the_sdl_is_served_without_a_key(client, app):
    response = await client.get(SDL_PATH)
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/plain; charset=utf-8"
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["cache-control"] == "private, no-cache"
    schema = strawberry_schema_of(app)
    assert response.text == str(schema).rstrip("\n") + "\n"

    # the text is the schema: built back, it prints as the served schema does
    def printed(graphql_schema):
        return print_schema(lexicographic_sort_schema(graphql_schema))

    assert printed(build_from_sdl(response.text)) == printed(schema._schema)
    again = await client.get(SDL_PATH, headers={"If-None-Match": response.headers["etag"]})
    assert (again.status_code, again.content) == (304, b"")
    head = await client.head(SDL_PATH, headers={"Accept-Encoding": "identity"})  # a length
    assert (head.status_code, head.content) == (200, b"")
    assert head.headers["content-length"] == str(len(response.content))
    post = await client.post(SDL_PATH)
    assert post.status_code == 405


async def test_the_committed_sdl_is_current(client):
    served = (await client.get(SDL_PATH)).text
    assert COMMITTED.read_text() == served, (
        "docs/schema.graphql is not the served schema: run `make generate`"
    )
