"""Names in several languages (issue 51): how a record keeps them and how a read gives
the one a request asked for.

A record named in one language keeps `name` as ever. A record named in several keeps
`name` (its default language's text: what a request that asks for no language, or for
one it lacks, reads) and `names`, every language's text by canonical BCP 47 tag, the
default's first. The request's language is told to the reads (`READ_LANGUAGE`, set by
the runner for the work of one operation); every read of the API (`storage.cache.
cached_reads`) then writes the best-suited text into `name` of the documents it gives
(`localize`): the REST faces, plans and GraphQL all read `name` and need not know.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from contextvars import ContextVar
from typing import Any

from parsing.language_tags import LanguageTag, parse_tag, suits

NAME, NAMES = "name", "names"
# Sets of tags whose best match is kept, per wanted language: each key at most
# MAX_NAME_LANGUAGES tags of MAX_TAG_CHARS, so about 1 MiB when full.
BEST_TAGS_KEPT = 1024
MISSING: Any = object()
# The language the current operation's reads give names in; None: as stored.
READ_LANGUAGE: ContextVar[LanguageTag | None] = ContextVar("read_language", default=None)


def local_name(names: Mapping[str, Any], wanted: LanguageTag) -> str | None:
    """The text of `names` that best suits `wanted` (`parsing.language_tags.suits`; ties:
    the first), None when none does."""
    tag = _best_tag(tuple(names), wanted)
    text = None if tag is None else names[tag]
    return text if isinstance(text, str) else None


@functools.lru_cache(maxsize=BEST_TAGS_KEPT)
def _best_tag(tags: tuple[str, ...], wanted: LanguageTag) -> str | None:
    """Which of a record's tags suits `wanted` best: the same few sets of tags come again
    and again (a venue's records share theirs), so a page of 10,000 names localizes in
    the time of its dict lookups (2.2 us a record when each was matched afresh)."""
    best, best_score = None, -1
    for tag in tags:
        given = parse_tag(tag)
        score = None if given is None else suits(wanted, given)
        if score is not None and score > best_score:
            best, best_score = tag, score
    return best


def localize(document: dict[str, Any]) -> dict[str, Any]:
    """`document` with `name` in the read language, where it has `names` (in place)."""
    wanted = READ_LANGUAGE.get()
    if wanted is not None:
        localize_all((document,), wanted)
    return document


def localize_all(documents: Iterable[dict[str, Any]], wanted: LanguageTag) -> None:
    """Each document's `name` in `wanted`, where it has `names` (in place): one pass over
    a page, about 0.2 us a named record (and 0.03 us one named once)."""
    chosen: dict[tuple[str, ...], str | None] = {}  # this page's sets of tags
    for document in documents:
        names = document.get(NAMES)
        if names.__class__ is dict:
            tags = tuple(names)
            tag = chosen.get(tags, MISSING)
            if tag is MISSING:
                tag = chosen[tags] = _best_tag(tags, wanted)
            if tag is not None and isinstance(names[tag], str):
                document[NAME] = names[tag]


def with_names(projection: dict[str, Any] | None) -> dict[str, Any] | None:
    """A projection that selects `name` selects `names` too, so a read can localize it."""
    if projection and projection.get(NAME) and NAMES not in projection:
        return {**projection, NAMES: 1}
    return projection


def names_of(document: Mapping[str, Any]) -> list[tuple[str | None, str]]:
    """Every (language, text) of a record, its default first; a record named in one
    language has one, of no known language."""
    names = document.get(NAMES)
    if isinstance(names, dict) and names:
        return [(tag, text) for tag, text in names.items() if isinstance(text, str)]
    name = document.get(NAME)
    return [] if not isinstance(name, str) else [(None, name)]


def names_key() -> str:
    """The read language's tag, "" for names as stored: what a process cache of
    documents with names (a map's waypoints, its landmarks) keys them by, beside their
    version, so one language's names never answer another."""
    wanted = READ_LANGUAGE.get()
    return "" if wanted is None else wanted.text
