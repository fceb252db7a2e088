"""The language of an answer (issue 51): what the visitor asks for (REST's `lang=` or
`Accept-Language`; /graphql's the same, or the operation's `@lang`), met by the
languages floorgate speaks (`routing.vocabulary.LANGUAGES`, those its directions are
written in).

One language answers a request: its names (each record's text in it, else its default:
`storage.cache.names`), its directions' sentences, its `Content-Language`. The first wish a
spoken language suits wins (`zh-HK` -> `zh-Hant`, `zh` -> `zh-Hans`, `en-GB` -> `en`);
none does, or none is asked: the service's default (FLOORGATE_DEFAULT_LANGUAGE), and
the answer says it. Lengths in the directions are metric unless the visitor's region
uses feet (the US, as the viewer does): a wish without a region means its language's
likely one (`en` -> US).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from functools import cached_property

from parsing.language_tags import (
    LanguageTag,
    canonical_tag,
    likely_region,
    parse_tag,
    reader,
    suits,
)
from resolvers.errors import ApiError, ErrorCode
from resolvers.limits import MAX_ACCEPT_LANGUAGE_BYTES, MAX_ACCEPT_LANGUAGE_RANGES
from routing.vocabulary import SUPPORTED

# The languages answers are told in: the vocabulary's (rest/ reads them here, the one name).
SPOKEN = SUPPORTED

FEET_REGIONS = frozenset({"US", "LR", "MM"})  # where lengths are told in feet
# The region a canonical tag names when its unit is not its language's likely one:
# `en-001` (English, the world: metres), `de-US` (German in feet).
METRIC_REGION, FEET_REGION = "001", "US"
ACCEPT_LANGUAGE = "Accept-Language"


@dataclass(frozen=True)
class Language:
    """The language one request is answered in: a spoken tag, and what goes with it."""

    tag: str  # one of SPOKEN: `Content-Language`, the names', the directions'
    metric: bool  # the directions' default length unit
    asked: bool = True  # False: nothing asked was spoken (the default answers)

    @cached_property
    def reading(self) -> LanguageTag:
        """The tag names are matched against (`storage.cache.names.READ_LANGUAGE`)."""
        parsed = parse_tag(self.tag)
        assert parsed is not None  # SPOKEN tags are well formed (tests/resolvers)
        return reader(parsed)

    @property
    def key(self) -> str:
        """What a kept answer and its tag are told apart by: the language chosen, never
        the text asked (issue 63: `de-x-aaaa`, `de-x-aaab`... are one answer)."""
        return f"{self.canonical};{'asked' if self.asked else 'default'}"

    @cached_property
    def canonical(self) -> str:
        """The tag that, asked again as `lang=`, chooses this language and unit: the
        spoken tag, with a region where the unit is not its language's likely one
        (`en-GB` -> `en-001`, `en-US` -> `en`, `de-CH` -> `de`). What REST's paging links
        echo of `lang=`, so the next page is in the first one's language."""
        if _metric(parse_tag(self.tag)) == self.metric:
            return self.tag
        return f"{self.tag}-{METRIC_REGION if self.metric else FEET_REGION}"


@functools.lru_cache(maxsize=8)
def default_language(tag: str) -> Language:
    """The language of a request that asks for none (or for none spoken). Made once per
    tag (the setting's: never client text): parsing it took 2 us of every request."""
    return Language(tag, _metric(parse_tag(tag)), asked=False)


def accepted(header: str) -> list[str]:
    """The language ranges of an `Accept-Language` value, most wanted first (by quality,
    then as written); ranges of quality 0, malformed ones and their qualities are left
    out, as RFC 9110 lets a server ignore what it cannot read. 431 over
    MAX_ACCEPT_LANGUAGE_BYTES: a browser sends a few dozen."""
    if len(header.encode()) > MAX_ACCEPT_LANGUAGE_BYTES:
        raise ApiError(
            ErrorCode.HEADER_TOO_LARGE,
            header=ACCEPT_LANGUAGE,
            limit=str(MAX_ACCEPT_LANGUAGE_BYTES),
        )
    ranked: list[tuple[float, int, str]] = []
    for position, part in enumerate(header.split(",")[:MAX_ACCEPT_LANGUAGE_RANGES]):
        wish, _, parameters = part.strip().partition(";")
        quality = _quality(parameters)
        wish = wish.strip()
        if quality is None or quality <= 0 or not wish:
            continue
        ranked.append((-quality, position, wish))
    return [wish for _, _, wish in sorted(ranked)]


def _quality(parameters: str) -> float | None:
    """`q=0.8` -> 0.8; none -> 1; a malformed one -> None (the range is ignored)."""
    text = parameters.strip()
    if not text:
        return 1.0
    name, _, value = text.partition("=")
    if name.strip().lower() != "q":
        return None
    try:
        quality = float(value.strip())
    except ValueError:
        return None
    return quality if 0.0 <= quality <= 1.0 else None


def choose(wishes: list[str], default: str) -> Language:
    """The spoken language the first wish it suits (`*` is the default); else the default,
    not asked."""
    for wish in wishes:
        if wish == "*":
            return Language(default, _metric(parse_tag(default)))
        tag = parse_tag(wish)
        if tag is None:
            continue
        spoken = _spoken(reader(tag))
        if spoken is not None:
            return Language(spoken, _metric(tag))
    return default_language(default)


def _spoken(wanted: LanguageTag) -> str | None:
    """The spoken tag that best suits a reader of `wanted` (ties: SPOKEN's order)."""
    best, best_score = None, -1
    for tag, spoken in _spoken_readers():
        score = suits(wanted, spoken)
        if score is not None and score > best_score:
            best, best_score = tag, score
    return best


@functools.cache
def _spoken_readers() -> tuple[tuple[str, LanguageTag], ...]:
    """Each spoken tag with its reader's parts, made once (on the first wish: Babel's
    tables are not read at start)."""
    parsed = [(tag, parse_tag(tag)) for tag in SPOKEN]
    return tuple((tag, reader(found)) for tag, found in parsed if found is not None)


def _metric(tag: LanguageTag | None) -> bool:
    """Metres, unless the tag's region (or its language's likely one) uses feet."""
    if tag is None:
        return True
    region = tag.region or likely_region(tag.language)
    return region not in FEET_REGIONS


def checked_lang(value: str) -> str | None:
    """What is wrong with a `lang=` value, None when it is a well-formed tag (or `*`)."""
    if value == "*" or canonical_tag(value) is not None:
        return None
    return "must be a BCP 47 language tag, such as en, zh-Hant or de-CH"


def language_etag(etag: str, language: Language | None) -> str:
    """A tag told apart by the language the visitor asked for: the same data answered in
    two languages is two answers, though their bytes may be equal (a record named once).
    An answer in the default, asked for by nobody, keeps the tag it always had."""
    return etag if language is None or not language.asked else f"{etag}.{language.tag}"
