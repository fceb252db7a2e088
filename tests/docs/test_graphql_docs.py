"""Every query of docs/graphql.md runs on the demo without an error and finds data."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from resolvers.auth.permissions import ALL_FLAGS

GUIDE = Path(__file__).parents[2] / "docs" / "graphql.md"
QUERIES = re.findall(r"```graphql\n(.*?)```", GUIDE.read_text(encoding="utf-8"), re.S)


def test_the_guide_has_its_worked_examples():
    assert len(QUERIES) == 7


def filled(value: object) -> bool:
    """Every list and object in the answer has something in it."""
    if isinstance(value, dict):
        optional = ("geojsonUrl", "nextPage", "prevPage", "connector", "reason")
        return bool(value) and all(
            filled(item) for key, item in value.items() if key not in optional
        )
    if isinstance(value, list):
        return bool(value) and all(filled(item) for item in value)
    return value is not None


@pytest.mark.parametrize("query", QUERIES, ids=[q.split()[1] for q in QUERIES])
async def test_each_example_answers_with_data(demo, query):
    response = await demo.client.post(
        "/graphql", json={"query": query}, headers=demo.headers(*ALL_FLAGS)
    )
    assert response.status_code == 200
    body = response.json()
    assert "errors" not in body, body["errors"]
    assert filled(body["data"]), body["data"]
