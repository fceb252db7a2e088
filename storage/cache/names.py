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

from collections.abc import Mapping
from contextvars import ContextVar
from typing import Any

from parsing.language_tags import LanguageTag, parse_tag, suits

NAME, NAMES = "name", "names"
# The language the current operation's reads give names in; None: as stored.
READ_LANGUAGE: ContextVar[LanguageTag | None] = ContextVar("read_language", default=None)


def local_name(names: Mapping[str, Any], wanted: LanguageTag) -> str | None:
    """The text of `names` that best suits `wanted` (`parsing.language_tags.suits`; ties:
    the first), None when none does."""
    best, best_score = None, -1
    for tag, text in names.items():
        given = parse_tag(tag)
        score = None if given is None or not isinstance(text, str) else suits(wanted, given)
        if score is not None and score > best_score:
            best, best_score = text, score
    return best


def localize(document: dict[str, Any]) -> dict[str, Any]:
    """`document` with `name` in the read language, where it has `names` (in place)."""
    wanted = READ_LANGUAGE.get()
    names = document.get(NAMES)
    if wanted is not None and isinstance(names, dict):
        text = local_name(names, wanted)
        if text is not None:
            document[NAME] = text
    return document


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
