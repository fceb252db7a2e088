"""Every collection, its document shape and its indexes, declared in one place.

Documents keep the spec's snake_case field names so that a stored document is
already the API object; `_id` holds the resource id where the resource has one.
Timestamps are strings (see `storage.timestamps`).

The fields of every collection are listed in `docs/data-model.md`.

Ids are compared exactly (binary collation), so `Ab` and `ab` are different.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pymongo import AsyncMongoClient
from pymongo.asynchronous.collection import AsyncCollection
from pymongo.asynchronous.database import AsyncDatabase

from parsing.imdf.categories import CONNECTOR_ID_TAG as CONNECTOR_ID_TAG
from parsing.imdf.categories import GENERATED_NAME_TAG as GENERATED_NAME_TAG
from parsing.imdf.categories import IMDF_CATEGORY_TAG as IMDF_CATEGORY_TAG

# A stored document as the driver hands it over, and the driver's handles typed by it:
# pymongo's classes are generic in the document type, and strict mypy wants it said.
Document = dict[str, Any]
Client = AsyncMongoClient[Document]
Database = AsyncDatabase[Document]
CollectionHandle = AsyncCollection[Document]

ASSETS = "assets"
FLOORS = "floors"
UNITS = "units"
UNIT_MAPS = "unit_maps"
BACKGROUNDS = "backgrounds"
LEVEL_TAGS = "level_tags"
ASSET_REFERENCES = "asset_references"
UNIT_REFERENCES = "unit_references"
ATTRIBUTE_GROUPS = "attribute_groups"
ASSIGNMENTS = "assignments"
LOCATIONS = "locations"
API_KEYS = "api_keys"
LEASES = "leases"  # who writes an asset now (storage.imports.leases)
RATE_BUDGETS = "rate_budgets"  # each key's rate-limit bucket, shared by every process
ATTRIBUTE_EVENTS = "attribute_events"  # the log of assignment changes (storage.attributes.events)
COUNTERS = "counters"  # numbers handed out in order, by name (the events' `seq`)
SUBSCRIPTIONS = "subscriptions"  # open subscriptions' slots (storage.attributes.subscriptions)
PERSISTED_QUERIES = "persisted_queries"  # GraphQL documents by SHA-256 (storage.persisted_queries)
# The persisted documents' totals and the clock of their use (storage.persisted_queries).
PERSISTED_QUERY_TOTALS = "persisted_query_totals"
# A large import's operations, staged before they are applied (storage.imports.staging),
# and the switch of each asset whose staged import is being applied (storage.imports.switches).
IMPORT_BATCHES = "import_batches"
SWITCHES = "switches"
# The request budget of each process that reads, which a switch waits out (switch_gate.py).
READERS = "readers"
# Closed connectors and units of a map, one per (map, kind, target) (storage.closures).
CLOSURES = "closures"
# A venue's health report as its import found it, one per asset (storage/imdf/health.py).
VENUE_HEALTH = "venue_health"
FILES_BUCKET = "fs"
# The tag of a location that stands for a unit (derived from a drawing, or given): its
# value is the unit id.
UNIT_ID_TAG = "svc:id"
# What a derived location stands for (`svc:type`): a unit, or a connector on one level
# (storage/imports/connector_places.py).
PLACE_TYPE_TAG = "svc:type"
UNIT_PLACE, CONNECTOR_PLACE = "unit", "connector"
# GENERATED_NAME_TAG, IMDF_CATEGORY_TAG and CONNECTOR_ID_TAG, the tags an IMDF import
# writes on its locations, are defined with the import's other words
# (parsing/imdf/categories.py).


@dataclass(frozen=True)
class Index:
    keys: list[tuple[str, int]]
    unique: bool = False
    partial: dict[str, Any] | None = None
    name: str | None = None
    expire_after_seconds: int | None = None  # a TTL index: the database removes old documents

    def options(self) -> dict[str, Any]:
        options: dict[str, Any] = {"unique": self.unique}
        if self.partial is not None:
            options["partialFilterExpression"] = self.partial
        if self.expire_after_seconds is not None:
            options["expireAfterSeconds"] = self.expire_after_seconds
        if self.name is not None:
            options["name"] = self.name
        return options


@dataclass(frozen=True)
class Collection:
    """A collection and its indexes. `scoped`: its documents belong to one asset (or map),
    and the change stream shows each changed one as it was (pre-images), so a change
    moves the read cache's versions of its asset only (`storage.cache.scopes`)."""

    name: str
    indexes: list[Index] = field(default_factory=list)
    scoped: bool = False


COLLECTIONS: tuple[Collection, ...] = (
    Collection(ASSETS, scoped=True),
    Collection(FLOORS, [Index([("asset_id", 1), ("sort", 1), ("_id", 1)])], scoped=True),
    Collection(
        UNITS,
        [Index([("asset_id", 1), ("_id", 1)]), Index([("floor_id", 1), ("_id", 1)])],
        scoped=True,
    ),
    Collection(
        UNIT_MAPS, [Index([("asset_id", 1), ("_id", 1)]), Index([("tags", 1)])], scoped=True
    ),
    Collection(BACKGROUNDS, [Index([("unit_map_id", 1), ("_id", 1)])], scoped=True),
    Collection(LEVEL_TAGS, [Index([("unit_map_id", 1), ("key", 1)], unique=True)], scoped=True),
    Collection(
        ASSET_REFERENCES,
        [Index([("asset_id", 1), ("_id", 1)]), Index([("key", 1), ("_id", 1)])],
        scoped=True,
    ),
    Collection(
        UNIT_REFERENCES,
        [
            Index([("unit_id", 1), ("key", 1)], unique=True),
            Index([("asset_id", 1), ("unit_id", 1)]),
            Index([("key", 1), ("unit_id", 1)]),
        ],
        scoped=True,
    ),
    Collection(ATTRIBUTE_GROUPS),
    Collection(
        ASSIGNMENTS,
        [
            Index([("group_id", 1), ("unit_id", 1), ("attribute_id", 1)], unique=True),
            # one_attribute_per_unit is enforced by the database, not only in Python.
            Index(
                [("group_id", 1), ("unit_id", 1)],
                unique=True,
                partial={"exclusive": True},
                name="one_attribute_per_unit",
            ),
            Index([("group_id", 1), ("asset_id", 1), ("unit_id", 1)]),
        ],
        scoped=True,
    ),
    Collection(
        LOCATIONS,
        # by asset: the places of its search index (resolvers/search/indexes.py)
        [Index([("unit_map_id", 1), ("_id", 1)]), Index([("asset_id", 1), ("_id", 1)])],
        scoped=True,
    ),
    Collection(API_KEYS, [Index([("hash", 1)], unique=True)]),
    Collection(LEASES),
    # A bucket whose `expires_at` has passed is full again: the same as no document.
    Collection(RATE_BUDGETS, [Index([("expires_at", 1)], expire_after_seconds=0)]),
    # Read by group from a position; kept until `expires_at` (FLOORGATE_EVENT_RETENTION_SECONDS).
    Collection(
        ATTRIBUTE_EVENTS,
        [
            Index([("group_id", 1), ("_id", 1)]),
            Index([("expires_at", 1)], expire_after_seconds=0),
        ],
    ),
    Collection(COUNTERS),
    # A slot whose `expires_at` has passed is free: counted only while live.
    Collection(
        SUBSCRIPTIONS,
        [
            Index([("key", 1), ("expires_at", 1)]),
            Index([("expires_at", 1)], expire_after_seconds=0),
        ],
    ),
    # Evicted least recently used (lowest `seq`) first, automatic ones only, a window of
    # `seq` at a time.
    Collection(PERSISTED_QUERIES, [Index([("safelisted", 1), ("seq", 1)])]),
    Collection(PERSISTED_QUERY_TOTALS),  # one document, `totals`, with the clock
    # Applied in `seq` order; gc finds old ones by `created_at`.
    Collection(
        IMPORT_BATCHES,
        [Index([("token", 1), ("seq", 1)], unique=True), Index([("created_at", 1)])],
    ),
    Collection(SWITCHES),  # `_id`: the asset; every process reads them all, often
    # A process that stopped recording its budget is forgotten once `expires_at` passes.
    Collection(READERS, [Index([("expires_at", 1)], expire_after_seconds=0)]),
    # Closing a target again replaces its closure: one per map, kind and target. An
    # ended one is removed by the database (`expires_at`, its `until`); readers skip it.
    Collection(
        CLOSURES,
        [
            Index([("unit_map_id", 1), ("kind", 1), ("target_id", 1)], unique=True),
            Index([("expires_at", 1)], expire_after_seconds=0),
        ],
        scoped=True,
    ),
    # `_id`: the asset (and `asset_id`, for the switch gate)
    Collection(VENUE_HEALTH, scoped=True),
)
