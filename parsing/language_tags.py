"""BCP 47 language tags as floorgate reads them (issue 51): a tag's canonical spelling,
its parts, and which names of a record suit a wanted language.

Only the parts names need are read: a language (2-3 letters), a script (4 letters), a
region (2 letters or 3 digits); variants and extensions are kept in the spelling but
never matched on. A region implies its likely script (Babel's likely subtags: `zh-HK`
is written in Hant, `zh-CN` in Hans); a bare language implies none (`zh` may be either,
so it suits a reader of both, after a name in their own script).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from parsing.limits import MAX_TAG_CHARS

# The language of a name the data does not tag, when the import is not told it
# (`--language`): IMDF's plain-string label, OpenStreetMap's plain `name` (docs/imdf.md,
# docs/osm.md, "Names in several languages").
UNSAID_LANGUAGE = "en"

# Keys of CLDR's likely subtags looked up: a language and a region parsed from a tag, so
# at most a few hundred of at most 8 characters.
LIKELY_KEPT = 1024

_TAG = re.compile(
    r"(?P<language>[A-Za-z]{2,3})"
    r"(?:-(?P<script>[A-Za-z]{4}))?"
    r"(?:-(?P<region>[A-Za-z]{2}|[0-9]{3}))?"
    r"(?P<rest>(?:-[A-Za-z0-9]{1,8})*)"
)


@dataclass(frozen=True)
class LanguageTag:
    """A tag's parts: `zh-Hant-HK` is ("zh", "Hant", "HK"); `script` is the one written or
    implied by the region, None when neither says."""

    language: str
    script: str | None
    region: str | None
    text: str  # the canonical spelling, as given parts were (`zh-HK`, not `zh-Hant-HK`)

    def __hash__(self) -> int:
        """The spelling's (a string keeps its hash): a tag is a key of caches asked once
        per record of a page (`storage.cache.names`)."""
        return hash(self.text)


def canonical_tag(text: str) -> str | None:
    """The tag in its canonical case (`zh-hant-hk` -> `zh-Hant-HK`), None when it is not a
    well-formed tag of a language, script and region (private-use and grandfathered
    tags are not names' languages)."""
    parsed = parse_tag(text)
    return None if parsed is None else parsed.text


def parse_tag(text: str) -> LanguageTag | None:
    """The parts of a tag, None when it is not well formed. Not cached: a client's text
    is never a cache key (the CLDR lookups below are keyed by parsed parts)."""
    if len(text) > MAX_TAG_CHARS:
        return None
    match = _TAG.fullmatch(text.replace("_", "-"))
    if match is None:
        return None
    language = match["language"].lower()
    script = match["script"].title() if match["script"] else None
    region = match["region"].upper() if match["region"] else None
    rest = match["rest"].lower()
    spelled = "-".join(part for part in (language, script, region) if part) + rest
    return LanguageTag(language, script or likely_script(language, region), region, spelled)


@functools.lru_cache(maxsize=LIKELY_KEPT)
def _likely(key: str) -> tuple[str, str | None, str | None]:
    """CLDR's likely subtags of `zh_HK`, `und_HK` or `zh` (through Babel, imported with the
    first tag that needs it) as (language, script, region); ("", None, None) unknown."""
    from babel.core import get_global

    parts = str(get_global("likely_subtags").get(key) or "").split("_")
    script = next((part for part in parts[1:] if len(part) == 4), None)
    region = next((part for part in parts[1:] if len(part) == 2 or part.isdigit()), None)
    return parts[0], script, region


def likely_script(language: str, region: str | None) -> str | None:
    """The script a language is written in where a region is named, None without a
    region or when CLDR does not say."""
    if region is None:
        return None
    for key in (f"{language}_{region}", f"und_{region}"):
        found, script, _ = _likely(key)
        if found == language and script is not None:
            return script
    return None


def suits(wanted: LanguageTag, given: LanguageTag) -> int | None:
    """How well a name in `given` suits a reader of `wanted`: None when not at all (another
    language, or another script), else higher is better (the same script written or
    implied, then the same region)."""
    if given.language != wanted.language:
        return None
    if given.script is not None and wanted.script is not None and given.script != wanted.script:
        return None
    same_script = given.script is not None and given.script == wanted.script
    return 2 * same_script + (given.region is not None and given.region == wanted.region)


def likely_region(language: str) -> str | None:
    """The region a bare language most likely means (CLDR: `en` -> US, `de` -> DE)."""
    return _likely(language)[2]


def reader(tag: LanguageTag) -> LanguageTag:
    """A visitor's tag with its likely script filled in (CLDR: `zh` reads Hans, `zh-TW`
    Hant): what a language floorgate speaks is matched against."""
    if tag.script is not None:
        return tag
    return LanguageTag(tag.language, _likely(tag.language)[1], tag.region, tag.text)
