"""Choosing the answer's language (`resolvers.language`): Accept-Language's ranges by
quality, the spoken language each wish means, lengths in feet only in the US, and what
is refused."""

from __future__ import annotations

import pytest

from resolvers.errors import ApiError
from resolvers.language import SPOKEN, Language, accepted, checked_lang, choose, default_language


def test_ranges_by_quality_then_as_written():
    assert accepted("zh-HK, en;q=0.8, de;q=0.9, fr;q=0, *;q=0.1") == ["zh-HK", "de", "en", "*"]
    assert accepted(" en ; q=1.0 ,, de;level=1, es;q=2, it;q=x") == ["en"]
    with pytest.raises(ApiError) as refused:
        accepted("en, " * 300)
    assert (refused.value.status, refused.value.message) == (
        431,
        "Accept-Language header larger than 1024 bytes",
    )


@pytest.mark.parametrize(
    ("wishes", "chosen"),
    [
        (["zh-HK"], Language("zh-Hant", metric=True)),
        (["zh-TW"], Language("zh-Hant", metric=True)),
        (["zh"], Language("zh-Hans", metric=True)),
        (["zh-CN"], Language("zh-Hans", metric=True)),
        (["en-GB"], Language("en", metric=True)),
        (["en-US"], Language("en", metric=False)),
        (["en"], Language("en", metric=False)),  # en's likely region: the US
        (["de-CH"], Language("de", metric=True)),
        (["ja", "fr-CA", "de"], Language("fr", metric=True)),
        (["*"], Language("en", metric=False)),
        (["ja", "ko"], Language("en", metric=False, asked=False)),
        ([], Language("en", metric=False, asked=False)),
    ],
)
def test_the_spoken_language_of_each_wish(wishes, chosen):
    assert choose(wishes, "en") == chosen


def test_the_default_and_what_lang_may_be():
    assert default_language("de") == Language("de", metric=True, asked=False)
    assert choose(["ja"], "zh-Hant").tag == "zh-Hant"
    assert checked_lang("zh-Hant") is None and checked_lang("*") is None
    assert checked_lang("not a tag") == (
        "must be a BCP 47 language tag, such as en, zh-Hant or de-CH"
    )
    assert Language("de", metric=True).key == "de;asked"
    assert Language("de", metric=False).key == "de-US;asked"
    assert default_language("en").key == "en;default"  # its tag is not the asker's


@pytest.mark.parametrize("tag", SPOKEN)
@pytest.mark.parametrize("metric", [True, False])
def test_a_canonical_tag_chooses_its_language_again(tag: str, metric: bool):
    """What a paging link echoes of `lang=` (issue 63) is answered in the same language
    and unit as the page that links it."""
    language = Language(tag, metric=metric)
    assert checked_lang(language.canonical) is None
    assert choose([language.canonical], "en") == language
