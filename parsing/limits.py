"""Limits of the SVG parser. Defaults follow docs/unit-map-svg.md; Settings overrides them."""

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
