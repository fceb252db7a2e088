"""Names in several languages as reads give them (`storage.cache.names`): the best text
for the read language, records named once left alone, projections that keep `names`."""

from __future__ import annotations

from parsing.language_tags import parse_tag, reader
from storage.cache.names import (
    READ_LANGUAGE,
    local_name,
    localize,
    localize_all,
    names_key,
    names_of,
    with_names,
)


def wanted(text: str):
    tag = parse_tag(text)
    assert tag is not None
    return reader(tag)


NAMES = {"en": "Pharmacy", "zh": "药房?", "zh-HK": "藥房", "fr-CA": "Pharmacie"}


def test_the_best_text_for_each_reader():
    assert local_name(NAMES, wanted("zh-Hant")) == "藥房"  # zh-HK implies Hant
    assert local_name(NAMES, wanted("zh-Hans")) == "药房?"  # plain zh suits both scripts
    assert local_name(NAMES, wanted("fr")) == "Pharmacie"  # fr-CA is French
    assert local_name(NAMES, wanted("en")) == "Pharmacy"
    assert local_name(NAMES, wanted("de")) is None
    assert local_name({"en": 3}, wanted("en")) is None  # not a text: none


def test_a_page_is_localized_in_place():
    page = [
        {"_id": "a", "name": "Pharmacy", "names": NAMES},
        {"_id": "b", "name": "Store"},  # named once: as stored
        {"_id": "c", "name": "Hall", "names": {"en": "Hall", "de": "Halle"}},
    ]
    localize_all(page, wanted("zh-Hant"))
    assert [doc["name"] for doc in page] == ["藥房", "Store", "Hall"]
    token = READ_LANGUAGE.set(wanted("de"))
    try:
        assert localize({"name": "Hall", "names": {"en": "Hall", "de": "Halle"}})["name"] == (
            "Halle"
        )
        assert names_key() == "de"
    finally:
        READ_LANGUAGE.reset(token)
    assert names_key() == ""
    assert localize({"name": "Hall", "names": {"de": "Halle"}})["name"] == "Hall"  # no language


def test_projections_and_every_name():
    assert with_names({"name": 1, "x": 1}) == {"name": 1, "x": 1, "names": 1}
    assert with_names({"x": 1}) == {"x": 1}
    assert with_names(None) is None
    assert names_of({"name": "Hall", "names": {"en": "Hall", "de": "Halle"}}) == [
        ("en", "Hall"),
        ("de", "Halle"),
    ]
    assert names_of({"name": "Store"}) == [(None, "Store")]
