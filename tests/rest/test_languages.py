"""The visitor's language on both faces (issue 51): a dataset named in English and
Traditional Chinese answers each name in the language asked (`lang=`, Accept-Language,
`@lang`), the default where a record lacks it, says which in `Content-Language`, varies
and tags its answers by language, keeps one answer per language, and refuses what it
cannot read: a malformed `lang=`, a 10 KB Accept-Language; keeps one answer for every
spelling of one language (issue 63)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import httpx
import orjson
import pytest
import pytest_asyncio

from resolvers.auth.keys import create_key
from resolvers.auth.permissions import ALL_FLAGS, ALL_PERMISSIONS
from rest.app import create_app
from storage.cache.read_cache import ENTRY_OVERHEAD
from storage.database import Store
from storage.imports.importer import import_data
from storage.persisted_queries import document_hash
from tests._dbserver import fresh_store

ASSET = "hk-clinic"
STAMP = "2026-01-01T00:00:00+00:00"
DATASET: dict[str, Any] = {
    "version": 1,
    "language": "en",
    "assets": [
        {
            "id": ASSET,
            "market": "healthcare",
            "name": {"en": "Harbour Clinic", "zh-Hant": "海港診所"},
        }
    ],
    "floors": [
        {"id": "hk-g", "asset_id": ASSET, "name": {"en": "Ground", "zh-hant": "地下"}, "sort": 0},
        {"id": "hk-1", "asset_id": ASSET, "name": "Level 1", "sort": 1},  # English only
    ],
    "units": [
        {
            "id": "hk-waiting",
            "asset_id": ASSET,
            "floor_id": "hk-g",
            "name": {"en": "Waiting Hall", "zh-Hant": "候診大堂", "zh-Hans": "候诊大堂"},
        },
        {
            "id": "hk-pharmacy",
            "asset_id": ASSET,
            "floor_id": "hk-g",
            # the dataset's language last: still the default (stored `name`)
            "name": {"zh-HK": "藥房", "de": "Apotheke", "en": "Pharmacy"},
        },
        {"id": "hk-store", "asset_id": ASSET, "floor_id": "hk-1", "name": "Store Room"},
    ],
}


@dataclass
class Site:
    client: httpx.AsyncClient
    key: str
    elsewhere: str  # every permission, scoped to another asset
    store: Store

    def headers(self, **more: str) -> dict[str, str]:
        return {"API-Key": self.key, "Experimental-Flags": ",".join(ALL_FLAGS), **more}

    async def units(self, query: str = "", **headers: str) -> httpx.Response:
        path = f"/v1/units?asset_id={ASSET}{query.replace('?', '&')}"
        return await self.client.get(path, headers=self.headers(**headers))

    async def graphql(self, query: str, url: str = "/graphql", **headers: str) -> httpx.Response:
        return await self.client.post(url, json={"query": query}, headers=self.headers(**headers))


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def site(db_server, settings, tmp_path_factory) -> AsyncIterator[Site]:
    async with fresh_store(db_server) as store:
        await import_data(store, DATASET, tmp_path_factory.mktemp("languages"))
        key = (await create_key(store, "languages", list(ALL_PERMISSIONS), None)).secret
        other = await create_key(store, "elsewhere", list(ALL_PERMISSIONS), ["hk-other"])
        app = create_app(settings, store)
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="https://testserver") as client:
            yield Site(client, key, other.secret, store)


def names(response: httpx.Response) -> dict[str, str]:
    assert response.status_code == 200, response.text
    return {unit["id"]: unit["name"] for unit in response.json()["data"]}


ENGLISH = {"hk-pharmacy": "Pharmacy", "hk-store": "Store Room", "hk-waiting": "Waiting Hall"}
CHINESE = {"hk-pharmacy": "藥房", "hk-store": "Store Room", "hk-waiting": "候診大堂"}


async def test_names_follow_lang_and_fall_back_to_the_default(site: Site):
    plain = await site.units()
    assert (names(plain), plain.headers["content-language"]) == (ENGLISH, "en")
    chinese = await site.units("?lang=zh-Hant")
    assert (names(chinese), chinese.headers["content-language"]) == (CHINESE, "zh-Hant")
    simplified = await site.units("?lang=zh-CN")  # Hans: only the hall has it
    assert names(simplified) == {**ENGLISH, "hk-waiting": "候诊大堂"}
    assert simplified.headers["content-language"] == "zh-Hans"
    assert "accept-language" in plain.headers["vary"].lower()


async def test_accept_language_with_qualities_and_fallbacks(site: Site):
    hong_kong = await site.units(**{"Accept-Language": "zh-HK, en;q=0.8"})
    assert (names(hong_kong), hong_kong.headers["content-language"]) == (CHINESE, "zh-Hant")
    ranked = await site.units(**{"Accept-Language": "en;q=0.2, zh-TW;q=0.9"})
    assert ranked.headers["content-language"] == "zh-Hant"
    unspoken = await site.units(**{"Accept-Language": "ja, ko;q=0.5"})
    assert (names(unspoken), unspoken.headers["content-language"]) == (ENGLISH, "en")
    # `lang=` wins over the header
    asked = await site.units("?lang=en", **{"Accept-Language": "zh-HK"})
    assert (names(asked), asked.headers["content-language"]) == (ENGLISH, "en")


async def test_tags_and_kept_answers_differ_per_language(site: Site):
    english, chinese = await site.units("?lang=en"), await site.units("?lang=zh-Hant")
    assert english.headers["etag"] != chinese.headers["etag"]
    again = await site.units("?lang=zh-Hant")  # kept: the same bytes and tag
    assert (again.content, again.headers["etag"]) == (chinese.content, chinese.headers["etag"])
    revalidated = await site.units("?lang=zh-Hant", **{"If-None-Match": chinese.headers["etag"]})
    assert revalidated.status_code == 304
    stale = await site.units("?lang=en", **{"If-None-Match": chinese.headers["etag"]})
    assert stale.status_code == 200
    # a floor named in one language: the same text in both, tagged apart
    path = f"/v1/assets/{ASSET}/floors/hk-1"
    one = await site.client.get(path + "?lang=en", headers=site.headers())
    other = await site.client.get(path + "?lang=zh-Hant", headers=site.headers())
    assert one.json()["name"] == other.json()["name"] == "Level 1"
    assert one.headers["etag"] != other.headers["etag"]


async def test_what_cannot_be_read_is_refused(site: Site):
    bad = await site.units("?lang=not%20a%20tag")
    assert (bad.status_code, bad.json()) == (
        422,
        {
            "message": "Resource validation failed",
            "fields": {"lang": ["must be a BCP 47 language tag, such as en, zh-Hant or de-CH"]},
        },
    )
    twice = await site.units("?lang=en&lang=de")
    assert twice.json()["fields"] == {"lang": ["must be given once"]}
    huge = await site.units(**{"Accept-Language": "en-GB;q=0.5, " * 700})
    assert (huge.status_code, huge.json()) == (
        431,
        {"message": "Accept-Language header larger than 1024 bytes"},
    )
    garbage = await site.units(**{"Accept-Language": ";;;q=x, 12345, *;q=nope"})
    assert (names(garbage), garbage.headers["content-language"]) == (ENGLISH, "en")


UNITS = '{ asset(id: "hk-clinic") { name units { id name names { language text } } } }'


async def test_graphql_answers_in_the_language_asked(site: Site):
    plain = await site.graphql(UNITS)
    assert plain.headers["content-language"] == "en"
    asset = plain.json()["data"]["asset"]
    assert asset["name"] == "Harbour Clinic"
    assert asset["units"][1] == {
        "id": "hk-store",
        "name": "Store Room",
        "names": [{"language": None, "text": "Store Room"}],
    }
    assert asset["units"][2]["names"] == [
        {"language": "en", "text": "Waiting Hall"},
        {"language": "zh-Hant", "text": "候診大堂"},
        {"language": "zh-Hans", "text": "候诊大堂"},
    ]
    directed = await site.graphql('query @lang(tag: "zh-HK") ' + UNITS)
    chinese = directed.json()["data"]["asset"]
    assert (chinese["name"], directed.headers["content-language"]) == ("海港診所", "zh-Hant")
    assert [unit["name"] for unit in chinese["units"]] == ["藥房", "Store Room", "候診大堂"]
    header = await site.graphql(UNITS, **{"Accept-Language": "zh-TW"})
    assert header.json()["data"] == directed.json()["data"]
    by_url = await site.graphql(UNITS, url="/graphql?lang=zh-Hant")
    assert by_url.json()["data"] == directed.json()["data"]
    wrong = await site.graphql('query @lang(tag: "!!") ' + UNITS)
    assert (wrong.status_code, wrong.json()["fields"]) == (
        422,
        {"@lang.tag": ["must be a BCP 47 language tag, such as en, zh-Hant or de-CH"]},
    )


async def test_a_persisted_query_answers_in_the_language_its_document_asks(site: Site):
    """`@lang` holds for a persisted document too: sent with its hash, then by the hash
    alone (which skips parsing)."""
    document = 'query InChinese @lang(tag: "zh-HK") { asset(id: "hk-clinic") { name } }'
    persisted = {"persistedQuery": {"version": 1, "sha256Hash": document_hash(document)}}
    for body in ({"query": document, "extensions": persisted}, {"extensions": persisted}):
        answer = await site.client.post("/graphql", json=body, headers=site.headers())
        assert (answer.status_code, answer.json(), answer.headers["content-language"]) == (
            200,
            {"data": {"asset": {"name": "海港診所"}}},
            "zh-Hant",
        )
    params = {"extensions": orjson.dumps(persisted).decode()}
    got = await site.client.get("/graphql", params=params, headers=site.headers())
    assert (got.json(), got.headers["content-language"]) == (answer.json(), "zh-Hant")
    assert "Accept-Language" in got.headers["vary"] and got.headers["etag"]


async def test_search_finds_every_language_and_answers_in_the_one_asked(site: Site):
    async def found(q: str, lang: str = "") -> list[tuple[str, str, str]]:
        path = f"/v1/search?q={q}&asset={ASSET}{'&lang=' + lang if lang else ''}"
        response = await site.client.get(path, headers=site.headers())
        assert response.status_code == 200, response.text
        return [(i["id"], i["name"], i["matched"]) for i in response.json()["data"]]

    # a Chinese word prefix finds the hall; the answer's name is in the language asked
    assert await found("候診", "zh-Hant") == [("hk-waiting", "候診大堂", "name")]
    assert await found("候診") == [("hk-waiting", "Waiting Hall", "name")]
    assert await found("候诊", "zh-Hans") == [("hk-waiting", "候诊大堂", "name")]
    assert await found("pharm", "zh-HK") == [("hk-pharmacy", "藥房", "name")]
    assert await found("store", "zh-Hant") == [("hk-store", "Store Room", "name")]


async def test_a_language_opens_nothing_a_key_may_not_see(site: Site):
    """A key scoped to another asset asks in Chinese: the asset is 404, its units and
    search find nothing, in every language and from a kept answer too."""
    await site.units("?lang=zh-Hant")  # kept for the full key
    theirs = {**site.headers(), "API-Key": site.elsewhere, "Accept-Language": "zh-HK"}
    asset = await site.client.get(f"/v1/assets/{ASSET}?lang=zh-Hant", headers=theirs)
    assert (asset.status_code, asset.json()) == (404, {"message": "Not found"})
    units = await site.client.get(f"/v1/units?asset_id={ASSET}&lang=zh-Hant", headers=theirs)
    assert (units.status_code, units.json()["data"]) == (200, [])
    found = await site.client.get("/v1/search?q=候診&lang=zh-Hant", headers=theirs)
    assert (found.status_code, found.json()["data"]) == (200, [])
    query = 'query @lang(tag: "zh-Hant") { asset(id: "hk-clinic") { name names { text } } }'
    answer = await site.client.post("/graphql", json={"query": query}, headers=theirs)
    assert answer.json()["data"] == {"asset": None}
    assert answer.json()["errors"][0]["extensions"]["code"] == "NOT_FOUND"


async def test_language_inputs_past_their_bounds(site: Site):
    too_long = await site.units("?lang=" + "a" * 8 + "-b" * 14)  # 36 characters
    assert too_long.json()["fields"] == {
        "lang": ["must be a BCP 47 language tag, such as en, zh-Hant or de-CH"]
    }
    # ranges past the 32nd are not read: Chinese as the 33rd is never chosen
    many = ", ".join(["ja"] * 32 + ["zh-Hant"])
    ranged = await site.units(**{"Accept-Language": many})
    assert (names(ranged), ranged.headers["content-language"]) == (ENGLISH, "en")
    assert "zh" not in ranged.headers["etag"]


SPELLINGS = 400  # distinct `lang=` texts of German (the attack sent 2,000: 2.7 -> 48.6 MB)


def german(n: int) -> str:
    """The n-th spelling of German: private-use subtags, regions, cases."""
    return ("de-x-{:08x}", "DE-AT-x-{:06x}", "de-CH-{:05d}", "De-Latn-x-{:04x}")[n % 4].format(n)


@pytest.mark.security
async def test_every_spelling_of_a_language_keeps_one_answer(site: Site):
    """Issue 63, finding 7: distinct `lang=` texts that choose one language are one kept
    answer (keyed by the language chosen), their `next` link asks for its canonical tag,
    and body, tag and `Content-Language` are the same for every one of them."""
    cache = site.store.cache
    path = f"/v1/units?asset_id={ASSET}&per-page=1&lang="
    first = await site.client.get(path + "de", headers=site.headers())
    assert (first.status_code, first.headers["content-language"]) == (200, "de")
    assert first.json()["data"] == [{**first.json()["data"][0], "name": "Apotheke"}]
    next_url = first.json()["paging"]["next_url"]
    assert next_url.endswith(f"/v1/units?asset={ASSET}&lang=de&page=2&per-page=1")
    before = cache.stats()
    for n in range(SPELLINGS):
        answer = await site.client.get(path + german(n), headers=site.headers())
        assert (answer.status_code, answer.headers["content-language"]) == (200, "de")
        assert (answer.content, answer.headers["etag"]) == (first.content, first.headers["etag"])
    after = cache.stats()
    assert after.answer_hits - before.answer_hits == SPELLINGS  # every one served kept
    assert after.entries == before.entries
    assert after.bytes_used - before.bytes_used <= len(first.content) + ENTRY_OVERHEAD
    # following `next` stays in German, though the visitor's header says Chinese
    second = await site.client.get(next_url, headers=site.headers(**{"Accept-Language": "zh"}))
    assert second.headers["content-language"] == "de"
    assert "lang=de&" in second.json()["paging"]["prev_url"]


async def test_other_languages_and_units_keep_their_own_answers(site: Site):
    """Two spoken languages are two answers (German names differ from English); one
    language in two units (en-GB: metres, en-US: feet) is two answers too, and each
    `next` link names a tag that chooses its unit again (`en-001`, `en`)."""
    path = f"/v1/units?asset_id={ASSET}&lang="
    entries = site.store.cache.stats().entries
    answers = {lang: await site.units(f"?lang={lang}") for lang in ("de-AT", "en-AU")}
    assert names(answers["de-AT"])["hk-pharmacy"] == "Apotheke"
    assert names(answers["en-AU"])["hk-pharmacy"] == "Pharmacy"
    assert site.store.cache.stats().entries == entries + 2
    links = {}
    for lang in ("en-GB", "en-US", "en-x-one", "*"):
        paged = await site.client.get(f"{path}{lang}&per-page=1", headers=site.headers())
        assert paged.headers["content-language"] == "en"
        links[lang] = paged.json()["paging"]["next_url"].split("&lang=")[1].split("&")[0]
    assert links == {"en-GB": "en-001", "en-US": "en", "en-x-one": "en", "*": "en"}


@pytest.mark.security
async def test_graphql_spellings_of_a_language_keep_one_answer(site: Site):
    """/graphql the same: `?lang=` texts, and `@lang(tag: $tag)` values where nothing
    else reads `$tag`, are keyed by the language chosen."""
    cache = site.store.cache
    query = 'query Named($tag: String!) @lang(tag: $tag) { asset(id: "hk-clinic") { name } }'
    answers = set()
    entries = cache.stats().entries
    for n in range(40):
        by_url = await site.graphql(UNITS, url=f"/graphql?lang={german(n)}")
        body = {"query": query, "variables": {"tag": german(n)}}
        directed = await site.client.post("/graphql", json=body, headers=site.headers())
        for answer in (by_url, directed):
            assert (answer.status_code, answer.headers["content-language"]) == (200, "de")
            answers.add(answer.content)
    assert len(answers) == 2
    assert cache.stats().entries - entries <= 2
