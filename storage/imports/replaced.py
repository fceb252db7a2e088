"""Maps whose locations an import replaces (`import_data(..., replace_locations=True)`,
what `floorgate import-imdf` asks: docs/imdf.md, "Places and locations"): a location
stored on a map of the file that the file does not give is removed by the same import,
in the same transaction or staged plan, so a venue's generated places never linger.

Every other import keeps the upsert rule and removes no location (docs/dataset.md,
"Upsert by id"). The rule is here once: the writer removes what `removed` picks from
what it reads under the lease; the dry run and the plan's weight count the same now.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from typing import Any

from storage import collections as col
from storage.database import Store
from storage.files import chunks
from storage.limits import IN_CHUNK

Document = dict[str, Any]
Records = Mapping[str, list[tuple[int, Document]]]  # section -> (index in file, record)
FIELDS = ("unit_map_id", "derived")  # what `removed` reads of a stored location


def replaced_maps(records: Records) -> set[str]:
    """The maps whose locations the file replaces: every map it names."""
    return {record["id"] for _, record in records[col.UNIT_MAPS]}


def given_locations(records: Records) -> set[str]:
    """The ids of the file's locations (on whichever map: one it moves stays)."""
    return {record["id"] for _, record in records[col.LOCATIONS]}


def removed(found: Iterable[Document], maps: set[str], given: set[str]) -> list[Any]:
    """The stored locations of `maps` (`found`: at least their `_id` and FIELDS) that the
    file does not give (`given`), in id order. A derived location (a drawn unit's that
    no given location stands for) is not one: its own rule keeps or drops it with the
    drawing (`Writer._unit_locations`)."""
    return sorted(
        (
            doc["_id"]
            for doc in found
            if doc.get("unit_map_id") in maps
            and doc.get("derived") is not True
            and doc["_id"] not in given
        ),
        key=repr,
    )


async def removed_by_map(store: Store, records: Records) -> dict[str, list[Any]]:
    """What importing `records` with `replace_locations` would remove if it ran now, per
    map: for the dry run, and for the weight of the plan (read before the lease, so a
    bound for it, not a promise; the writer decides again under the lease)."""
    maps = replaced_maps(records)
    found: list[Document] = []
    for chunk in chunks(maps, IN_CHUNK):
        cursor = store[col.LOCATIONS].find(
            {"unit_map_id": {"$in": chunk}}, {name: 1 for name in FIELDS}
        )
        found.extend([doc async for doc in cursor])
    by_id = {doc["_id"]: doc["unit_map_id"] for doc in found}
    per_map: defaultdict[str, list[Any]] = defaultdict(list)
    for location_id in removed(found, maps, given_locations(records)):
        per_map[by_id[location_id]].append(location_id)
    return dict(per_map)
