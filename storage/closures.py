"""Closures of a map (issue 50): a closed connector or unit, until a moment or until
reopened, with a reason. One per (map, kind, target): closing again replaces it.

A closure ends by itself: readers keep those whose `until` is still ahead (`active`),
so nothing has to be written when it passes. Reads go through the read cache (every
write moves the collection's version here at once and on every other process through
the change stream), and a request that reads active closures tells its kept answer to
end at the earliest `until` it read (`ReadLog.expires`): no kept answer outlives a
closure it saw, nor misses one written after it.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from storage import collections as c
from storage.cache import cached_reads
from storage.cache.read_cache import READS
from storage.database import Store
from storage.timestamps import format_timestamp

CONNECTOR = "connector"
UNIT = "unit"
KINDS = (CONNECTOR, UNIT)
ORDER = [("kind", 1), ("target_id", 1)]
FIELDS = {
    "_id": 0,
    "unit_map_id": 1,
    "kind": 1,
    "target_id": 1,
    "connector_kind": 1,
    "until": 1,
    "reason": 1,
}

Closure = dict[str, Any]


def _key(map_id: str, kind: str, target_id: str) -> dict[str, str]:
    return {"unit_map_id": map_id, "kind": kind, "target_id": target_id}


async def put_closure(
    store: Store,
    map_id: str,
    asset_id: str,
    kind: str,
    target_id: str,
    until: str | None,
    reason: str | None,
    connector_kind: str | None = None,
    moment: datetime | None = None,
) -> Closure:
    """Close `target_id` of the map (a connector id or a unit id, by `kind`; a
    connector's kind as its drawing says) until the timestamp `until` (None: until
    reopened); replaces its earlier closure."""
    created = format_timestamp(moment or datetime.now(UTC))
    document = {
        **_key(map_id, kind, target_id),
        "connector_kind": connector_kind,
        "asset_id": asset_id,
        "until": until,
        "reason": reason,
        "created_at": created,
        # The database removes an ended closure (a TTL index); readers never see one.
        "expires_at": None if until is None else datetime.fromisoformat(until),
    }
    await store[c.CLOSURES].replace_one(_key(map_id, kind, target_id), document, upsert=True)
    return {name: document[name] for name in FIELDS if name != "_id"}


async def delete_closure(store: Store, map_id: str, kind: str, target_id: str) -> bool:
    """Reopen: True when there was a closure (ended or not) to remove."""
    result = await store[c.CLOSURES].delete_one(_key(map_id, kind, target_id))
    return result.deleted_count == 1


async def map_closures(store: Store, map_id: str) -> list[Closure]:
    """Every stored closure of the map, ended ones too, by kind then target."""
    query = {"unit_map_id": map_id}
    return await cached_reads.find_list(store, c.CLOSURES, query, ORDER, projection=FIELDS)


def ends_at(closure: Closure) -> datetime | None:
    """When the closure ends, None when it lasts until reopened."""
    until = closure.get("until")
    return None if until is None else datetime.fromisoformat(until)


def active(closures: list[Closure], moment: datetime) -> list[Closure]:
    """The closures still in force at `moment`: no `until`, or one after it."""
    return [each for each in closures if (end := ends_at(each)) is None or end > moment]


async def active_closures(
    store: Store, map_id: str, moment: datetime | None = None
) -> list[Closure]:
    """The map's closures in force now (or at `moment`), by kind then target. The
    request's kept answer (if any) ends when the first of them does."""
    moment = moment or datetime.now(UTC)
    found = active(await map_closures(store, map_id), moment)
    ends = [end for each in found if (end := ends_at(each)) is not None]
    log = READS.get()
    if log is not None and ends:
        log.expires(min(ends).timestamp())
    return found
