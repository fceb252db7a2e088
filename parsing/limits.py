"""Limits of the parsers: the SVG parser's (defaults follow docs/unit-map-svg.md; Settings
overrides them), a language tag's length and a name's languages."""

from __future__ import annotations

from dataclasses import dataclass

MIB = 1024 * 1024


@dataclass(frozen=True)
class SvgLimits:
    """What one SVG document may contain before the parser refuses it (422)."""

    max_bytes: int = 16 * MIB
    max_elements: int = 200_000
    max_depth: int = 256
    max_points: int = 1_000_000


# A language tag floorgate reads (`parsing.language_tags`, issue 51): RFC 5646's advice
# for the longest tag a system must keep.
MAX_TAG_CHARS = 35
# Languages one name may be given in (issue 51: `name` as an object of BCP 47 tags): a
# dataset's name holds at most these, and an IMDF label is read in at most these.
MAX_NAME_LANGUAGES = 32
