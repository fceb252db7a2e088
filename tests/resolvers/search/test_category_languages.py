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
    by_category = sorted((hit_kind, hit_id, "category") for hit_kind, hit_id, _ in in_english)
    for tag, words in others.items():
        for word in words:
            assert await site.found(word) == by_category, (tag, word)
            # whatever language the visitor reads the answer in
            assert await site.found(word, **{"Accept-Language": HONG_KONG}) == by_category, word


async def test_a_word_of_another_kind_finds_none_of_these(site: Site):
    """The clinic has no escalator, no car park and no shop: their words in Chinese find
    nothing rather than the nearest thing (a word under 4 characters takes no typo)."""
    for word in ("扶手電梯", "停車場", "商店", "Rolltreppe", "aparcamiento"):
        assert await site.found(word) == [], word
