"""API keys: random, shown once, stored only as a hash, compared in constant time.

Keys carry 32 random bytes, so a plain SHA-256 is a safe hash (no guessing to
slow down); lookup goes by the hash, and the stored hash is compared again with
`hmac.compare_digest` so no timing depends on the key's text.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import math
import secrets
import time
from collections.abc import Hashable
from dataclasses import dataclass
from functools import partial
from typing import Any

from resolvers.auth.permissions import ALL_PERMISSIONS
from resolvers.auth.ratelimit import Limit
from resolvers.errors import FieldErrors
from resolvers.limits import MAX_KEY_BURST, MAX_KEY_RATE
from storage.cache.background import shared
from storage.collections import API_KEYS, ASSETS
from storage.database import Store
from storage.timestamps import now

KEY_PREFIX = "fg_"


@dataclass(frozen=True)
class Caller:
    """Who is calling: the key's permissions and asset scope (None: every asset)."""

    key_id: str
    name: str
    permissions: frozenset[str]
    assets: frozenset[str] | None
    limit: Limit | None = None  # its own rate limit; None: the default

    def may_see(self, asset_id: str | None) -> bool:
        return self.assets is None or asset_id in self.assets

    def scope_filter(self, field: str = "asset_id") -> dict[str, Any]:
        """A MongoDB filter that keeps only documents in this caller's scope."""
        return {} if self.assets is None else {field: {"$in": sorted(self.assets)}}

    def asset_filter(self, asset_id: str | None) -> dict[str, Any] | None:
        """The scope filter, narrowed to one asset by an `asset` filter; None when that
        asset is outside the scope: the list is empty, as for any filter that matches
        nothing, so a key never learns whether the asset exists."""
        if asset_id is None:
            return self.scope_filter()
        return {"asset_id": asset_id} if self.may_see(asset_id) else None


@dataclass(frozen=True)
class CreatedKey:
    key_id: str
    secret: str


def hash_key(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def _caller(document: dict[str, Any]) -> Caller:
    assets = document.get("assets")
    limit = document.get("rate_limit")
    return Caller(
        key_id=document["_id"],
        name=document.get("name", ""),
        permissions=frozenset(document.get("permissions", [])),
        assets=None if assets is None else frozenset(assets),
        limit=None if limit is None else (float(limit["per_second"]), int(limit["burst"])),
    )


def _current(stored: Hashable, now: Hashable) -> bool:
    """An entry's version still holds. One read while the change stream was down has no
    version and counts by its age alone, until the stream is up again: then it is read
    anew, so that a key disabled meanwhile stops at once."""
    return stored == now


class KeyCache:
    """Remembers key lookups for a few seconds: the hot path skips a database round trip.

    Known keys and unknown hashes are kept apart, each bounded on its own: a flood of
    invented keys fills only the negative side, so it neither reaches the database per
    request nor flushes the keys of real clients.

    An entry also holds the version of the keys collection it was read at, while the
    read cache's change stream is up (`storage.cache.read_cache`): any change to any key makes
    it stale, so a disabled key stops working in every process as soon as the change
    reaches it (well under a second). An entry read while the stream was down holds no
    version and lives `unversioned_ttl` seconds (1 s), so a disabled key stops within a
    second then too.

    It also keeps the hashes of every enabled key (`could_be_valid`), read only for an
    address that has sent too many invalid keys: its unknown keys are then refused
    without a lookup each, while a valid key from the same address (an office behind one
    NAT address) is still served.
    """

    def __init__(
        self, ttl: float = 5.0, max_entries: int = 10000, unversioned_ttl: float = 1.0
    ) -> None:
        self.ttl = ttl
        self.unversioned_ttl = unversioned_ttl
        self.max_entries = max_entries
        self._known: dict[str, tuple[float, Hashable, Caller]] = {}
        self._unknown: dict[str, tuple[float, Hashable]] = {}
        # (expiry, version, hashes of enabled keys; None: too many to keep)
        self._valid: tuple[float, Hashable, frozenset[str] | None] | None = None
        self._current: dict[str, asyncio.Future[Caller | None]] = {}  # reads by id under way
        # lookups by hash under way, by (hash, version)
        self._looking: dict[tuple[str, Hashable], asyncio.Future[Caller | None]] = {}

    def get(self, key_hash: str, version: Hashable = None) -> tuple[bool, Caller | None]:
        now = time.monotonic()
        known = self._known.get(key_hash)
        if known is not None and known[0] >= now and _current(known[1], version):
            return True, known[2]
        unknown = self._unknown.get(key_hash)
        if unknown is not None and unknown[0] >= now and _current(unknown[1], version):
            return True, None
        return False, None

    def put(self, key_hash: str, caller: Caller | None, version: Hashable = None) -> None:
        side: dict[str, Any] = self._unknown if caller is None else self._known
        if len(side) >= self.max_entries:
            side.clear()
        expires = time.monotonic() + (self.ttl if version is not None else self.unversioned_ttl)
        if caller is None:
            self._unknown[key_hash] = (expires, version)
        else:
            self._known[key_hash] = (expires, version, caller)

    def clear(self) -> None:
        self._known.clear()
        self._unknown.clear()
        self._valid = None

    def changed(self, key_id: str | None) -> None:
        """The change stream says key `key_id` changed (None: any may have): what this
        cache holds of it is dropped at once, before the read cache's own stream may
        have moved its version, and a read of it under way is not shared any more."""
        self._looking.clear()  # a lookup under way may predate the change
        if key_id is None:
            self.clear()
            self._current.clear()
            return
        self._current.pop(key_id, None)
        for key_hash, (_, _, caller) in list(self._known.items()):
            if caller.key_id == key_id:
                del self._known[key_hash]

    async def current(self, store: Store, key_id: str) -> Caller | None:
        """The key `key_id` as stored now (None: disabled or gone), read from the database,
        not from this cache: asked when a change of the key arrives (a revocation,
        `storage.attributes.hub`). Everyone asking about one key until it changes again
        (its sockets, its subscriptions) shares one read."""
        return await shared(self._current, key_id, partial(stored_caller, store, key_id))

    async def looked_up(self, store: Store, key_hash: str, version: Hashable) -> Caller | None:
        """The caller of `key_hash` read from the database and kept: the requests of one
        key that miss together (its entry expired, the keys changed) share one read, where
        each made its own (a herd of 20 on a busy database, waiting behind each other)."""
        return await shared(
            self._looking, (key_hash, version), partial(self._look_up, store, key_hash, version)
        )

    async def _look_up(self, store: Store, key_hash: str, version: Hashable) -> Caller | None:
        caller = await stored_caller_of_hash(store, key_hash)
        self.put(key_hash, caller, version)
        return caller

    async def could_be_valid(self, store: Store, key_hash: str, version: Hashable) -> bool:
        """Whether `key_hash` is among the enabled keys' hashes, read at most once per
        version of the keys collection (or per `unversioned_ttl` without one); True when
        there are more keys than this cache keeps (the lookup decides then)."""
        now = time.monotonic()
        valid = self._valid
        if valid is None or valid[0] < now or not _current(valid[1], version):
            cursor = store[API_KEYS].find({"disabled": {"$ne": True}}, {"_id": 0, "hash": 1})
            documents = await cursor.limit(self.max_entries + 1).to_list()
            hashes = (
                frozenset(doc["hash"] for doc in documents)
                if len(documents) <= self.max_entries
                else None
            )
            ttl = self.ttl if version is not None else self.unversioned_ttl
            valid = self._valid = (now + ttl, version, hashes)
        return valid[2] is None or key_hash in valid[2]


async def stored_caller(store: Store, key_id: str) -> Caller | None:
    """The caller of key `key_id` as stored, None when it is disabled or gone."""
    document = await store[API_KEYS].find_one({"_id": key_id})
    if document is None or document.get("disabled", False):
        return None
    return _caller(document)


async def lookup_caller(
    store: Store, secret: str, cache: KeyCache | None = None, suspect: bool = False
) -> Caller | None:
    """The caller of an enabled key, or None when the key is unknown or disabled. A
    `suspect` request (its address sent too many invalid keys) is looked up only when
    its key is among the enabled keys' hashes (`KeyCache.could_be_valid`)."""
    key_hash = hash_key(secret)
    store.watch_changes()
    version = store.cache.version(API_KEYS) if store.cache.live else None
    if cache is not None:
        hit, caller = cache.get(key_hash, version)
        if hit:
            return caller
        await store.check_reachable()  # no lookup while the database is away: 503 at once
        with store.bounded():
            if suspect and not await cache.could_be_valid(store, key_hash, version):
                return None
            return await cache.looked_up(store, key_hash, version)
    await store.check_reachable()
    with store.bounded():
        return await stored_caller_of_hash(store, key_hash)


async def stored_caller_of_hash(store: Store, key_hash: str) -> Caller | None:
    """The caller of the enabled key whose secret hashes to `key_hash`, as stored."""
    document = await store[API_KEYS].find_one({"hash": key_hash})
    if (
        document is not None
        and hmac.compare_digest(document["hash"], key_hash)
        and not document.get("disabled", False)
    ):
        return _caller(document)
    return None


def check_key_request(permissions: list[str], assets: list[str] | None, name: str) -> None:
    errors = FieldErrors()
    if not name.strip():
        errors.add("name", "must not be empty")
    for permission in permissions:
        if permission not in ALL_PERMISSIONS:
            errors.add("permission", f"unknown permission {permission!r}")
    if assets is not None and not assets:
        errors.add("asset", "give at least one asset, or all assets")
    errors.raise_if_any()


def limit_problems(limit: Limit | None) -> list[str]:
    """What is wrong with a key's own rate limit (tokens per second, bucket size)."""
    if limit is None:
        return []
    per_second, burst = limit
    problems = []
    if not (math.isfinite(per_second) and 0 < per_second <= MAX_KEY_RATE):
        problems.append(f"--rate-limit must be above 0 and at most {MAX_KEY_RATE:g} per second")
    if not 1 <= burst <= MAX_KEY_BURST:
        problems.append(f"--burst must be from 1 to {MAX_KEY_BURST}")
    return problems


def limit_document(limit: Limit | None) -> dict[str, Any] | None:
    return None if limit is None else {"per_second": limit[0], "burst": limit[1]}


async def set_key_limit(store: Store, key_id: str, limit: Limit | None) -> bool:
    """Give a key its own rate limit (None: the default again); False for no such key.
    Every process sees it within the key cache's window, as a disabled key."""
    errors = FieldErrors()
    for problem in limit_problems(limit):
        errors.add("rate_limit", problem)
    errors.raise_if_any()
    result = await store[API_KEYS].update_one(
        {"_id": key_id}, {"$set": {"rate_limit": limit_document(limit), "updated_at": now()}}
    )
    return result.matched_count == 1


async def create_key(
    store: Store,
    name: str,
    permissions: list[str],
    assets: list[str] | None,
    limit: Limit | None = None,
) -> CreatedKey:
    """Make a key; the secret is returned once and never stored."""
    check_key_request(permissions, assets, name)
    errors = FieldErrors()
    for problem in limit_problems(limit):
        errors.add("rate_limit", problem)
    errors.raise_if_any()
    key_id = secrets.token_hex(6)
    secret = KEY_PREFIX + secrets.token_urlsafe(32)
    await store[API_KEYS].insert_one(
        {
            "_id": key_id,
            "name": name,
            "hash": hash_key(secret),
            "permissions": sorted(set(permissions)),
            "assets": None if assets is None else sorted(set(assets)),
            "rate_limit": limit_document(limit),
            "disabled": False,
            "created_at": now(),
        }
    )
    return CreatedKey(key_id=key_id, secret=secret)


async def unknown_assets(store: Store, asset_ids: list[str]) -> list[str]:
    """The ids among `asset_ids` that name no stored asset, in the order given: a key
    scoped to a mistyped asset would see nothing, without a word (`keys create`)."""
    wanted = list(dict.fromkeys(asset_ids))
    found = await store[ASSETS].distinct("_id", {"_id": {"$in": wanted}})
    return [asset_id for asset_id in wanted if asset_id not in set(found)]


async def list_keys(store: Store) -> list[dict[str, Any]]:
    """Every key without its hash, oldest first."""
    cursor = store[API_KEYS].find({}, {"hash": 0}).sort([("created_at", 1), ("_id", 1)])
    return await cursor.to_list()


async def disable_key(store: Store, key_id: str) -> bool:
    result = await store[API_KEYS].update_one(
        {"_id": key_id}, {"$set": {"disabled": True, "disabled_at": now()}}
    )
    return result.matched_count == 1
