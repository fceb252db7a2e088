"""Language tags (`parsing.language_tags`): canonical spelling, the script a region
implies, and how well a name's language suits a reader's."""

from __future__ import annotations

import pytest

from parsing.language_tags import (
    LanguageTag,
    canonical_tag,
    likely_region,
    parse_tag,
    reader,
    suits,
)


@pytest.mark.parametrize(
    ("text", "parts"),
    [
        ("zh-hant-hk", ("zh", "Hant", "HK", "zh-Hant-HK")),
        ("zh-HK", ("zh", "Hant", "HK", "zh-HK")),  # the region implies its script
        ("zh_CN", ("zh", "Hans", "CN", "zh-CN")),
        ("zh", ("zh", None, None, "zh")),  # a bare language implies none
        ("EN-gb", ("en", None, "GB", "en-GB")),
        ("es-419", ("es", "Latn", "419", "es-419")),
        ("sr-Latn", ("sr", "Latn", None, "sr-Latn")),
        ("en-US-x-twain", ("en", None, "US", "en-US-x-twain")),
    ],
)
def test_parts_and_spelling(text, parts):
    tag = parse_tag(text)
    assert tag is not None
    assert (tag.language, tag.script, tag.region, tag.text) == parts
    assert canonical_tag(text) == parts[3]


@pytest.mark.parametrize(
    "text", ["", "x-private", "i-klingon", "a", "english", "zh-", "en--GB", "en GB", "a" * 36]
)
def test_what_is_not_a_tag(text):
    assert canonical_tag(text) is None


def test_likely_regions_and_readers():
    assert [likely_region(language) for language in ("en", "de", "zh")] == ["US", "DE", "CN"]
    assert reader(LanguageTag("zh", None, None, "zh")).script == "Hans"
    assert reader(LanguageTag("zh", "Hant", "TW", "zh-TW")).script == "Hant"


def test_how_a_name_suits_a_reader():
    traditional = reader(parse_tag("zh-Hant"))  # type: ignore[arg-type]
    scores = {
        text: suits(traditional, parse_tag(text))  # type: ignore[arg-type]
        for text in ("zh-Hant-HK", "zh-HK", "zh-Hant", "zh", "zh-CN", "zh-Hans", "en")
    }
    assert scores == {
        "zh-Hant-HK": 2,
        "zh-HK": 2,
        "zh-Hant": 2,
        "zh": 0,  # either script: after a name in the reader's own
        "zh-CN": None,
        "zh-Hans": None,
        "en": None,
    }
