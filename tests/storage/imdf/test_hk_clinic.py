"""Every place listed once on a Hong Kong-style clinic (issue 65, point 3): Tai Hang
clinic (tests/venues/hk_clinic.py), 44 rooms in English and Traditional Chinese, most
holding an `unspecified` amenity that only names its room, imported through
`import_venue` into the embedded database and read through the real app: one location
per room, the four `Consultation Rm` numbered 1..4 once, search lists each room once in
both languages, and the amenities that say something of their own stay places.

Before the rule, the stack map had 89 locations, 62 of them sharing their floor and
name with another (each room and its amenity); now 52, none.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest_asyncio

from tests.venues.hk_clinic import hk_clinic
from tests.venues.served import served_venue

CLINIC = hk_clinic()
FLAGS = "locations-resource, search"
HONG_KONG = "zh-HK,zh;q=0.9,en;q=0.8"


@dataclass
class Site:
    client: httpx.AsyncClient
    headers: dict[str, str]
    report: list[str]  # the import's report lines


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def site(db_server, settings) -> AsyncIterator[Site]:
    async with served_venue(db_server, settings, CLINIC.venue.files()) as served:
        yield Site(served.client, served.headers(FLAGS), served.dataset.report.lines())


async def get(site: Site, path: str, **headers: str) -> Any:
    response = await site.client.get(path, headers={**site.headers, **headers})
    assert response.status_code == 200, response.text
    return response.json()


def tags_of(location: dict[str, Any]) -> dict[str, str]:
    return {tag["key"]: tag["value"] for tag in location["tags"]}


def unit_of(location: dict[str, Any]) -> str:
    """The room a location is, or stands in (an entrance: its own opening)."""
    tags = tags_of(location)
    own = location["id"].split("@")[0]
    return tags.get("svc:id") or UNIT_OF.get(own, own)


UNIT_OF = {f["id"]: f["properties"]["unit_ids"][0] for f in CLINIC.venue.features["amenity"]}


async def test_each_room_is_one_location_and_no_room_holds_a_name_twice(site: Site):
    ground = CLINIC.levels["G"]
    for unit_map in (CLINIC.venue_id, ground, CLINIC.levels["1"]):
        for language in ("en", HONG_KONG):
            path = f"/v1/maps/{unit_map}/locations?per-page=100"
            found = (await get(site, path, **{"Accept-Language": language}))["data"]
            by_unit = Counter((unit_of(loc), loc["name"]) for loc in found)
            assert [key for key, count in by_unit.items() if count > 1] == []
            # the ground floor's entrance is a place too (issue 66, point 5)
            assert len(found) == {CLINIC.venue_id: 53, ground: 28}.get(unit_map, 25)
            names = Counter((loc["floors"][0]["id"], loc["name"]) for loc in found)
            assert names.most_common(1)[0][1] == 1  # no floor lists a name twice either
    found = (await get(site, f"/v1/maps/{ground}/locations?per-page=100"))["data"]
    amenities = sorted(
        loc["name"] for loc in found if ("imdf:feature", "amenity") in tags_of(loc).items()
    )
    assert amenities == ["Drinking Fountain", "Enquiry Counter", "Nurse Station"]
    consult = sorted(loc["name"] for loc in found if "Consultation" in loc["name"])
    assert consult == [f"Consultation Rm {n}" for n in (1, 2, 3, 4)]


async def test_a_merged_amenity_finds_its_room_by_its_id(site: Site):
    amenity = CLINIC.amenities["G:consult-3"]
    ground = CLINIC.levels["G"]
    found = await get(site, f"/v1/maps/{ground}/locations?tags=imdf:amenity=={amenity}")
    assert [loc["id"] for loc in found["data"]] == [f"{ground}:{CLINIC.units['G:consult-3']}"]
    assert found["data"][0]["name"] == "Consultation Rm 3"


async def test_search_lists_each_room_once_in_both_languages(site: Site):
    async def search(q: str, **headers: str) -> list[tuple[str, str]]:
        path = f"/v1/search?q={q}&asset={CLINIC.venue_id}&per-page=50"
        return sorted(
            (item["kind"], item["name"]) for item in (await get(site, path, **headers))["data"]
        )

    assert await search("consultation") == [("unit", f"Consultation Rm {n}") for n in (1, 2, 3, 4)]
    assert await search("診症室", **{"Accept-Language": HONG_KONG}) == [
        ("unit", f"診症室 {n}") for n in (1, 2, 3, 4)
    ]
    assert await search("超聲波室", **{"Accept-Language": HONG_KONG}) == [("unit", "超聲波室")]
    assert await search("面談室") == [("unit", "Interview Rm")]  # the amenity's other name
    assert await search("nurse station") == [("location", "Nurse Station")]
    assert await search("drinking fountain") == [("location", "Drinking Fountain")]
    assert await search("waiting area") == [("unit", "Waiting Area")]


async def test_graphql_search_lists_each_room_once(site: Site):
    query = (
        f'query @lang(tag: "zh-Hant") {{ search(q: "輔導室", asset: "{CLINIC.venue_id}") '
        "{ data { kind name } } }"
    )
    answer = await site.client.post("/graphql", json={"query": query}, headers=site.headers)
    assert answer.status_code == 200, answer.text
    found = sorted((hit["kind"], hit["name"]) for hit in answer.json()["data"]["search"]["data"])
    assert found == [("unit", "輔導室 1"), ("unit", "輔導室 2")]


def test_the_report_counts_the_amenities_merged(site: Site):
    first = "; ".join(CLINIC.amenities[f"G:consult-{n}"] for n in (1, 2, 3))
    assert site.report == [f"amenity merged into its unit: 37 (e.g. {first})"]
