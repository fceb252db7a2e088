"""Category words in every language of directions (issue 66, point 6): on a Hong Kong
clinic, 樓梯 found the stairs (their names) but 洗手間, 廁所 and 升降機 found nothing,
the table's words being English only. Now each row of `resolvers/search/categories.py`
has its words in each language `routing.vocabulary` speaks, and a visitor's word finds
what the English one finds, whatever the language of the venue's names.

The clinic is Tai Hang (tests/venues/hk_clinic.py): its toilets, lifts and stairs are
unnamed units of IMDF categories `restroom.male` and `restroom.female`, `elevator` and
`stairs`, on two levels, imported through `import_venue` and searched through the app."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from urllib.parse import quote

import httpx
import pytest
import pytest_asyncio

from resolvers.search.categories import CATEGORIES, CATEGORY_ROWS
from resolvers.search.text import phrase
from routing.vocabulary import SUPPORTED
from tests.venues.hk_clinic import hk_clinic
from tests.venues.served import served_venue

CLINIC = hk_clinic()
HONG_KONG = "zh-HK,zh;q=0.9,en;q=0.8"
# kind -> its units on the clinic, the English word, and words of each other language
# (as a visitor types them: capitals, accents)
ASKED: dict[str, tuple[tuple[str, ...], str, dict[str, tuple[str, ...]]]] = {
    "restroom": (
        ("G:toilet-m", "G:toilet-f", "1:toilet-m", "1:toilet-f"),
        "toilet",
        {
            "zh-Hant": ("洗手間", "廁所"),
            "zh-Hans": ("洗手间", "厕所"),
            "fr": ("Toilettes",),
            "de": ("Toilette", "WC"),
            "es": ("Baños", "aseos"),
        },
    ),
    "elevator": (
        ("G:lift", "1:lift"),
        "lift",
        {
            "zh-Hant": ("升降機", "電梯"),
            "zh-Hans": ("电梯",),
            "fr": ("Ascenseur",),
            "de": ("Aufzug", "Aufzüge"),
            "es": ("ascensor",),
        },
    ),
    "stairs": (
        ("G:stairs", "1:stairs"),
        "stairs",
        {
            "zh-Hant": ("樓梯",),
            "zh-Hans": ("楼梯",),
            "fr": ("Escalier",),
            "de": ("Treppe",),
            "es": ("Escaleras",),
        },
    ),
}


def test_every_row_has_words_in_every_language_of_directions():
    for row in CATEGORIES:
        tags = [tag for tag, _ in row.languages]
        assert tags == ["en", *(tag for tag in SUPPORTED if tag != "en")], row.name
        for tag, written in row.languages:
            assert written and all(phrase(word) for word in written), (row.name, tag)
        every = [phrase(word) for _, written in row.languages for word in written]
        assert row.words == tuple(dict.fromkeys(every))  # folded, English first, once each


def test_a_word_folds_as_a_query_does():
    assert "entree" in CATEGORY_ROWS["entrance"].words  # "entrée"
    assert "aufzuge" in CATEGORY_ROWS["elevator"].words  # "Aufzüge"
    assert "洗手間" in CATEGORY_ROWS["restroom"].words
    assert "escalera mecanica" in CATEGORY_ROWS["escalator"].words


@dataclass
class Site:
    client: httpx.AsyncClient
    headers: dict[str, str]

    async def found(self, q: str, **headers: str) -> list[tuple[str, str, str]]:
        """(kind, id, matched) of each hit of `q` on the clinic, sorted."""
        path = f"/v1/search?q={quote(q)}&asset={CLINIC.venue_id}&per-page=50"
        response = await self.client.get(path, headers={**self.headers, **headers})
        assert response.status_code == 200, response.text
        return sorted((hit["kind"], hit["id"], hit["matched"]) for hit in response.json()["data"])


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def site(db_server, settings) -> AsyncIterator[Site]:
    async with served_venue(db_server, settings, CLINIC.venue.files()) as served:
        yield Site(served.client, served.headers("search"))


@pytest.mark.parametrize("kind", sorted(ASKED))
async def test_each_language_s_word_finds_what_the_english_one_finds(site: Site, kind: str):
    """The same places, each once (a toilet as its unit, a lift and the stairs as the
    location that stands for each unit); by category, where English may match the
    generated name ("Stairs 1")."""
    units, english, others = ASKED[kind]
    in_english = await site.found(english)
    assert sorted(hit_id for _, hit_id, _ in in_english) == sorted(CLINIC.units[u] for u in units)
    places = sorted((hit_kind, hit_id) for hit_kind, hit_id, _ in in_english)
    for words in others.values():
        for word in words:
            # whatever language the visitor reads the answer in
            for headers in ({}, {"Accept-Language": HONG_KONG}):
                found = await site.found(word, **headers)
                assert [(hit_kind, hit_id) for hit_kind, hit_id, _ in found] == places, word
                # by its kind, or by the generated name in that language ("升降機 1")
                assert {matched for _, _, matched in found} <= {"category", "name"}, word


async def test_a_word_of_another_kind_finds_none_of_these(site: Site):
    """The clinic has no escalator, no car park and no shop: their words in Chinese find
    nothing rather than the nearest thing (a word under 4 characters takes no typo)."""
    for word in ("扶手電梯", "停車場", "商店", "Rolltreppe", "aparcamiento"):
        assert await site.found(word) == [], word


ENTRANCE = CLINIC.venue.feature_id("opening", "G:entrance")  # its principal entrance
WAYS = {
    "entrance": ("entrance", "入口", "entrée", "Eingang", "entrada"),
    "exit": ("exit", "出口", "sortie", "Ausgang", "salida"),
}


@pytest.mark.parametrize("kind", sorted(WAYS))
async def test_the_entrance_is_a_place_found_as_a_way_in_and_out(site: Site, kind: str):
    """Issue 66, point 5: openings were no places, so "entrance" found nothing on venues
    of many principal entrances. The clinic's is a place ("Entrance 1", generated, in
    each language) that every language's word for a way in, or out, finds once."""
    lobby = ("unit", CLINIC.units["G:lobby"], "name")  # "Entrance Lobby", "入口大堂"
    for word in WAYS[kind]:
        found = await site.found(word)
        ways = [matched for _, hit_id, matched in found if hit_id == ENTRANCE]
        # once: by its kind, or by its generated name ("Entrance 1", "入口 1"), not an exit's
        allowed = {"category"} if kind == "exit" else {"category", "name"}
        assert len(ways) == 1 and ways[0] in allowed, word
        assert [hit for hit in found if hit[1] != ENTRANCE] in ([], [lobby]), word
    named = await site.found("入口 1", **{"Accept-Language": HONG_KONG})
    assert named == [("location", ENTRANCE, "name")]  # its generated name, in Chinese
