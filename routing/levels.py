"""Level order (docs/unit-map-svg.md, Walk graph): by `data-level-index` when every level
has a distinct one, else in document order; first = lowest. A floor step is a
difference of 1 in that order."""

from __future__ import annotations

from collections.abc import Sequence

from parsing.parsed_map import LevelInfo

FLOOR_TAG = "floor"


def ordered_levels(levels: Sequence[LevelInfo]) -> list[LevelInfo]:
    indexes = [level.index for level in levels]
    if indexes and None not in indexes and len(set(indexes)) == len(indexes):
        return sorted(levels, key=lambda level: level.index or 0)
    return list(levels)


def level_records(levels: Sequence[LevelInfo]) -> list[dict[str, str | None]]:
    """What a stored map keeps of its levels, lowest first: uid and floor id."""
    return [
        {"uid": level.uid, "floor_id": level.tags.get(FLOOR_TAG)}
        for level in ordered_levels(levels)
    ]
