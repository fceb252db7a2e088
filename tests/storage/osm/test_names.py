"""Names in several languages from OpenStreetMap (issue 51, point 2; docs/osm.md, "Names
in several languages"): `name:xx` tags are languages of a name beside the plain `name`,
which is the text in the place's language: the first `--language`, else the `xx` whose
`name:xx` equals `name` on the most features, else `en`. A small place of our own."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from parsing.imdf.venue import ImdfOptions
from storage import collections as col
from storage.imdf.dataset import ImdfDataset, import_venue
from storage.osm.dataset import osm_dataset
from tests._dbserver import fresh_store
from tests.venues.osm_station import area, node

ROOMS: list[tuple[str, dict[str, str], tuple[float, float, float, float]]] = [
    (
        "way/1",
        {
            "name": "Boulangerie",
            "name:fr": "Boulangerie",
            "name:en": "Bakery",
            "name:de": "Bäckerei",
        },
        (0, 10, 10, 20),
    ),
    (
        "way/2",
        {"name": "Pharmacie", "name:fr": "Pharmacie", "name:en": "Pharmacy"},
        (10, 10, 20, 20),
    ),
    ("way/3", {"name": "Kiosque"}, (20, 10, 30, 20)),  # plain name only
    (  # name:fr differs from name: name:fr is read; a name: key that is no language
        "way/4",
        {"name": "Tabac", "name:fr": "Tabac-Presse", "name:etymology": "tobacco"},
        (0, -10, 10, 0),
    ),
    ("way/5", {"name": "Relay", "name:de": "Relay", "name:zh-hant": "雷萊"}, (10, -10, 20, 0)),
]


def place(folder: Path) -> Path:
    """A corridor on level 0 with five named shops along it (ROOMS) and an information
    node named in English and Chinese in the corridor."""
    features = [area({"id": "way/9", "indoor": "corridor", "level": "0"}, 0, 0, 30, 10)]
    for source, names, box in ROOMS:
        features.append(area({"id": source, "indoor": "room", "level": "0", **names}, *box))
    info = {"id": "node/8", "amenity": "information", "level": "0"}
    features.append(node({**info, "name:en": "Information", "name:zh-Hant": "詢問處"}, 25, 5))
    path = folder / "galerie.geojson"
    path.write_bytes(orjson.dumps({"type": "FeatureCollection", "features": features}))
    return path


def unit_names(dataset: ImdfDataset) -> dict[str, Any]:
    """OSM element -> its unit's dataset `name`."""
    return {u["id"].split("-", 1)[1].replace("-", "/"): u["name"] for u in dataset.data["units"]}


def test_the_language_of_name_is_the_one_name_xx_agrees_with_most(tmp_path: Path) -> None:
    dataset = osm_dataset(place(tmp_path), ImdfOptions())
    # name:fr equals name on two features, name:de on one: the place is French
    assert dataset.data["language"] == "fr"
    assert unit_names(dataset) == {
        "way/1": {"fr": "Boulangerie", "en": "Bakery", "de": "Bäckerei"},
        "way/2": {"fr": "Pharmacie", "en": "Pharmacy"},
        "way/3": "Kiosque",
        "way/4": "Tabac-Presse",
        "way/5": {"fr": "Relay", "de": "Relay", "zh-Hant": "雷萊"},
    }
    info = next(loc for loc in dataset.data["locations"] if loc["id"].startswith("galerie-node-8"))
    assert info["name"] == {"en": "Information", "zh-Hant": "詢問處"}  # no name: no French
    floor = dataset.data["floors"][0]
    assert (floor["name"], floor["label"], floor["short_label"]) == (
        "Level 0",  # English words, one language: plain
        "Level 0",
        "0",
    )
    assert dataset.data["assets"][0]["name"] == "galerie"  # the file's name
    assert dataset.report.examples["name: key that is no language tag, not read"] == [
        "way/4: name:etymology"
    ]
    assert dataset.report.examples["name and name:fr differ, name:fr read"] == [
        "way/4: Tabac / Tabac-Presse"
    ]


def test_language_names_the_language_of_name(tmp_path: Path) -> None:
    dataset = osm_dataset(place(tmp_path), ImdfOptions(languages=("de",)))
    assert dataset.data["language"] == "de"
    names = unit_names(dataset)
    assert names["way/1"] == {"de": "Bäckerei", "fr": "Boulangerie", "en": "Bakery"}
    assert names["way/2"] == {"de": "Pharmacie", "fr": "Pharmacie", "en": "Pharmacy"}
    assert names["way/3"] == "Kiosque"
    assert names["way/4"] == {"de": "Tabac", "fr": "Tabac-Presse"}


def test_a_place_without_name_xx_is_english_and_plain(tmp_path: Path) -> None:
    features = [
        area({"id": "way/9", "indoor": "corridor", "level": "0"}, 0, 0, 30, 10),
        area({"id": "way/1", "indoor": "room", "level": "0", "name": "Shop A"}, 0, 10, 10, 20),
        area({"id": "way/2", "indoor": "room", "level": "0", "name": "Shop A"}, 10, 10, 20, 20),
    ]
    path = tmp_path / "plain.geojson"
    path.write_bytes(orjson.dumps({"type": "FeatureCollection", "features": features}))
    dataset = osm_dataset(path, ImdfOptions())
    assert dataset.data["language"] == "en"
    assert unit_names(dataset) == {"way/1": "Shop A 1", "way/2": "Shop A 2"}
    assert dataset.data["floors"][0]["name"] == "Level 0"
    assert not [kind for kind in dataset.report.counts if "name" in kind]


async def test_stored_with_every_language(db_server: Any, settings: Any, tmp_path: Path) -> None:
    dataset = osm_dataset(place(tmp_path), ImdfOptions())
    async with fresh_store(db_server) as store:
        await import_venue(store, dataset, limits=settings.svg_limits)
        units = {
            doc["_id"]: (doc["name"], doc.get("names"))
            async for doc in store.db[col.UNITS].find({})
        }
    assert units["galerie-way-1"] == (
        "Boulangerie",
        {"fr": "Boulangerie", "en": "Bakery", "de": "Bäckerei"},
    )
    assert units["galerie-way-3"] == ("Kiosque", None)
