"""An import never takes a stored map down to a fraction of its units unless asked
(issue 45): one unreadable file of a venue once re-imported every map of it without its
units and walk paths, and said nothing.

A map of the import that is stored already keeps at least MAP_UNITS_KEPT_SHARE (half)
of its units: a map that has units and would have none, or would lose more than half of
them, refuses the whole import before anything is written (`MapsShrink`), unless the
caller allows it (`floorgate import --allow-shrink`, `floorgate import-imdf
--allow-shrink`; the API's puts replace the one map they name, as asked). A map's units
are its `unit_ids`: a drawn map's come from its drawing (`unit_ids` of
`storage.datasets.map_drawings`), a map without a drawing's from its record.
"""

from __future__ import annotations

from dataclasses import dataclass

from storage import collections as col
from storage.database import Store
from storage.datasets.map_drawings import unit_ids
from storage.datasets.validation import Validated
from storage.files import chunks
from storage.limits import IN_CHUNK, MAP_UNITS_KEPT_SHARE

LISTED = 3  # maps a refusal names, with their figures; the rest are counted
SHOWN_ID_CHARS = 80  # a map id as a refusal quotes it


@dataclass(frozen=True)
class Shrink:
    """A stored map the import would leave with `after` of its `before` units."""

    map_id: str
    before: int
    after: int


class MapsShrink(RuntimeError):
    """The import would take stored maps below MAP_UNITS_KEPT_SHARE of their units.
    Raised before anything is written."""

    def __init__(self, shrinks: list[Shrink]) -> None:
        self.shrinks = shrinks
        named = [
            f"{_shown(s.map_id)!r} from {s.before:,} units to {s.after:,}" for s in shrinks[:LISTED]
        ]
        more = len(shrinks) - LISTED
        listed = ", ".join(named) + (f" and {more:,} more" if more > 0 else "")
        super().__init__(
            f"it would leave {len(shrinks):,} stored map(s) with fewer than "
            f"{MAP_UNITS_KEPT_SHARE:.0%} of their units: {listed}. "
            "Give --allow-shrink to import it anyway"
        )


def _shown(map_id: str) -> str:
    return map_id if len(map_id) <= SHOWN_ID_CHARS else f"{map_id[: SHOWN_ID_CHARS - 3]}..."


def kept_enough(before: int, after: int) -> bool:
    """Whether a map of `before` units may become one of `after`: a map without units
    may become anything; one with units keeps at least the share (so never none)."""
    return before == 0 or (after > 0 and after >= before * MAP_UNITS_KEPT_SHARE)


async def shrinking_maps(store: Store, validated: Validated) -> list[Shrink]:
    """The stored maps of the import that it would take below the share, in the file's
    order. Read from the database directly (this decides a write), under the assets'
    leases when the import runs."""
    records = [record for _, record in validated.checked.records[col.UNIT_MAPS]]
    drawings = validated.checked.drawings
    before: dict[str, int] = {}
    for chunk in chunks([record["id"] for record in records], IN_CHUNK):
        cursor = store[col.UNIT_MAPS].find({"_id": {"$in": chunk}}, {"unit_ids": 1})
        async for doc in cursor:
            before[doc["_id"]] = len(doc.get("unit_ids") or [])
    found = []
    for record in records:
        if record["id"] not in before:
            continue  # a new map
        drawing = drawings.get(record["id"])
        after = len(unit_ids(drawing.parsed) if drawing else record.get("unit_ids", []))
        if not kept_enough(before[record["id"]], after):
            found.append(Shrink(record["id"], before[record["id"]], after))
    return found


async def refuse_shrinking(store: Store, validated: Validated) -> None:
    """Raise MapsShrink when the import would take stored maps below the share."""
    found = await shrinking_maps(store, validated)
    if found:
        raise MapsShrink(found)
