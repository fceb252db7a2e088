"""Issue 45, point 8: a bulk write (E21/E22, and their GraphQL mutations) pays for the
documents it wrote, once it ran: one rate-limit unit per WRITTEN_DOCUMENTS_PER_RATE_UNIT,
never refused, so a key writing without pause waits for its bucket instead of holding
the database at a core. Writing what is already there costs the request's unit only."""

from __future__ import annotations

import asyncio
import time
from dataclasses import replace

import httpx
import pytest
import pytest_asyncio

from resolvers.limits import WRITTEN_DOCUMENTS_PER_RATE_UNIT
from rest.app import create_app
from storage import collections as c
from storage.rate_budgets import owe

FLAG = {"Experimental-Flags": "unit-attributes-resource"}
GROUP = "w-charged"
URL = f"/v1/units/attribute-groups/{GROUP}/units"
ASSIGN = (
    "mutation ($data: [UnitAttributeAssignmentInput!]!) "
    f'{{ assignUnitAttributes(groupId: "{GROUP}", data: $data) {{ unitId }} }}'
)


def items(count: int, first: int = 0) -> list[dict[str, str]]:
    """`count` distinct assignments to unit u-001, from attribute `first` on."""
    return [
        {"group_id": GROUP, "attribute_id": f"a{n:03d}", "asset_id": "asset-1", "unit_id": "u-001"}
        for n in range(first, first + count)
    ]


@pytest_asyncio.fixture(loop_scope="session")
async def charged_group(store):
    """A group of 300 attributes of its own, without assignments; buckets full."""
    await store[c.RATE_BUDGETS].delete_many({})
    attributes = [
        {"attribute_id": f"a{n:03d}", "attribute_name": f"A{n}", "attribute_key": f"a{n}"}
        for n in range(300)
    ]
    group = {"_id": GROUP, "group_name": "Charged", "one_attribute_per_unit": False}
    await store[c.ATTRIBUTE_GROUPS].replace_one(
        {"_id": GROUP}, {**group, "attributes": attributes}, upsert=True
    )
    await store[c.ASSIGNMENTS].delete_many({"group_id": GROUP})
    yield GROUP
    await store[c.ASSIGNMENTS].delete_many({"group_id": GROUP})
    await store[c.ATTRIBUTE_GROUPS].delete_one({"_id": GROUP})
    await store[c.RATE_BUDGETS].delete_many({})


def camel(assignments: list[dict[str, str]]) -> list[dict[str, str]]:
    """The items as GraphQL's input names them."""
    names = {"group_id": "groupId", "attribute_id": "attributeId", "asset_id": "assetId"}
    return [
        {names.get(name, "unitId"): value for name, value in item.items()} for item in assignments
    ]


def limited_client(store, settings, burst: int) -> httpx.AsyncClient:
    """A client of an app whose keys refill one token in 100 s: what a test spends stays
    spent."""
    app = create_app(replace(settings, rate_limit_per_second=0.01, rate_limit_burst=burst), store)
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="https://t")


def remaining(response: httpx.Response) -> int:
    return int(response.headers["ratelimit-remaining"])


@pytest.mark.security
async def test_a_write_is_charged_the_documents_it_wrote(store, settings, keys, charged_group):
    """100 new assignments write 100 assignments and 100 events: 40 units after the
    request's one; the same body again writes nothing: one; removing them, 40."""
    assert WRITTEN_DOCUMENTS_PER_RATE_UNIT == 5
    headers = {"API-Key": keys.full, **FLAG}
    async with limited_client(store, settings, burst=400) as client:
        added = await client.put(URL, json={"data": items(100)}, headers=headers)
        again = await client.put(URL, json={"data": items(100)}, headers=headers)
        removed = await client.put(f"{URL}/remove", json={"data": items(100)}, headers=headers)
        nothing = await client.put(f"{URL}/remove", json={"data": items(100)}, headers=headers)
    assert [r.status_code for r in (added, again, removed, nothing)] == [200, 200, 204, 204]
    assert [remaining(r) for r in (added, again, removed, nothing)] == [359, 358, 317, 316]
    assert await store[c.ASSIGNMENTS].count_documents({"group_id": GROUP}) == 0


@pytest.mark.security
async def test_a_graphql_write_is_charged_the_same(store, settings, keys, charged_group):
    headers = {"API-Key": keys.full, **FLAG}
    async with limited_client(store, settings, burst=400) as client:
        answer = await client.post(
            "/graphql",
            json={"query": ASSIGN, "variables": {"data": camel(items(50))}},
            headers=headers,
        )
    assert answer.status_code == 200, answer.text
    assert len(answer.json()["data"]["assignUnitAttributes"]) == 50, answer.text
    assert remaining(answer) == 400 - 1 - 20
    assert await store[c.ASSIGNMENTS].count_documents({"group_id": GROUP}) == 50


@pytest.mark.security
async def test_a_write_past_the_bucket_is_done_then_the_key_waits(
    store, settings, keys, charged_group
):
    """A key with 50 tokens writes 100 new assignments (41 units) and 100 more: the
    second is admitted on its one unit and written, its 40 leave the bucket 32 units in
    debt; the key's next request waits for 33 tokens at one per 100 s. Another key is
    served as before."""
    headers = {"API-Key": keys.full, **FLAG}
    async with limited_client(store, settings, burst=50) as client:
        first = await client.put(URL, json={"data": items(100)}, headers=headers)
        second = await client.put(URL, json={"data": items(100, first=100)}, headers=headers)
        refused = await client.get("/v1/assets", headers={"API-Key": keys.full})
        other = await client.get("/v1/assets", headers={"API-Key": keys.plain})
    assert [first.status_code, second.status_code] == [200, 200]
    assert await store[c.ASSIGNMENTS].count_documents({"group_id": GROUP}) == 200
    assert remaining(second) == 0
    assert refused.status_code == 429
    assert refused.json() == {"message": "API rate limit exceeded"}
    assert 3290 <= int(refused.headers["retry-after"]) <= 3300
    assert other.status_code == 200


@pytest.mark.security
async def test_debts_on_one_bucket_are_all_counted(store):
    """Twenty debts at once on one bucket, new and then not full: every one moves it
    (one atomic update each, as a spend is)."""
    bucket = "owed-test"
    budgets = store[c.RATE_BUDGETS]
    await budgets.delete_many({"_id": bucket})
    now = time.time()
    found = await asyncio.gather(*(owe(budgets, bucket, 1.0, 0.5, now) for _ in range(20)))
    stored = await budgets.find_one({"_id": bucket})
    await budgets.delete_many({"_id": bucket})
    assert None not in found
    assert stored is not None
    assert stored["tat"] == pytest.approx(now + 10.0)
    assert stored["expires_at"].timestamp() == pytest.approx(now + 10.0 + 60.0, abs=0.01)


@pytest.mark.security
async def test_a_write_refused_by_scope_writes_and_owes_nothing(store, settings, charged_group):
    """A key scoped to another asset writing this asset's units: refused before anything
    is written, charged its request's one token only."""
    from resolvers.auth.keys import create_key
    from resolvers.auth.permissions import UNIT_ATTRIBUTES_WRITE

    other = (await create_key(store, "w-other", [UNIT_ATTRIBUTES_WRITE], ["asset-2"])).secret
    async with limited_client(store, settings, burst=400) as client:
        refused = await client.put(
            URL, json={"data": items(100)}, headers={"API-Key": other, **FLAG}
        )
    assert refused.status_code == 422, refused.text  # the units do not exist for this key
    assert refused.json()["fields"]["data.0.unit_id"] == ["no unit 'u-001' in asset 'asset-1'"]
    assert remaining(refused) == 399
    assert await store[c.ASSIGNMENTS].count_documents({"group_id": GROUP}) == 0
