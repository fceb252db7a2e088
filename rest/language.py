"""The visitor's language on HTTP (issue 51), for both faces: a request's `lang=` query
parameter, else its `Accept-Language` header, met by `resolvers.language`; and the
headers each answer carries: `Content-Language` (the language it is in) and
`Vary: Accept-Language` (a cache must keep one copy per language asked)."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request

from parsing.limits import MAX_TAG_CHARS
from resolvers.errors import FieldErrors
from resolvers.language import (
    ACCEPT_LANGUAGE,
    SPOKEN,
    Language,
    accepted,
    checked_lang,
    choose,
    default_language,
)
from resolvers.limits import MAX_ACCEPT_LANGUAGE_BYTES

LANG = "lang"  # the query parameter of every REST route, and of /graphql
VARY = ("Vary", ACCEPT_LANGUAGE)

# What the OpenAPI document says of them on every route but the event stream's.
LANGUAGE_PARAMETERS: list[dict[str, Any]] = [
    {
        "name": LANG,
        "in": "query",
        "required": False,
        "description": "The language to answer in (a BCP 47 tag: `en`, `zh-Hant`, `de-CH`), "
        "before `Accept-Language`: each name in it where the data has it, else in the "
        "record's default; directions' sentences in it. One floorgate does not speak "
        f"({', '.join(SPOKEN)}) answers in the default (`Content-Language` says which).",
        "schema": {"type": "string", "maxLength": MAX_TAG_CHARS},
    },
    {
        "name": ACCEPT_LANGUAGE,
        "in": "header",
        "required": False,
        "description": "Languages in order of preference, with qualities (RFC 9110): "
        f"`zh-HK, en;q=0.8`. At most {MAX_ACCEPT_LANGUAGE_BYTES} bytes (431 above).",
        "schema": {"type": "string"},
    },
]
LANGUAGE_HEADERS: dict[str, Any] = {
    "Content-Language": {
        "description": "The language the answer is in: one of "
        f"{', '.join(SPOKEN)}. Names the data lacks in it are in their default.",
        "schema": {"type": "string", "enum": list(SPOKEN)},
    },
    "Vary": {
        "description": "Includes `Accept-Language`: a cache keeps one answer per language.",
        "schema": {"type": "string"},
    },
}


def request_language(request: Request, default: str, problems: FieldErrors) -> Language:
    """The language `request` asks for: `lang=` (one well-formed tag or `*`; a problem of
    the input otherwise), else `Accept-Language` (431 when too long: ApiError)."""
    given = request.query_params.getlist(LANG) if request.scope.get("query_string") else ()
    if given:
        if len(given) > 1:
            problems.add(LANG, "must be given once")
            return default_language(default)
        wrong = checked_lang(given[0])
        if wrong is not None:
            problems.add(LANG, wrong)
            return default_language(default)
        return choose([given[0]], default)
    header = request.headers.get(ACCEPT_LANGUAGE.lower())
    return choose(accepted(header), default) if header else default_language(default)


def echoed_query(items: list[tuple[str, str]], language: Language | None) -> list[tuple[str, str]]:
    """The query as an answer repeats it (REST's paging links) and as its kept copy is
    keyed: `lang=` as the canonical tag of the language chosen (`Language.canonical`),
    not the text asked. Every spelling of one language (`de-x-abcdefgh`, `DE`, `de-AT`)
    is then one answer, kept once (issue 63), and `next` asks for that language again."""
    if language is None:
        return items
    return [(name, language.canonical if name == LANG else value) for name, value in items]


def language_headers(language: Language | None) -> dict[str, str]:
    """The headers of an answer in `language` (none without one)."""
    if language is None:
        return {}
    return {"Content-Language": language.tag, VARY[0]: VARY[1]}
