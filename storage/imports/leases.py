"""Leases: one writer per asset at a time, across processes and hosts.

An import (and each API write that runs the importer) holds a lease on every asset it
writes, one document `{_id: "asset:<id>"}` in `leases`, so two imports of one asset
never interleave: the second waits, and fails with a message naming the holder when it
has waited `wait` seconds.

A holder renews its lease while it runs. A lease is taken over when it has expired (its
holder stopped renewing: killed, or cut off from the database) or when its holder is a
process of this host that no longer runs. The holder's session id is in the lease, and
a taker kills that session: the server then aborts the transaction a killed import left
open, which would otherwise hold its writes for up to 60 s.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import uuid
from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from pymongo.errors import DuplicateKeyError, PyMongoError

from storage.collections import LEASES
from storage.database import Store
from storage.embedded.processes import alive

LEASE_SECONDS = 30.0  # a lease not renewed for this long is free
RENEW_SECONDS = 5.0
POLL_SECONDS = 0.25  # how often a waiting writer looks again
HOST = socket.gethostname()

log = logging.getLogger("floorgate.leases")


class LeaseBusy(RuntimeError):
    """Another writer holds the asset's lease and did not release it in time."""

    def __init__(self, asset_id: str, holder: dict[str, Any]) -> None:
        self.asset_id = asset_id
        self.holder = holder
        super().__init__(
            f"asset {asset_id!r} is being written by another import ({describe(holder)}); "
            "try again when it has finished"
        )


def describe(holder: dict[str, Any]) -> str:
    """`pid 4242 on host db-1, since 2026-11-23T09:00:00+00:00`."""
    return f"pid {holder.get('pid')} on host {holder.get('host')}, since {holder.get('since')}"


def lease_id(asset_id: str) -> str:
    return f"asset:{asset_id}"


def _abandoned(holder: dict[str, Any], at: datetime) -> bool:
    expires = holder.get("expires")  # the store's client is tz-aware (storage.database)
    if isinstance(expires, datetime) and expires <= at:
        return True
    pid = holder.get("pid")
    return holder.get("host") == HOST and not (isinstance(pid, int) and alive(pid))


async def writer_gone(store: Store, asset_id: str) -> bool:
    """Whether nobody holds the asset's lease, or its holder has stopped (expired, or a
    process of this host that no longer runs): what it left may be taken over."""
    holder = await store[LEASES].find_one({"_id": lease_id(asset_id)})
    return holder is None or _abandoned(holder, datetime.now(UTC))


@dataclass
class _Holder:
    owner: str
    session_id: Mapping[str, Any] | None

    def document(self, at: datetime) -> dict[str, Any]:
        return {
            "owner": self.owner,
            "host": HOST,
            "pid": os.getpid(),
            "since": at.isoformat(timespec="seconds"),
            "expires": at + timedelta(seconds=LEASE_SECONDS),
            "session_id": self.session_id,
        }


async def _kill_session(store: Store, holder: dict[str, Any]) -> None:
    """Abort what the abandoned holder's session left open (best effort: without the
    privilege, the server aborts it itself when the transaction's lifetime ends)."""
    session_id = holder.get("session_id")
    if not session_id:
        return
    with contextlib.suppress(PyMongoError):
        await store.client.admin.command("killSessions", [session_id])


async def _try_take(store: Store, name: str, me: _Holder) -> dict[str, Any] | None:
    """Take the lease `name`; None when taken, else the holder's document."""
    leases = store[LEASES]
    at = datetime.now(UTC)
    try:
        await leases.insert_one({"_id": name, **me.document(at)})
        return None
    except DuplicateKeyError:
        pass
    holder: dict[str, Any] | None = await leases.find_one({"_id": name})
    if holder is None:
        return {}  # released in between: try again
    if holder.get("owner") == me.owner:
        return None
    if not _abandoned(holder, at):
        return holder
    taken = await leases.find_one_and_update(
        {"_id": name, "owner": holder.get("owner")}, {"$set": me.document(at)}
    )
    if taken is None:
        return {}  # someone else took it over first: look again
    log.warning("took over the lease %s of %s", name, describe(holder))
    await _kill_session(store, holder)
    return None


async def _renew(store: Store, names: list[str], owner: str) -> None:
    while True:
        await asyncio.sleep(RENEW_SECONDS)
        expires = datetime.now(UTC) + timedelta(seconds=LEASE_SECONDS)
        with contextlib.suppress(PyMongoError):  # the work itself will meet the outage
            await store[LEASES].update_many(
                {"_id": {"$in": names}, "owner": owner}, {"$set": {"expires": expires}}
            )


async def _release(store: Store, names: list[str], owner: str) -> None:
    with contextlib.suppress(PyMongoError):  # unreachable: the lease expires by itself
        await store[LEASES].delete_many({"_id": {"$in": names}, "owner": owner})


@contextlib.asynccontextmanager
async def asset_leases(
    store: Store,
    assets: Iterable[str],
    *,
    wait: float,
    session_id: Mapping[str, Any] | None = None,
    waiting: Callable[[str, dict[str, Any]], None] | None = None,
) -> AsyncIterator[None]:
    """Hold the lease of every asset in `assets` (taken in sorted order, so two writers
    of overlapping assets cannot each hold one the other waits for) for the block.

    Waits up to `wait` seconds for a busy lease, calling `waiting(asset, holder)` once
    when it starts to; then raises LeaseBusy. `session_id` is the session whose
    transaction a taker should abort should this process die."""
    me = _Holder(uuid.uuid4().hex, session_id)
    names: list[str] = []
    deadline = asyncio.get_running_loop().time() + wait
    told = False
    try:
        for asset_id in sorted(set(assets)):
            name = lease_id(asset_id)
            while (holder := await _try_take(store, name, me)) is not None:
                left = deadline - asyncio.get_running_loop().time()
                if holder and left <= 0:
                    raise LeaseBusy(asset_id, holder)
                if holder and waiting is not None and not told:
                    waiting(asset_id, holder)
                    told = True
                await asyncio.sleep(min(POLL_SECONDS, max(left, 0.0)))
            names.append(name)
        renewal = asyncio.create_task(_renew(store, names, me.owner))
        try:
            yield
        finally:
            renewal.cancel()
    finally:
        if names:
            await _release(store, names, me.owner)
