"""Names a person can read (issue 35, point 3; issue 48, point 3): its one occupant's
name, its own name or alt_name in the venue's language, then what is inside the unit,
then "<category> <n>" (the floor is no part of a name, and the name is marked
generated); never an id; unique on a floor.

In every language of the venue (issue 51, point 1; docs/imdf.md, "Names in several
languages"): Lung Wan Community Clinic (tests/venues/bilingual_clinic.py), named in
English and Traditional Chinese, imports with each record's name in both, the
dataset's language the venue's; names repeated on a floor are numbered in each
language, generated names are English only, and a venue in one language stores no
`names` at all."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import httpx
import orjson
import pytest_asyncio

from parsing.imdf.names import floor_names
from parsing.imdf.read import read_archive, read_document
from parsing.imdf.venue import ImdfOptions
from parsing.language_tags import parse_tag
from resolvers.auth.keys import create_key
from resolvers.auth.permissions import ALL_FLAGS, ALL_PERMISSIONS
from rest.app import create_app
from storage import collections as col
from storage.cache.names import local_name
from storage.database import Store
from storage.imdf.dataset import ImdfDataset, dataset_from_path, import_venue, venue_dataset
from tests._dbserver import fresh_store
from tests.venues.bilingual_clinic import bilingual_clinic, manifest_language
from tests.venues.imdf_venues import stable_id, zip_bytes
from tests.venues.old_market import collections, dumps, manifest, old_market

GROUND_EN = {
    "hall": "Hall",
    "S1": "Bakery",  # its occupant
    "S2": "Retail 1",  # two occupants: each a place of its own, the unit by its category
    "S3": "Cash Point",  # its amenity
    "S4": "Info Desk",  # its anchor's name
    "S5": "Back Room",  # its alt_name
    "R1": "Restroom 1",  # the unnamed restroom amenity inside is R1 itself
    "R2": "Restroom 2",
    "R3": "Restroom (female) 1",
    "N1": "Non-public area 1",
    "N2": "Non-public area 2",  # open plan, no door: named all the same
    "D1": "Shop 1",  # two rooms named "Shop", west to east
    "D2": "Shop 2",
    "R1@1": "Restroom 1",  # the floor is no part of a name: unique per floor
}
GENERATED = {"S2", "R1", "R2", "R3", "N1", "N2", "R1@1"}


def dataset(
    venue_name: dict[str, str] | None = None,
    language: str | None = "en",
    options: ImdfOptions | None = None,
) -> tuple[ImdfDataset, dict[str, str]]:
    venue, units = old_market(venue_name)
    document: dict[str, Any] = collections(venue)
    if language:
        document["manifest"] = manifest(language)
    found = venue_dataset(read_document(dumps(document), "v.json"), options or ImdfOptions())
    return found, units


def default_text(name: str | dict[str, str]) -> str:
    """A dataset name's text in its default language (the first of a name object's:
    docs/imdf.md, "Names in several languages")."""
    return name if isinstance(name, str) else next(iter(name.values()))


def unit_names(found: ImdfDataset, units: dict[str, str]) -> dict[str, str]:
    """Unit key -> its name in the default language."""
    by_id = {unit["id"]: default_text(unit["name"]) for unit in found.data["units"]}
    return {key: by_id[unit_id] for key, unit_id in units.items() if unit_id in by_id}


def test_names_in_order_of_what_the_venue_gives():
    found, units = dataset()
    assert unit_names(found, units) == GROUND_EN
    # Both amenities are their units (the ATM names its shop, the restroom is of its
    # room's kind): no location of their own.
    assert not [
        loc["name"]
        for loc in found.data["locations"]
        if {"key": "imdf:feature", "value": "amenity"} in loc["tags"]
    ]
    generated = {
        loc["tags"][1]["value"]
        for loc in found.data["locations"]
        if {"key": "svc:name", "value": "generated"} in loc["tags"]
    }
    assert generated == {units[key] for key in GENERATED}


def test_never_an_id_and_unique_on_a_floor():
    found, units = dataset()
    given = [loc["name"] for loc in found.data["locations"]]
    given += [unit["name"] for unit in found.data["units"]]
    names = [
        text for name in given for text in ([name] if isinstance(name, str) else name.values())
    ]
    fragments = {unit_id[:8] for unit_id in units.values()}
    assert not [n for n in names if any(f in n for f in fragments)]
    assert not [n for n in names if re.search(r"[0-9a-f]{8}", n)]
    floors = Counter((u["floor_id"], default_text(u["name"])) for u in found.data["units"])
    assert max(floors.values()) == 1


def test_the_venue_language_then_the_first_language_present():
    # No manifest language: the first language present (the venue's name: French).
    french, units = dataset(language=None)
    assert unit_names(french, units)["hall"] == "Halle"
    assert french.data["language"] == "fr"
    hall = next(u["name"] for u in french.data["units"] if u["id"] == units["hall"])
    assert hall == {"fr": "Halle", "en": "Hall"}  # both kept, the venue's language first
    assert unit_names(french, units)["R1"] == "Restroom 1"
    # The manifest's language wins over the first present.
    assert unit_names(dataset(language="en")[0], units)["hall"] == "Hall"
    assert unit_names(dataset({"en": "Old Market"}, language="fr")[0], units)["hall"] == "Halle"
    # --language wins over both.
    chosen = dataset(language="fr", options=ImdfOptions(languages=("en",)))[0]
    assert unit_names(chosen, units)["hall"] == "Hall"
    assert [default_text(f["name"]) for f in chosen.data["floors"]] == ["Ground Floor", "Level 1"]


def test_a_unit_named_by_a_number_is_found_as_places_find_it():
    """An id written as a number (`12`, read as "12") names its unit for the amenity
    inside, which is that unit's place (its id kept in the unit's location's tags)."""
    venue, units = old_market()
    document: dict[str, Any] = collections(venue)
    for unit in document["unit"]["features"]:
        if unit["id"] == units["S3"]:
            unit["id"] = 12
    (cash,) = [a for a in document["amenity"]["features"] if a["id"] == stable_id("amenity:cash")]
    cash["properties"]["unit_ids"] = [12]
    found = venue_dataset(read_document(dumps(document), "v.json"), ImdfOptions())
    assert {u["id"]: u["name"] for u in found.data["units"]}["12"] == "Cash Point"
    level = venue.features["level"][0]["id"]
    location = next(loc for loc in found.data["locations"] if loc["id"] == f"{level}:12")
    assert {"key": "imdf:amenity", "value": cash["id"]} in location["tags"]
    assert (location["name"], location["floors"]) == ("Cash Point", [{"id": level}])
    assert not [loc for loc in found.data["locations"] if loc["id"] == cash["id"]]


def test_a_name_of_spaces_is_no_name():
    """Spaces around a label are dropped; a label of spaces alone is none, for a unit
    as for an amenity (which then gets a label like any unnamed one), and a language
    whose text is spaces gives way to the next."""
    venue, units = old_market()
    document: dict[str, Any] = collections(venue)
    document["manifest"] = manifest("en")
    by_id = {f["id"]: f for f in document["unit"]["features"]}
    by_id[units["D1"]]["properties"]["name"] = {"en": "  Deli "}
    by_id[units["D2"]]["properties"]["name"] = {"en": " ", "fr": "Épicerie"}
    by_id[units["hall"]]["properties"]["name"] = {"en": "\t"}
    (cash,) = [a for a in document["amenity"]["features"] if a["id"] == stable_id("amenity:cash")]
    cash["properties"]["name"] = {"en": "   "}
    found = venue_dataset(read_document(dumps(document), "v.json"), ImdfOptions())
    names = unit_names(found, units)
    assert (names["D1"], names["D2"], names["hall"]) == (
        "Deli",
        "Épicerie",
        "Lobby 1",
    )
    assert names["S3"] == "Retail 2"  # its amenity has no name now (S2 is Retail 1)
    location = next(loc for loc in found.data["locations"] if loc["id"] == cash["id"])
    assert location["name"] == "ATM 1"  # another kind than its shop: a place of its own


# ---------------------------------------------------- every language: the bilingual clinic

CLINIC = bilingual_clinic()
EN_ZH = ("en", "zh-Hant")


def clinic_dataset(
    files: dict[str, bytes] | None = None, options: ImdfOptions | None = None
) -> ImdfDataset:
    return venue_dataset(read_archive(files or CLINIC.venue.files()), options or ImdfOptions())


def clinic_units(found: ImdfDataset) -> dict[str, Any]:
    """Unit key ("G:xray") -> its dataset `name`, for the listed units."""
    keys = {unit_id: key for key, unit_id in CLINIC.units.items()}
    return {keys[unit["id"]]: unit["name"] for unit in found.data["units"]}


def clinic_locations(found: ImdfDataset) -> dict[str, Any]:
    """Location id on the levels' maps (the stack's are the same) -> its `name`, a unit's
    by its key, an amenity's by its key."""
    keys = {unit_id: key for key, unit_id in CLINIC.units.items()}
    keys |= {feature_id: key for key, feature_id in CLINIC.features.items()}
    keys[ENTRANCE] = "G:entrance"
    return {
        keys[loc["id"].rsplit(":", 1)[-1]]: loc["name"]
        for loc in found.data["locations"]
        if loc["unit_map_id"] != CLINIC.venue_id
    }


# A generated name in a venue of several languages: in each language of directions
# (issue 66, point 3), English first.
RESTROOM_1 = {
    "en": "Restroom 1",
    "zh-Hant": "洗手間 1",
    "zh-Hans": "洗手间 1",
    "fr": "Toilettes 1",
    "de": "Toilette 1",
    "es": "Aseo 1",
}
FEMALE_1 = {
    "en": "Restroom (female) 1",
    "zh-Hant": "洗手間 (女) 1",
    "zh-Hans": "洗手间 (女) 1",
    "fr": "Toilettes (femmes) 1",
    "de": "Toilette (Damen) 1",
    "es": "Aseo (mujeres) 1",
}
ELEVATOR_1 = {
    "en": "Elevator 1",
    "zh-Hant": "升降機 1",
    "zh-Hans": "电梯 1",
    "fr": "Ascenseur 1",
    "de": "Aufzug 1",
    "es": "Ascensor 1",
}
STAIRS_1 = {
    "en": "Stairs 1",
    "zh-Hant": "樓梯 1",
    "zh-Hans": "楼梯 1",
    "fr": "Escalier 1",
    "de": "Treppe 1",
    "es": "Escalera 1",
}
ENTRANCE_1 = {
    "en": "Entrance 1",
    "zh-Hant": "入口 1",
    "zh-Hans": "入口 1",
    "fr": "Entrée 1",
    "de": "Eingang 1",
    "es": "Entrada 1",
}
# The clinic's principal entrance: a place (issue 66, point 5), named as generated.
ENTRANCE = CLINIC.venue.feature_id("opening", "lung-wan-G:entrance")
ENGLISH_DEFAULT = {
    "G:waiting": {"en": "Waiting Hall", "zh-Hant": "候診大堂"},  # `zh_hant` read as zh-Hant
    "G:g02": {"en": "Community Pharmacy", "zh-Hant": "社區藥房"},  # its occupant
    "G:consult-w": {"en": "Consultation Room 1", "zh-Hant": "診症室 1"},  # west first
    "G:consult-e": {"en": "Consultation Room 2", "zh-Hant": "診症室 2"},
    "G:restroom": RESTROOM_1,  # generated
    "G:lobby": {"en": "Entrance Lobby", "zh-Hant": "入口大堂"},
    "G:xray": "X-ray Room",  # English only
    "G:physio": {"en": "Physiotherapy Room", "zh-Hant": "物理治療室"},
    "1:mch": {"en": "Maternal and Child Health Centre", "zh-Hant": "母嬰健康院"},
    "1:dental": {"en": "Dental Clinic", "zh-Hant": "牙科診所"},
    "1:office-w": {"en": "Office 1", "zh-Hant": "辦公室"},  # one name in English only
    "1:office-e": {"en": "Office 2", "zh-Hant": "會計室"},
    "1:hall": {"en": "Multi-purpose Room", "zh-Hant": "多用途室"},
    "1:restroom": FEMALE_1,
    "2:hall": {"en": "Community Hall", "zh-Hant": "社區會堂"},
    "2:store": "儲物室",  # Chinese only: one language, a plain name
}
PLACES = {  # beside the units: the ways between levels and the amenities of their own
    **{
        f"{level}:{kind}": name
        for level in "G12"
        for kind, name in (("lift", ELEVATOR_1), ("stairs", STAIRS_1))
    },
    "enquiry": {"en": "Enquiry Counter", "zh-Hant": "詢問處"},
    "fountain": "飲水機",
    "G:entrance": ENTRANCE_1,
    "babycare": {"en": "Baby Care Room", "zh-Hant": "育嬰室"},
}
FLOORS = [
    ({"en": "Ground Floor", "zh-Hant": "地下"}, "Ground Floor", "G/F"),
    ({"en": "First Floor", "zh-Hant": "一樓"}, "First Floor", "1/F"),
    ({"en": "Second Floor", "zh-Hant": "二樓"}, "Second Floor", "2/F"),
]


def test_every_record_keeps_every_language_of_its_name():
    found = clinic_dataset()
    data = found.data
    assert data["language"] == "en"
    assert data["assets"][0]["name"] == {
        "en": "Lung Wan Community Clinic",
        "zh-Hant": "龍灣社區診所",
    }
    floors = [(f["name"], f["label"], f["short_label"]) for f in data["floors"]]
    assert floors == FLOORS
    assert clinic_units(found) == ENGLISH_DEFAULT
    assert clinic_locations(found) == ENGLISH_DEFAULT | PLACES
    maps = [
        (m["name"], [v["name"] for v in m["level_tags"][0]["values"]]) for m in data["unit_maps"]
    ]
    assert maps == [
        *((name, [label]) for name, label, _ in FLOORS),
        ("Lung Wan Community Clinic (all levels)", [label for _, label, _ in FLOORS]),
    ]
    assert found.report.lines() == []  # a venue as the standard writes it: no remark
    assert found.summary == [
        "venue 'Lung Wan Community Clinic': 3 levels, 25 units (16 listed), 52 locations, "
        "179 walk lines, 6 connector stops"
    ]


def test_generated_names_are_marked_and_in_every_language():
    found = clinic_dataset()
    generated = {
        loc["id"].rsplit(":", 1)[-1]
        for loc in found.data["locations"]
        if {"key": "svc:name", "value": "generated"} in loc["tags"]
        and loc["unit_map_id"] != CLINIC.venue_id
    }
    keys = [
        "G:restroom",
        "1:restroom",
        *(f"{lv}:{kind}" for lv in "G12" for kind in ("lift", "stairs")),
    ]
    assert generated == {CLINIC.units[key] for key in keys} | {ENTRANCE}
    # the unit that took in its occupant keeps its own names as an alternative, in English
    g02 = next(loc for loc in found.data["locations"] if loc["id"].endswith(CLINIC.units["G:g02"]))
    assert {"key": "alt_name", "value": "Room G02"} in g02["tags"]


def seen_by(found: ImdfDataset, language: str) -> dict[str, list[str]]:
    """Per floor, the names of its locations as a reader of `language` is given them
    (storage.cache.names: the best-suited language, else the default)."""
    wanted = parse_tag(language)
    assert wanted is not None
    floors: dict[str, list[str]] = {}
    for loc in found.data["locations"]:
        if loc["unit_map_id"] == CLINIC.venue_id:
            continue
        name = loc["name"]
        text = (
            name if isinstance(name, str) else local_name(name, wanted) or next(iter(name.values()))
        )
        floors.setdefault(loc["floors"][0]["id"], []).append(text)
    return floors


def test_names_are_unique_on_each_floor_in_each_language():
    found = clinic_dataset()
    for language in EN_ZH:
        for names in seen_by(found, language).values():
            assert len(names) == len(set(names)), (language, sorted(names))
    chinese = seen_by(found, "zh-Hant")[CLINIC.levels["G"]]
    assert sorted(chinese) == sorted(
        [
            "候診大堂",
            "社區藥房",
            "診症室 1",
            "診症室 2",
            "洗手間 1",
            "入口大堂",
            "X-ray Room",
            "物理治療室",
            "詢問處",
            "飲水機",
            "升降機 1",
            "樓梯 1",
            "入口 1",
        ]
    )


def test_numbers_per_language_skip_what_others_show():
    """A unit numbered in English ("Clinic 1") keeps its Chinese; one named in Chinese
    only ("診所", its default) keeps it, so the bilingual unit's Chinese is numbered
    past it; an unnamed unit is named in English only."""
    points = {"a": (0.0, 9.0), "b": (0.0, 0.0), "c": (5.0, 0.0), "d": (9.0, 0.0)}
    found = [
        ("a", {"en": "Clinic", "zh-Hant": "診所"}, "room"),
        ("b", {"en": "Clinic"}, "room"),
        ("c", {"zh-Hant": "診所"}, "room"),
        ("d", {}, "restroom"),
    ]
    assert floor_names(found, points) == (
        {
            "a": {"en": "Clinic 1", "zh-Hant": "診所 1"},
            "b": {"en": "Clinic 2"},
            "c": {"zh-Hant": "診所"},
            "d": {"en": "Restroom 1"},
        },
        {"d"},
    )


def test_the_dataset_language_is_the_venues():
    chinese = clinic_dataset(manifest_language(CLINIC.venue.files(), "zh-hant"))
    assert chinese.data["language"] == "zh-Hant"  # canonical
    names = clinic_units(chinese)
    assert names["G:consult-w"] == {"zh-Hant": "診症室 1", "en": "Consultation Room 1"}
    assert (names["G:xray"], names["2:store"], names["G:restroom"]) == (
        "X-ray Room",  # one language: plain, whichever it is
        "儲物室",
        RESTROOM_1,  # generated: in each language, English first
    )
    assert chinese.data["floors"][0]["name"] == {
        "zh-Hant": "地下",
        "en": "Ground Floor",
    }
    assert [f["label"] for f in chinese.data["floors"]] == ["地下", "一樓", "二樓"]
    assert chinese.summary[0].startswith("venue '龍灣社區診所': 3 levels")
    # --language comes first; a manifest language that is no tag gives way to `en`
    chosen = clinic_dataset(options=ImdfOptions(languages=("zh-Hant",)))
    assert (chosen.data["language"], clinic_units(chosen)) == ("zh-Hant", names)
    unreadable = clinic_dataset(manifest_language(CLINIC.venue.files(), "Chinese (Hong Kong)"))
    assert (unreadable.data["language"], clinic_units(unreadable)) == ("en", ENGLISH_DEFAULT)


def with_label(files: dict[str, bytes], unit_id: str, name: dict[str, str]) -> dict[str, bytes]:
    """The archive with one unit's `name` replaced."""
    units = orjson.loads(files["unit.geojson"])
    for feature in units["features"]:
        if feature["id"] == unit_id:
            feature["properties"]["name"] = name
    return {**files, "unit.geojson": orjson.dumps(units)}


def test_keys_that_are_no_language_tag_are_reported():
    files = with_label(
        CLINIC.venue.files(),
        CLINIC.units["1:dental"],
        {"en": "Dental Clinic", "chinese": "牙科", "zh-hant": "牙科診所", "zh-Hant": "牙科"},
    )
    files = with_label(files, CLINIC.units["G:xray"], {"und": "X-ray Room", "zh-Hant": "放射室"})
    found = clinic_dataset(files)
    names = clinic_units(found)
    assert names["1:dental"] == {"en": "Dental Clinic", "zh-Hant": "牙科診所"}
    assert names["G:xray"] == {"en": "X-ray Room", "zh-Hant": "放射室"}  # `und`: the venue's
    assert found.report.lines() == [
        "label key that is no language tag, read as the venue's language: 1 (e.g. und: X-ray Room)",
        "label key that is no language tag, skipped: 1 (e.g. chinese: 牙科)",
        "label language given twice, the first kept: 1 (e.g. zh-Hant: 牙科)",
    ]


def english_only(files: dict[str, bytes]) -> dict[str, bytes]:
    """The archive with every label's other languages dropped (a label in Chinese only
    becomes none)."""
    out = dict(files)
    for name, data in files.items():
        if name == "manifest.json":
            continue
        document = orjson.loads(data)
        for feature in document["features"]:
            for key in ("name", "short_name", "alt_name"):
                value = feature["properties"].get(key)
                if isinstance(value, dict):
                    feature["properties"][key] = {"en": value["en"]} if "en" in value else None
        out[name] = orjson.dumps(document)
    return out


# ---------------------------------------------------------------- stored, and read back


@dataclass
class Stored:
    store: Store  # the clinic
    english: Store  # the clinic in English only (the same unit ids: another database)
    client: httpx.AsyncClient  # the real app on `store`
    key: str


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def stored(db_server, settings, tmp_path_factory) -> AsyncIterator[Stored]:
    """The clinic imported from its zip into a fresh database, and the same clinic with
    every language but English dropped into another; a client of the real app."""
    folder = tmp_path_factory.mktemp("clinic")
    (folder / "clinic.zip").write_bytes(CLINIC.archive())
    (folder / "english.zip").write_bytes(zip_bytes(english_only(CLINIC.venue.files())))
    async with fresh_store(db_server) as store, fresh_store(db_server) as english:
        for into, name in ((store, "clinic.zip"), (english, "english.zip")):
            found = dataset_from_path(folder / name, ImdfOptions())
            await import_venue(into, found, limits=settings.svg_limits)
        key = (await create_key(store, "clinic", list(ALL_PERMISSIONS), None)).secret
        transport = httpx.ASGITransport(app=create_app(settings, store))
        async with httpx.AsyncClient(transport=transport, base_url="https://testserver") as client:
            yield Stored(store, english, client, key)


async def stored_names(store: Store, collection: str, ids: list[str]) -> list[tuple[Any, Any]]:
    found = {
        doc["_id"]: (doc["name"], doc.get("names"))
        async for doc in store.db[collection].find({"_id": {"$in": ids}})
    }
    return [found[i] for i in ids]


async def test_every_kind_of_record_is_stored_with_its_names(stored: Stored):
    store, clinic = stored.store, CLINIC
    both = {"en": "Lung Wan Community Clinic", "zh-Hant": "龍灣社區診所"}
    assert await stored_names(store, col.ASSETS, [clinic.venue_id]) == [(both["en"], both)]
    assert await stored_names(store, col.FLOORS, [clinic.levels["G"], clinic.levels["2"]]) == [
        ("Ground Floor", {"en": "Ground Floor", "zh-Hant": "地下"}),
        ("Second Floor", {"en": "Second Floor", "zh-Hant": "二樓"}),
    ]
    units = ["G:consult-e", "G:xray", "G:restroom", "2:store", "1:office-w"]
    assert await stored_names(store, col.UNITS, [clinic.units[k] for k in units]) == [
        ("Consultation Room 2", {"en": "Consultation Room 2", "zh-Hant": "診症室 2"}),
        ("X-ray Room", None),
        ("Restroom 1", RESTROOM_1),  # generated: in each language
        ("儲物室", None),  # one language: no `names`
        ("Office 1", {"en": "Office 1", "zh-Hant": "辦公室"}),
    ]
    assert await stored_names(store, col.UNIT_MAPS, [clinic.levels["1"], clinic.venue_id]) == [
        ("First Floor", {"en": "First Floor", "zh-Hant": "一樓"}),
        ("Lung Wan Community Clinic (all levels)", None),
    ]
    level = clinic.levels["G"]
    locations = [
        clinic.features["fountain"],
        clinic.features["enquiry"],
        f"{level}:{clinic.units['G:g02']}",
    ]
    assert await stored_names(store, col.LOCATIONS, locations) == [
        ("飲水機", None),
        ("Enquiry Counter", {"en": "Enquiry Counter", "zh-Hant": "詢問處"}),
        ("Community Pharmacy", {"en": "Community Pharmacy", "zh-Hant": "社區藥房"}),
    ]


async def test_a_venue_in_one_language_stores_no_names(stored: Stored):
    english = stored.english
    for collection in (col.ASSETS, col.FLOORS, col.UNITS, col.UNIT_MAPS, col.LOCATIONS):
        documents = [doc async for doc in english.db[collection].find({})]
        assert documents and not [doc["_id"] for doc in documents if "names" in doc], collection
    units = {doc["_id"]: doc["name"] async for doc in english.db[col.UNITS].find({})}
    assert [units[CLINIC.units[key]] for key in ("G:consult-w", "G:xray", "2:store")] == [
        "Consultation Room 1",
        "X-ray Room",
        "Storage 1",  # named in Chinese only: no name left, so its category's
    ]


async def test_the_api_answers_in_each_language(stored: Stored):
    headers = {"API-Key": stored.key, "Experimental-Flags": ",".join(ALL_FLAGS)}

    async def units(lang: str) -> dict[str, str]:
        path = f"/v1/units?asset_id={CLINIC.venue_id}&per-page=100&lang={lang}"
        response = await stored.client.get(path, headers=headers)
        assert response.status_code == 200, response.text
        keys = {unit_id: key for key, unit_id in CLINIC.units.items()}
        return {keys[unit["id"]]: unit["name"] for unit in response.json()["data"]}

    def text(name: Any, language: str) -> str:
        return name if isinstance(name, str) else name.get(language, next(iter(name.values())))

    for language in EN_ZH:
        assert await units(language) == {k: text(v, language) for k, v in ENGLISH_DEFAULT.items()}
    assert (await units("zh-HK"))["G:consult-w"] == "診症室 1"


async def test_a_venue_imported_again_in_one_language_loses_its_other_names(db_server, settings):
    """Records are replaced whole: the Chinese of an earlier import does not linger."""
    bilingual = clinic_dataset()
    english = clinic_dataset(english_only(CLINIC.venue.files()))
    async with fresh_store(db_server) as store:
        for found in (bilingual, english):
            await import_venue(store, found, limits=settings.svg_limits)
        assert await stored_names(store, col.UNITS, [CLINIC.units["G:consult-e"]]) == [
            ("Consultation Room 2", None)
        ]
        assert await store.db[col.LOCATIONS].count_documents({"names": {"$exists": True}}) == 0


async def test_graphql_the_header_and_a_route_speak_traditional_chinese(stored: Stored):
    """The clinic on both faces in Traditional Chinese: GraphQL's `@lang` and REST's
    `Accept-Language: zh-HK` give Chinese names (English where a record has none), and a
    route between floors names the floors and the rooms in Chinese."""
    headers = {"API-Key": stored.key, "Experimental-Flags": ",".join(ALL_FLAGS)}
    asset = CLINIC.venue_id
    query = f'query @lang(tag: "zh-Hant") {{ asset(id: "{asset}") {{ name floors {{ name }} }} }}'
    answer = await stored.client.post("/graphql", json={"query": query}, headers=headers)
    assert answer.headers["content-language"] == "zh-Hant"
    floors = [floor["name"] for floor in answer.json()["data"]["asset"]["floors"]]
    assert floors == ["地下", "一樓", "二樓"]
    hong_kong = {**headers, "Accept-Language": "zh-HK,zh;q=0.9,en;q=0.8"}
    listed = await stored.client.get(f"/v1/units?asset_id={asset}&per-page=100", headers=hong_kong)
    names = {unit["id"]: unit["name"] for unit in listed.json()["data"]}
    assert listed.headers["content-language"] == "zh-Hant"
    assert names[CLINIC.units["G:waiting"]] == "候診大堂"
    assert names[CLINIC.units["G:xray"]] == "X-ray Room"  # named in English only
    maps = await stored.client.get(f"/v1/maps?asset_id={asset}", headers=headers)
    (stack,) = [m["id"] for m in maps.json()["data"] if m["name"].endswith("(all levels)")]
    trip = {
        "from": {"id": f"{stack}:{CLINIC.units['G:waiting']}"},
        "to": {"id": f"{stack}:{CLINIC.units['2:hall']}"},
        "mode": "wheelchair",
    }
    routed = await stored.client.post(
        f"/v1/maps/{stack}/route?lang=zh-Hant", json={"data": trip}, headers=headers
    )
    assert (routed.status_code, routed.headers["content-language"]) == (200, "zh-Hant")
    answer = routed.json()
    assert (answer["from"]["name"], answer["to"]["name"]) == ("候診大堂", "社區會堂")
    # "升降機 1" is a generated name, made in each language (issue 66, point 3: it was
    # "Elevator 1"); every other word is the data's Chinese or the sentences'
    assert answer["route"]["steps"] == [
        "從候診大堂出發",
        "步行 5 公尺後在詢問處左轉",
        "步行 15 公尺後搭電梯上 2 層樓到二樓",
        "步行 2 公尺後在升降機 1左轉",
        "步行 12 公尺後抵達位於右側的社區會堂",
    ]


def unnamed_levels(files: dict[str, bytes]) -> dict[str, bytes]:
    """The archive with its levels' names and short names dropped."""
    document = orjson.loads(files["level.geojson"])
    for feature in document["features"]:
        feature["properties"]["name"] = feature["properties"]["short_name"] = None
    return {**files, "level.geojson": orjson.dumps(document)}


def test_a_level_without_a_name_is_named_in_every_language_of_a_bilingual_venue():
    """Issue 66, point 3: a level nobody named was "Level 1" in English only, so a Chinese
    route rode the elevator "到Level 2". In a venue named in several languages it is named
    in each language of directions, as its unnamed rooms are; in a venue of one language
    it stays plain English (issue 51: such a venue stores no `names`)."""
    bilingual = clinic_dataset(unnamed_levels(CLINIC.venue.files()))
    floors = {floor["id"]: floor["name"] for floor in bilingual.data["floors"]}
    assert floors[CLINIC.levels["2"]] == {
        "en": "Level 2",
        "zh-Hant": "樓層 2",
        "zh-Hans": "楼层 2",
        "fr": "Niveau 2",
        "de": "Ebene 2",
        "es": "Nivel 2",
    }
    english = clinic_dataset(unnamed_levels(english_only(CLINIC.venue.files())))
    floors = {floor["id"]: floor["name"] for floor in english.data["floors"]}
    assert floors[CLINIC.levels["2"]] == "Level 2"
