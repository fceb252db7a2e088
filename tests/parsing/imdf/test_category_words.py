"""The words of generated names in each language of directions (parsing/imdf/
category_words.py, issue 66 point 3): one table, the same languages as the sentences,
no two categories one word, and labels as a visitor reads them."""

from __future__ import annotations

from collections import Counter

import pytest

from parsing.imdf.categories import category_label
from parsing.imdf.category_words import DETAILS, LANGUAGES, WORDS
from routing.vocabulary import SUPPORTED


def test_the_languages_are_those_of_directions():
    assert LANGUAGES == SUPPORTED
    assert LANGUAGES[0] == "en"


@pytest.mark.parametrize("table", [WORDS, DETAILS], ids=["words", "details"])
def test_every_row_has_a_word_in_every_language(table):
    for key, row in table.items():
        assert len(row) == len(LANGUAGES), key
        assert all(word.strip() == word and word for word in row), key


@pytest.mark.parametrize("language", LANGUAGES)
def test_no_two_categories_share_a_word(language):
    """Else two kinds of unnamed rooms of one floor would be numbered as one."""
    column = LANGUAGES.index(language)
    counted = Counter(row[column].casefold() for row in WORDS.values())
    assert [word for word, count in counted.items() if count > 1] == []


@pytest.mark.parametrize(
    ("category", "language", "label"),
    [
        ("restroom.female", "en", "Restroom (female)"),
        ("restroom.female", "zh-Hant", "洗手間 (女)"),
        ("restroom.male.wheelchair", "de", "Toilette (Herren barrierefrei)"),
        ("elevator", "zh-Hans", "电梯"),
        ("elevator", "fr", "Ascenseur"),
        ("nonpublic", "es", "Zona no pública"),
        ("unspecified", "en", "Space"),
        ("conferenceroom", "en", "Conference room"),  # was "Conferenceroom"
        ("lounge_bar", "zh-Hant", "Lounge bar"),  # no row: the English rule
        ("restroom.custom", "fr", "Toilettes (custom)"),  # a detail without a row
        ("elevator", "pt", "Elevator"),  # not a language of directions: English
        ("", "en", "Space"),
    ],
)
def test_labels(category, language, label):
    assert category_label(category, language) == label
