"""The indoor= `level` of a drawing's level, as the GeoJSON, the tiles, WGS84 waypoints and
GeoJSON routes all write it (docs/geojson.md, "level"). Imports nothing heavy: request
paths read it without loading the geometry libraries."""

from __future__ import annotations

from collections.abc import Sequence


def level_value(height: object, ordinal: int) -> str:
    """A Level's indoor= `level` (docs/geojson.md, "level"): its height in floors when
    the drawing gives one (`data-level-height`, kept on the stored map's levels: an IMDF
    venue's ordinal), else its position in the document's level order, lowest 0."""
    if isinstance(height, int) and not isinstance(height, bool):
        return str(height)
    return str(ordinal)


def joined_levels(levels: Sequence[str]) -> str | None:
    """Several levels as indoor= writes them: distinct, in numeric order, `;`-joined
    (`"0;1"`); None for none."""
    distinct = sorted(set(levels), key=lambda text: (float(text), text))
    return ";".join(distinct) if distinct else None
