"""GraphQL paging offers REST's page addresses: `prevUrl`/`nextUrl` of a list are the
`prev_url`/`next_url` REST gives for the same list, filters and page."""

from __future__ import annotations

import pytest

from resolvers.auth.permissions import ALL_FLAGS

# (REST path and query, in the route's parameter order; the GraphQL field with the same
# arguments), on the demo.
CASES = [
    ("/v1/assets?page=1&per-page=1", "assets(page: 1, perPage: 1)"),
    ("/v1/units?page=2&per-page=2", "units(page: 2, perPage: 2)"),
    (
        "/v1/assets/harbor-view/floors?page=2&per-page=1",
        'floors(assetId: "harbor-view", page: 2, perPage: 1)',
    ),
    (
        "/v1/maps?page=1&per-page=1&tags=pathfinding&asset=harbor-view",
        'unitMaps(page: 1, perPage: 1, tags: "pathfinding", assetId: "harbor-view")',
    ),
    (
        "/v1/maps/map-b1-f1/backgrounds?page=1&per-page=1",
        'backgrounds(unitMapId: "map-b1-f1", page: 1, perPage: 1)',
    ),
    (
        "/v1/maps/map-b1-f1/units?page=2&per-page=3",
        'unitMapUnits(unitMapId: "map-b1-f1", page: 2, perPage: 3)',
    ),
    (
        "/v1/assets/references?page=1&per-page=1&asset=harbor-view",
        'assetReferences(page: 1, perPage: 1, assetId: "harbor-view")',
    ),
    (
        "/v1/units/references?page=2&per-page=2&key=realpage",
        'unitReferences(page: 2, perPage: 2, key: "realpage")',
    ),
    (
        "/v1/units/attribute-groups/view/units?page=2&per-page=5&asset=harbor-view",
        'unitAttributeAssignments(groupId: "view", page: 2, perPage: 5, assetId: "harbor-view")',
    ),
]


@pytest.mark.parametrize("rest, field", CASES, ids=[field.split("(")[0] for _, field in CASES])
async def test_page_urls_are_rest_s(demo, rest, field):
    headers = demo.headers(*ALL_FLAGS)
    expected = (await demo.client.get(rest, headers=headers)).json()["paging"]
    query = f"{{ list: {field} {{ paging {{ prevUrl nextUrl }} }} }}"
    answer = (await demo.client.post("/graphql", json={"query": query}, headers=headers)).json()
    assert "errors" not in answer, answer
    paging = answer["data"]["list"]["paging"]
    assert (paging["prevUrl"], paging["nextUrl"]) == (expected["prev_url"], expected["next_url"])
    if not field.startswith("assets"):  # the demo has one asset: no neighbour on REST either
        assert paging["prevUrl"] or paging["nextUrl"]


async def test_the_addresses_are_absolute_on_the_public_url(demo):
    query = '{ floors(assetId: "harbor-view", page: 2, perPage: 1) { paging { prevUrl } } }'
    answer = await demo.client.post("/graphql", json={"query": query}, headers=demo.headers())
    assert answer.json()["data"]["floors"]["paging"]["prevUrl"] == (
        f"{demo.settings.public_url}/v1/assets/harbor-view/floors?page=1&per-page=1"
    )
