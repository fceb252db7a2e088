"""One asset's places, ready to be searched (issue 47): built once from its stored units
and locations (`places.collect`), kept per process until that data changes
(`storage_cache`), and asked by `find`.

A query is folded and cut into terms (`text`); a place matches when every term meets one
of its words: the word itself, a word it begins (autocomplete: "conf" meets
"conference"), or a word a typo or two away (`text.allowed_edits`, optimal string
alignment: a swap of two letters is one edit). Words are looked up in one sorted
vocabulary (prefixes by bisection, typos by rapidfuzz over it), never by a scan of the
places. The whole query may also be a typo or two away from a whole name with the same
numbers ("jurasic tabel" meets "Jurassic Table"; "unit 102" never meets "Unit 101"). A
code (a word of letters and digits: "LL21D", "212D") forgives one missing, extra or
swapped character, a digit's too ("ll1d" meets "LL21D"), but never one digit for another
(`slipped`); two numbers none. Tiers, best first: the exact name, word prefixes, a kind's
word, a typo of the whole name, typos of words, a kind met otherwise, a tag (`Tier`).
"""

from __future__ import annotations

import bisect
import itertools
import marshal
import re
import sys
from array import array
from collections.abc import Iterator
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Final, NamedTuple

from rapidfuzz import process
from rapidfuzz.distance import OSA, Indel

from resolvers.search.categories import CATEGORY_ROWS, VALUE_KIND
from resolvers.search.text import allowed_edits, fold, phrase


class Field(IntEnum):
    """What of a place a word comes from, in the order `matched` prefers them."""

    NAME = 0
    ALT_NAME = 1
    ID = 2
    CATEGORY = 3
    TAG = 4


MATCHED = {
    Field.NAME: "name",
    Field.ALT_NAME: "alt_name",
    Field.ID: "id",
    Field.CATEGORY: "category",
    Field.TAG: "tag",
}
TEXT_FIELDS = (Field.NAME, Field.ALT_NAME, Field.ID)


class Tier(IntEnum):
    """How a place matched, best first: the order of results before walking time. A kind's
    word typed whole (`KIND`: "lift", "toilets") comes before typos of names (issue 66,
    point 7: "lift" at a station listed "left luggage" and two gift shops before any
    lift); a kind met by a word's beginning or a typo of it (`CATEGORY`) after them. The
    whole name a typo or two away (`NAME_TYPO`: "restmoom 1" for "Restroom 1") comes before
    names whose words a query's words meet with typos ("Restroom (female) 1", issue 66)."""

    EXACT = 0
    PREFIX = 1
    KIND = 2
    NAME_TYPO = 3
    FUZZY = 4
    CATEGORY = 5
    TAG = 6


class Quality(IntEnum):
    """How one term met one word."""

    WORD = 0
    PREFIX = 1
    TYPO = 2


SCORES = {
    Tier.EXACT: 1.0,
    Tier.PREFIX: 0.8,
    Tier.KIND: 0.7,
    Tier.NAME_TYPO: 0.6,  # at most 0.6: the viewer takes a score over it for no typo
    Tier.FUZZY: 0.55,
    Tier.CATEGORY: 0.4,
    Tier.TAG: 0.2,
}
# Bytes one place costs the index beyond its text: its record, its postings and its share
# of the vocabulary. The benchmark's 10,000 places (tests/benchmarks/search.py) hold
# 622 bytes each (tracemalloc, as `index_bytes` measures; 1,258 as objects, before
# `Places`); this and twice their text's characters make 625.
PLACE_BYTES = 540


@dataclass(slots=True)
class Place:
    """One place as collected (`places.collect`): a unit with the locations that stand
    for it, or a location alone. An index keeps it as an `Entry`."""

    kind: str  # "unit" or "location"
    id: str
    name: str | None
    asset_id: str
    floor_id: str | None
    category: str | None
    # (map id, location id) of every location that stands for it, in that order.
    locations: list[tuple[str, str]] = field(default_factory=list)
    floors: tuple[str, ...] = ()
    # Its name in every language the data has (issue 51), by tag: the answer gives the one
    # asked for (`storage.cache.names.local_name`); every one finds it.
    names: dict[str, str] = field(default_factory=dict)
    # What finds it, while it is indexed (then dropped): (field, text), the name first;
    # and the kinds it is of (rows of `categories.CATEGORIES`, by name, and its category).
    texts: list[tuple[Field, str]] = field(default_factory=list)
    kinds: tuple[str, ...] = ()
    sort_name: str = ""  # its name folded: the order of a tier's results
    name_length: int = 0  # characters of its name's phrase: how much a query covers


class Entry(NamedTuple):
    """One place as an index gives it (`Places`): what `Place` became once indexed."""

    kind: str
    id: str
    name: str | None
    asset_id: str
    floor_id: str | None
    category: str | None
    locations: tuple[tuple[str, str], ...]
    floors: tuple[str, ...]
    names: tuple[tuple[str, str], ...]  # (tag, text), as `Place.names`
    sort_name: str
    name_length: int

    @classmethod
    def of(cls, place: Place) -> Entry:
        return cls(
            place.kind,
            place.id,
            place.name,
            place.asset_id,
            place.floor_id,
            place.category,
            tuple(place.locations),
            place.floors,
            tuple((tag, text) for tag, text in place.names.items() if isinstance(text, str)),
            place.sort_name,
            place.name_length,
        )

    def location_on(self, map_id: str | None) -> tuple[str, str] | None:
        """(map id, location id) on `map_id`, or the first when none is asked."""
        for found in self.locations:
            if map_id is None or found[0] == map_id:
                return found
        return None


class Places:
    """An index's places, each kept as one `bytes` (its `Entry`, marshalled) and given as
    an `Entry` when asked, in tuples of them: what the cyclic garbage collector walks.
    As objects (a `Place` with its lists and tuples each), the 10,000 places of an index
    were 52,000 objects the collector walked after every update of it: pauses of 30 to
    100 ms of the event loop, an honest GET's p95 at 8-10x idle during writes (issue 63,
    finding 5). A tuple of nothing but text and bytes is walked once, then no more
    (CPython stops tracking it); a list of them is walked by every full collection.
    What the order of results needs of every match is kept apart, as text."""

    __slots__ = ("_rows", "asset_ids", "ids", "sort_names")

    def __init__(self, places: list[Place]) -> None:
        self._rows = tuple(marshal.dumps(tuple(Entry.of(place))) for place in places)
        self.ids = tuple(place.id for place in places)
        self.sort_names = tuple(place.sort_name for place in places)
        self.asset_ids = tuple(place.asset_id for place in places)

    def __len__(self) -> int:
        return len(self._rows)

    def __getitem__(self, number: int) -> Entry:
        return Entry._make(marshal.loads(self._rows[number]))

    def __iter__(self) -> Iterator[Entry]:
        return (self[number] for number in range(len(self._rows)))

    def __eq__(self, other: object) -> bool:
        """The same places in the same order (an update gives what a build would)."""
        if not isinstance(other, Places):
            return NotImplemented
        return self._rows == other._rows and self.ids == other.ids


class Match(NamedTuple):
    place: int  # its number in `SearchIndex.places`
    tier: Tier
    matched: Field


DIGITS = re.compile(r"\d+")


def numbers(text: str) -> str:
    """The digits of a text, in order: what a typo may not change ("b1 7h1" keeps
    "b1 71"'s 171; "unit 102" is not "unit 101")."""
    return "".join(DIGITS.findall(text))


def is_code(word: str) -> bool:
    """A word of letters and digits both ("ll21d", "212d", "b1"): a room's code."""
    return any(char.isdigit() for char in word) and any(char.isalpha() for char in word)


def slipped(typed: str, digits: str) -> bool:
    """`typed` is `digits` with at most one digit left out, added or swapped with its
    neighbour, never one changed for another ("21" and "12" for "212"; not "213")."""
    if typed == digits:
        return True
    if abs(len(typed) - len(digits)) == 1:
        return Indel.distance(typed, digits) == 1
    return sorted(typed) == sorted(digits) and OSA.distance(typed, digits) == 1


CODE_TYPO_CHARS = 4  # a code this long forgives one typo, in a term one shorter too


def _code_typo(term: str, word: str, distance: int, digits: str) -> bool:
    """`term` (with digits) is one missing, extra or swapped character off `word`, one of
    them a code (issue 66, point 7: "ll1d" for "LL21D", "t12d" and "21d" for "212D", "212"
    for "2B12"): one edit, CODE_TYPO_CHARS characters or more in the longer, the digits
    `slipped`. Two numbers are never typos of each other ("102" is not "1002")."""
    return (
        distance == 1
        and max(len(term), len(word)) >= CODE_TYPO_CHARS
        and (is_code(term) or is_code(word))
        and slipped(digits, numbers(word))
    )


STEP = 64  # places indexed between two pauses of `SearchIndex.building`
MAX_TERMS = 12  # words of a query matched one by one; the whole query is compared too
FIELD_BITS = 3  # a posting is place << FIELD_BITS | field: one 4-byte slot of an array
CODE: Final = "i"  # the array type of postings, kept as their bytes


def packed(codes: list[int]) -> bytes:
    """Postings as bytes: a dict of them, unlike one of arrays, is nothing the collector
    walks (`Places`)."""
    return array(CODE, codes).tobytes()


def unpacked(data: bytes) -> memoryview:
    """The numbers of `packed` bytes."""
    return memoryview(data).cast(CODE)


class SearchIndex:
    """The places of one asset and the words that find them. Postings are arrays of
    `place << FIELD_BITS | field` (as bytes, `packed`); the words of a kind of place
    (category words: 15 say "restroom") point to the kind, and the kind to its places,
    not each place itself. Nothing it holds is walked by the cyclic garbage collector
    but a few containers (`Places`)."""

    def __init__(self, places: list[Place]) -> None:
        for _ in self.building(places):
            pass

    def building(self, places: list[Place]) -> Iterator[None]:
        """Index `places`, pausing every STEP of them: an index made on the event loop
        in slices (issue 63, finding 5) lets other requests run between them."""
        postings: dict[str, list[int]] = {}  # a word -> who has it
        phrases: dict[str, list[int]] = {}  # a whole name, id or other name -> who has it
        kinds: dict[str, list[int]] = {}  # a kind -> its places
        said_of: dict[str, str] = {}  # each distinct text's phrase, folded once
        for index, place in enumerate(places):
            if index % STEP == 0:
                yield
            for kind, text in place.texts:
                said = said_of.get(text)
                if said is None:
                    said = said_of[text] = phrase(text)
                if not said:
                    continue
                code = index << FIELD_BITS | kind
                if kind in TEXT_FIELDS:
                    phrases.setdefault(said, []).append(code)
                for word in dict.fromkeys(said.split()):
                    postings.setdefault(sys.intern(word), []).append(code)
            for kind_name in place.kinds:
                kinds.setdefault(kind_name, []).append(index)
            place.sort_name = fold(place.name or "")
            place.name_length = len(said_of.get(place.name or "", ""))
            place.texts = []  # indexed: no longer needed
        yield
        self._postings = {word: packed(codes) for word, codes in postings.items()}
        yield
        self._kind_places = tuple(packed(found) for found in kinds.values())
        kind_words_of: dict[str, list[int]] = {}  # a category word -> its kinds
        for position, kind_name in enumerate(kinds):
            for word in dict.fromkeys(phrase(" ".join(kind_words(kind_name))).split()):
                kind_words_of.setdefault(sys.intern(word), []).append(position)
        self._kind_words = {word: packed(found) for word, found in kind_words_of.items()}
        self._vocabulary = tuple(sorted({*self._postings, *self._kind_words}))
        yield
        self._phrases = {said: packed(codes) for said, codes in phrases.items()}
        yield
        # Whole names and other names (not ids), for typos over a whole text.
        self._full_texts = tuple(
            said
            for said, codes in phrases.items()
            if any(code & FIELD_MASK != Field.ID for code in codes)
        )
        yield
        self.places = Places(places)
        self.bytes = self._measure(places, said_of)

    @staticmethod
    def _measure(places: list[Place], said_of: dict[str, str]) -> int:
        """An estimate of what the index holds (the cache's budget counts it)."""
        text = sum(len(said) for said in said_of.values())
        ids = sum(len(place.id) + sum(len(loc) for _, loc in place.locations) for place in places)
        return PLACE_BYTES * len(places) + 2 * (text + ids)

    def find(self, query: str) -> list[Match]:
        """Every place `query` matches, once, with its best tier (unordered)."""
        said = phrase(query)
        # Each term once, the first MAX_TERMS of them: every term is a pass over the
        # postings of the words it meets ("r r r ... r", 50 times, took 185 ms).
        terms = list(dict.fromkeys(said.split()))[:MAX_TERMS]
        if not terms:
            return []
        best = self._by_terms(terms)

        def offer(place: int, tier: Tier, matched: Field) -> None:
            if place not in best or (tier, matched) < best[place]:
                best[place] = (tier, matched)

        for code in unpacked(self._phrases.get(said, b"")):
            offer(code >> FIELD_BITS, Tier.EXACT, Field(code & FIELD_MASK))
        edits = allowed_edits(said)
        if edits:
            digits = numbers(said)
            for text, _, _ in process.extract(
                said, self._full_texts, scorer=OSA.distance, score_cutoff=edits, limit=None
            ):
                if numbers(text) != digits:
                    continue  # "unit 102" is another unit than "unit 101", not a typo of it
                for code in unpacked(self._phrases[text]):
                    if code & FIELD_MASK != Field.ID:
                        offer(code >> FIELD_BITS, Tier.NAME_TYPO, Field(code & FIELD_MASK))
        return [Match(place, tier, matched) for place, (tier, matched) in best.items()]

    def _met(self, term: str) -> dict[int, int]:
        """Each place one term meets, with its best meeting as a rank (`_rank`)."""
        met: dict[int, int] = {}
        for word, quality in self._words(term):
            for code in unpacked(self._postings.get(word, b"")):
                field_ = code & FIELD_MASK
                if field_ == Field.ID and quality != Quality.WORD:
                    continue  # an id's words are met whole: "9" is no beginning of "9f3c2a1e"
                rank = _rank(field_, quality)
                place = code >> FIELD_BITS
                if rank < met.get(place, NO_RANK):
                    met[place] = rank
            rank = _rank(Field.CATEGORY, quality)
            for position in unpacked(self._kind_words.get(word, b"")):
                for place in unpacked(self._kind_places[position]):
                    if rank < met.get(place, NO_RANK):
                        met[place] = rank
        return met

    def _by_terms(self, terms: list[str]) -> dict[int, tuple[Tier, Field]]:
        """Places every term meets, with the tier the worst of those meetings gives and
        the field the first term met."""
        found: dict[int, tuple[int, int]] = {}  # place -> (worst rank, first rank)
        for position, term in enumerate(terms):
            met = self._met(term)
            if position == 0:
                found = {place: (rank, rank) for place, rank in met.items()}
            else:
                found = {
                    place: (max(worst, met[place]), first)
                    for place, (worst, first) in found.items()
                    if place in met
                }
            if not found:
                return {}
        return {place: _tier(worst, first) for place, (worst, first) in found.items()}

    def _words(self, term: str) -> list[tuple[str, Quality]]:
        """The vocabulary's words `term` meets, and how."""
        met: dict[str, Quality] = {}
        start = bisect.bisect_left(self._vocabulary, term)
        for word in itertools.islice(self._vocabulary, start, None):
            if not word.startswith(term):
                break
            met[word] = Quality.WORD if word == term else Quality.PREFIX
        edits = allowed_edits(term)
        code = len(term) >= CODE_TYPO_CHARS - 1 and any(char.isdigit() for char in term)
        if edits or code:
            digits = numbers(term)
            for word, distance, _ in process.extract(
                term,
                self._vocabulary,
                scorer=OSA.distance,
                score_cutoff=max(edits, 1 if code else 0),
                limit=None,
            ):
                if distance <= edits and numbers(word) == digits:
                    met.setdefault(word, Quality.TYPO)  # numbers are never typos of others
                elif code and _code_typo(term, word, distance, digits):
                    met.setdefault(word, Quality.TYPO)
        return list(met.items())

    def score(self, match: Match, asked: int) -> float:
        """In (0, 1]: the tier's, less up to a quarter for the share of the name the query
        (`asked`: its phrase's characters) does not cover; asked for the results shown,
        not for every match."""
        length = self.places[match.place].name_length
        covered = min(1.0, asked / length) if length else 1.0
        return round(SCORES[match.tier] * (0.75 + 0.25 * covered), 4)


FIELD_MASK = (1 << FIELD_BITS) - 1
# A term's meeting with a word of a place, as one comparable number: the field's class
# (0 for a name, an id or another name, else the field), then how the word was met, then
# the field. The worst of a place's terms gives its tier; less is better.
NO_RANK = 1 << 16


def _rank(field_: int, quality: int) -> int:
    kind = 0 if field_ in TEXT_FIELDS else field_
    return kind << 6 | quality << 3 | field_


def _tier(worst: int, first: int) -> tuple[Tier, Field]:
    kind, quality = worst >> 6, (worst >> 3) & 7
    if kind == 0:  # every term met a name, an alternative name or the id
        return (Tier.PREFIX if quality <= Quality.PREFIX else Tier.FUZZY), Field(first & 7)
    if kind == Field.CATEGORY:
        return (Tier.KIND if quality == Quality.WORD else Tier.CATEGORY), Field.CATEGORY
    return Tier.TAG, Field.TAG


def kind_words(kind_name: str) -> tuple[str, ...]:
    """The words that find a kind: a row's of `CATEGORIES`, or a category value's own
    (`fitness_centre` is found by "fitness centre")."""
    row = CATEGORY_ROWS.get(kind_name)
    if row is not None:
        return row.words
    return (kind_name.removeprefix(VALUE_KIND).replace(".", " ").replace("_", " "),)
