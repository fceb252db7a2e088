"""docs/limits.md and the OpenAPI document agree on every ceiling (issue 63): the one cost
ceiling of both faces, what each route whose price grows with its input says it costs,
the `COST_LIMIT` refusal, and every number the document bounds an input with (a page's
size, a text's length, an id's). Read from the committed files, as a client reads them."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from rest.limits.prices import PRICED_FIELDS, ceiling_words
from rest.limits.rows import count
from rest.v1.routes import ROUTES
from storage.settings import Settings

DOCS = Path(__file__).parents[2] / "docs"
LIMITS = (DOCS / "limits.md").read_text(encoding="utf-8")
OPENAPI: dict[str, Any] = json.loads((DOCS / "openapi.json").read_text(encoding="utf-8"))
BOUNDS = ("maximum", "maxLength", "maxItems")


def operations() -> dict[str, dict[str, Any]]:
    return {
        operation["operationId"]: operation
        for path in OPENAPI["paths"].values()
        for operation in path.values()
    }


def test_both_state_the_one_ceiling():
    ceiling = Settings().graphql_max_cost
    assert ceiling_words(ceiling) in OPENAPI["info"]["description"]
    assert (
        f"more than {ceiling:,} is refused with 422 `COST_LIMIT` on either face"
        in (OPENAPI["info"]["description"])
    )
    row = next(line for line in LIMITS.splitlines() if line.startswith("| One operation, on"))
    assert f"at most {count(ceiling)}" in row and "on both faces" in row
    graphql_row = next(
        line for line in LIMITS.splitlines() if line.startswith("| Cost of one operation")
    )
    assert f"| {count(ceiling)} |" in graphql_row and "REST routes are held to it" in graphql_row


def test_the_cost_refusal_is_documented_for_every_route_that_takes_input():
    response = OPENAPI["components"]["responses"]["422"]
    example = response["content"]["application/json"]["examples"]["COST_LIMIT"]["value"]
    ceiling = Settings().graphql_max_cost
    assert re.fullmatch(
        rf"Query cost \d+ exceeds the limit of {ceiling}: ask for smaller pages or fewer fields",
        example["message"],
    )
    for route in ROUTES:
        if route.params or route.body is not None:
            responses = operations()[route.operation_id]["responses"]
            assert responses["422"] == {"$ref": "#/components/responses/422"}, route.path


def test_every_route_priced_by_its_input_says_so_as_the_table_does():
    said = {field: 0 for field in PRICED_FIELDS}
    for route in ROUTES:
        if route.graphql_field in PRICED_FIELDS:
            description = operations()[route.operation_id]["description"]
            assert PRICED_FIELDS[route.graphql_field] in description, route.path
            said[route.graphql_field] += 1
    assert all(said.values()), said  # each note is some route's
    # Every number a note states is one the page's table of prices states.
    prices = LIMITS[LIMITS.index("<!-- generated: limits prices -->") :]
    for note in PRICED_FIELDS.values():
        for number in re.findall(r"\d[\d,]*", note):
            assert number in prices, (number, note)


def test_every_bound_of_an_input_is_a_limit_of_the_page():
    """Each `maximum`, `maxLength` and `maxItems` of the document, as the page writes
    numbers (`10,000`, `255 characters`)."""
    found: set[int] = set()
    stack: list[Any] = [OPENAPI["paths"]]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            found |= {item[bound] for bound in BOUNDS if isinstance(item.get(bound), int)}
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    assert found >= {255, 10_000, 50, 100}
    for bound in sorted(found):
        stated = {count(bound), str(bound)}
        assert any(number in LIMITS for number in stated), bound
