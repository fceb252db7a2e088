"""Level order and level heights (docs/unit-map-svg.md, Walk graph; docs/svg-parsing.md,
"Level heights").

Order: by `data-level-index` when every level has a distinct one, else in document
order; first = lowest. Height, in floors: `data-level-height` when every level has one
(a plain integer within `MAX_LEVEL_HEIGHT` of 0, `parsing.svg_elements`) and none is
below a level under it in that order (two levels of one height, an IMDF venue's two
levels of one ordinal, are allowed); else its position in that order, the conventions'
rule. A floor step is a difference of 1 in height.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise
from typing import Any

from parsing.parsed_map import LevelInfo

FLOOR_TAG = "floor"


def ordered_levels(levels: Sequence[LevelInfo]) -> list[LevelInfo]:
    indexes = [level.index for level in levels]
    if indexes and None not in indexes and len(set(indexes)) == len(indexes):
        return sorted(levels, key=lambda level: level.index or 0)
    return list(levels)


def drawn_heights(ordered: Sequence[LevelInfo]) -> list[int] | None:
    """The heights the drawing gives its levels (already in level order), or None when
    it gives none, or gives them so that they cannot be heights (one missing, or going
    down in level order): then positions count."""
    given = [level.height for level in ordered if level.height is not None]
    if not given or len(given) < len(ordered) or any(b < a for a, b in pairwise(given)):
        return None
    return given


def level_heights(ordered: Sequence[LevelInfo]) -> list[int]:
    """Each level's height in floors, by position in level order."""
    return drawn_heights(ordered) or list(range(len(ordered)))


def level_records(levels: Sequence[LevelInfo]) -> list[dict[str, str | int | None]]:
    """What a stored map keeps of its levels, lowest first: uid and floor id, and the
    height where the drawing gives heights (straight lines between levels climb it)."""
    ordered = ordered_levels(levels)
    heights = drawn_heights(ordered)
    records: list[dict[str, str | int | None]] = []
    for position, level in enumerate(ordered):
        record: dict[str, str | int | None] = {
            "uid": level.uid,
            "floor_id": level.tags.get(FLOOR_TAG),
        }
        if heights is not None:
            record["height"] = heights[position]
        records.append(record)
    return records


def stored_heights(records: Sequence[dict[str, Any]]) -> list[int] | None:
    """The heights a stored map's `levels` (`level_records`) keep, by position; None when
    they keep none (a drawing without heights, or a map stored before them)."""
    heights = [record.get("height") for record in records]
    if not heights or not all(isinstance(h, int) for h in heights):
        return None
    return [int(h) for h in heights if h is not None]
