"""Which property a read or a change is about: the scopes of the read cache (issue 67).

A scope is a field and a value, `("asset_id", "A")`, `("unit_map_id", "M")` or
`("_id", "X")`. A query whose filter says one of them with a plain string is *scoped*:
every document it can find carries that value (`of_query`). A change names the scopes
of the document before and after it (`of_change`): its id always, its asset and map
when the stream shows the document's images (a collection `Collection.scoped` keeps
pre-images, `storage.database.Store.ensure_indexes`). A change whose asset or map is
not known (no image: a deployment without pre-images, an image expired) names none,
and moves every scope of its collection, as a change moved everything before.

So a write to one property moves the kept reads and answers of that property, and the
search index of that property, and no other's; reads across properties (no scope)
move with every change of their collection.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from storage.collections import ASSETS, UNIT_MAPS, VENUE_HEALTH

ID = "_id"
# The fields that say which asset or map a document is part of.
SCOPE_FIELDS = ("asset_id", "unit_map_id")
# Collections whose document's own id is the asset's or the map's.
OWN_ID_SCOPE = {ASSETS: "asset_id", UNIT_MAPS: "unit_map_id", VENUE_HEALTH: "asset_id"}
# The change stream's projection: of a changed document, only what names its scopes
# (an image of a whole unit map would otherwise cross the wire with every change).
CHANGE_FIELDS: dict[str, Any] = {
    "operationType": 1,
    "ns": 1,
    "documentKey": 1,
    "clusterTime": 1,
    "txnNumber": 1,
    "lsid": 1,
    **{
        f"{image}.{name}": 1
        for image in ("fullDocument", "fullDocumentBeforeChange")
        for name in SCOPE_FIELDS
    },
    **{f"updateDescription.updatedFields.{name}": 1 for name in SCOPE_FIELDS},
    "updateDescription.removedFields": 1,
}

# Per kind of change: where the stream shows the document, the first as it was before.
IMAGES: dict[str, tuple[tuple[str, ...], ...]] = {
    "insert": (("fullDocument",),),
    "update": (("fullDocumentBeforeChange",), ("updateDescription", "updatedFields")),
    "replace": (("fullDocumentBeforeChange",), ("fullDocument",)),
    "delete": (("fullDocumentBeforeChange",),),
}

Scope = tuple[str, str]


@dataclass(frozen=True, slots=True)
class Touched:
    """What one change moves in its collection: `scopes`, or every scope when None."""

    scopes: frozenset[Scope] | None


EVERYTHING = Touched(None)


def of_query(query: Any) -> Scope | None:
    """The scope of a query: the narrowest field of its filter that names one value
    (its id, else its map, else its asset), or None (it reads across properties)."""
    if not isinstance(query, Mapping):
        return None
    for name in (ID, "unit_map_id", "asset_id"):
        value = query.get(name)
        if isinstance(value, str):
            return (name, value)
    return None


def of_document(collection: str, document: Any) -> set[Scope]:
    """Every scope a stored document is in (its id's, its asset's, its map's)."""
    found: set[Scope] = set()
    if not isinstance(document, Mapping):
        return found
    identity = document.get(ID)
    if isinstance(identity, str):
        found.add((ID, identity))
        own = OWN_ID_SCOPE.get(collection)
        if own is not None:
            found.add((own, identity))
    for name in SCOPE_FIELDS:
        value = document.get(name)
        if isinstance(value, str):
            found.add((name, value))
    return found


def of_change(change: Mapping[str, Any]) -> Touched:
    """What a change event of the stream moves (see the module): its document's scopes
    before and after, or everything when the document as it was is not shown."""
    collection = (change.get("ns") or {}).get("coll")
    kind = change.get("operationType")
    if not isinstance(collection, str) or kind not in IMAGES:
        return EVERYTHING
    first, *others = (_image(change, path) for path in IMAGES[kind])
    if first is None:
        return EVERYTHING
    found = of_document(collection, {ID: (change.get("documentKey") or {}).get(ID)})
    for image in (first, *others):
        found |= of_document(collection, image)
    return Touched(frozenset(found))


def of_documents(collection: str, documents: Iterable[Any]) -> Touched:
    """What inserting `documents` moves: each one's scopes (a document without an
    asset or a map is found by no read scoped by one)."""
    found: set[Scope] = set()
    for document in documents:
        found |= of_document(collection, document)
    return Touched(frozenset(found))


def _image(change: Mapping[str, Any], path: tuple[str, ...]) -> Mapping[str, Any] | None:
    value: Any = change
    for name in path:
        value = value.get(name) if isinstance(value, Mapping) else None
    return value if isinstance(value, Mapping) else None
