"""Limits of the parsers: the SVG parser's (defaults follow docs/unit-map-svg.md; Settings
overrides them) and a language tag's length."""

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
