"""The switch of a staged import: an asset too large for one transaction changes for its
readers all at once (docs/dataset.md, "All or nothing").

1. **Staged** (`storage.imports.staging`): the import's operations in `import_batches`;
   nothing live has changed.
2. **Announced**: a record `{_id: asset, token, state: "announced", batches, applied: 0,
   since, assets, maps, collections, named}` in `switches`. Every process that reads polls
   the switches (`storage.cache.switch_gate`); the importer waits `switch_wait` (the
   largest request budget of the importer and of the processes that read, as they
   recorded it in `readers`, and two polls), so every read that began before its process
   knew of the switch has ended before anything live changes.
3. **Applying**: the state says so; after APPLY_GRACE_SECONDS (a read that saw
   "announced" on a fresh poll has ended by then) each batch is applied in a transaction
   of its own that also moves `applied`, so a crash resumes exactly where it stopped and
   a batch is never applied twice; the last one removes the record. Meanwhile a read
   whose result holds a document of the asset waits for the record to go.
4. The staged batches are deleted, then the files the import's maps named before and
   name no more (`named`, recorded with the announcement: whoever rolls the switch
   forward drops them, as the importer does after a commit).

A batch of assignments is applied against what the collection holds when it commits
(`storage.imports.staged_assignments`): E21 and E22 take no lease, and what they wrote
meanwhile never makes a batch fail, so a switch always finishes. `deleteLocation` takes
the asset's lease, as the puts do.

What a killed import leaves, and who finishes it: batches with no switch are garbage for
`floorgate gc`; an announced switch changed nothing and is cancelled; an applying one is
rolled forward. The next import of the asset does it (`settle`, under its lease), so does
`floorgate gc`, and so does any process that reads, when its poll sees a switch whose
importer has stopped (`settle_abandoned`, after taking the asset's lease).
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, cast

from storage import collections as col
from storage.database import Store
from storage.files import drop_replaced_files
from storage.imports import staged_assignments
from storage.imports.leases import LeaseBusy, asset_leases, writer_gone
from storage.imports.staging import Batch, StagedPlan, decoded
from storage.limits import SWITCH_POLL_SECONDS
from storage.transactions import Session, in_transaction

ANNOUNCED = "announced"
APPLYING = "applying"
# After "applying" is written: a read checked against a poll (at most two polls old) that
# still said "announced" has ended before the first batch commits.
APPLY_GRACE_SECONDS = 3 * SWITCH_POLL_SECONDS

if TYPE_CHECKING:
    from pymongo import DeleteMany, ReplaceOne, UpdateMany, UpdateOne

log = logging.getLogger("floorgate.switches")


class SwitchCancelled(RuntimeError):
    """The announced switch was cancelled while its importer waited (its lease had
    expired: the importer was cut off from the database for longer than a lease)."""

    def __init__(self, asset_id: str) -> None:
        super().__init__(
            f"the switch of asset {asset_id!r} was cancelled by another process while it "
            "waited (this import lost its lease); nothing was changed: import it again"
        )


class _Superseded(Exception):
    """Another process applied this batch first."""


async def readers_budget(store: Store) -> float:
    """The largest request budget a process that reads this database has recorded
    (`storage.cache.switch_gate`, before its first read and every minute); 0 for none."""
    live = {"expires_at": {"$gt": datetime.now(UTC)}}
    found = await store[col.READERS].find_one(live, {"budget": 1}, sort=[("budget", -1)])
    return float(found["budget"]) if found else 0.0


async def switch_wait(store: Store) -> float:
    """How long an announced switch waits before it changes anything live: the largest
    request budget of this process and of every process that reads, plus two polls.
    Asked after the announcement: a process that recorded its budget later polled after
    it too, so knew of the switch before its first read."""
    budget = max(store.request_timeout_seconds, await readers_budget(store))
    return budget + 2 * SWITCH_POLL_SECONDS


@dataclass(frozen=True)
class Staged:
    """A staged import, ready to switch in."""

    token: str
    asset_id: str
    batches: int
    assets: list[str]
    maps: list[str]
    collections: list[str]
    named: dict[str, set[str]]  # the files of the maps it touches, before it

    @classmethod
    def of(
        cls,
        token: str,
        asset_id: str,
        plan: StagedPlan,
        batches: list[Batch],
        named: dict[str, set[str]],
    ) -> Staged:
        return cls(
            token,
            asset_id,
            len(batches),
            sorted(plan.assets | {asset_id}),
            sorted(plan.maps),
            plan.collections,
            named,
        )


async def switch_in(store: Store, staged: Staged) -> None:
    """Announce, wait, apply every batch, then delete the batches (see the module). The
    importer drops the replaced files itself, after its other parts."""
    await announce(store, staged)
    await asyncio.sleep(await switch_wait(store))
    await start_applying(store, staged)
    await asyncio.sleep(APPLY_GRACE_SECONDS)
    await apply_batches(store, staged.asset_id, staged.token)


async def announce(store: Store, staged: Staged) -> None:
    await store[col.SWITCHES].insert_one(
        {
            "_id": staged.asset_id,
            "token": staged.token,
            "state": ANNOUNCED,
            "batches": staged.batches,
            "applied": 0,
            "since": datetime.now(UTC),
            "assets": staged.assets,
            "maps": staged.maps,
            "collections": staged.collections,
            "named": [
                {"map_id": map_id, "files": sorted(files)}
                for map_id, files in sorted(staged.named.items())
            ],
        }
    )


async def start_applying(store: Store, staged: Staged) -> None:
    mine = {"_id": staged.asset_id, "token": staged.token, "state": ANNOUNCED}
    result = await store[col.SWITCHES].update_one(mine, {"$set": {"state": APPLYING}})
    if result.matched_count == 0:
        raise SwitchCancelled(staged.asset_id)


async def apply_batches(store: Store, asset_id: str, token: str) -> None:
    """Apply the switch's batches from the first one not applied yet, each in its own
    transaction, until its record is gone; then delete the batches."""
    while True:
        switch = await store[col.SWITCHES].find_one({"_id": asset_id, "token": token})
        if switch is None:
            break
        if switch["state"] != APPLYING:
            raise SwitchCancelled(asset_id)  # announced still: only its importer goes on
        seq = switch["applied"]
        batch = await store[col.IMPORT_BATCHES].find_one({"token": token, "seq": seq})
        if batch is None:
            raise RuntimeError(f"batch {seq} of the switch of asset {asset_id!r} is missing")
        try:
            await apply_batch(store, switch, batch)
        except _Superseded:
            continue
    await store[col.IMPORT_BATCHES].delete_many({"token": token})


async def apply_batch(store: Store, switch: dict[str, Any], batch: dict[str, Any]) -> None:
    """One batch and the switch's progress in one transaction (the last batch removes the
    record); _Superseded when the record says another process applied it."""
    seq = batch["seq"]
    mine = {"_id": switch["_id"], "token": switch["token"], "state": APPLYING, "applied": seq}
    codec_options = store.client.codec_options
    operations = [decoded(data, codec_options) for data in batch["operations"]]
    collection = batch["collection"]

    async def work(session: Session) -> None:
        switches = store[col.SWITCHES]
        if seq == switch["batches"] - 1:
            moved = (await switches.delete_one(mine, session=session)).deleted_count
        else:
            progress = {"$set": {"applied": seq + 1}}
            moved = (await switches.update_one(mine, progress, session=session)).modified_count
        if not moved:
            raise _Superseded()
        if collection == col.ASSIGNMENTS:  # against what is there now (see the module)
            await staged_assignments.apply(store, operations, session)
        elif operations:
            # Assign and Exclusive are staged for the assignments only: driver operations here
            writes = cast("list[ReplaceOne[Any] | UpdateOne | UpdateMany | DeleteMany]", operations)
            await store[collection].bulk_write(writes, ordered=True, session=session)

    await in_transaction(store, work)


async def cancel(store: Store, asset_id: str, token: str) -> bool:
    """Remove an announced switch and its batches (nothing live changed); False when the
    switch is applying (or gone) instead."""
    mine = {"_id": asset_id, "token": token, "state": ANNOUNCED}
    removed = (await store[col.SWITCHES].delete_one(mine)).deleted_count
    if removed:
        await store[col.IMPORT_BATCHES].delete_many({"token": token})
    return bool(removed)


def _named(switch: dict[str, Any]) -> dict[str, set[str]]:
    """The files the switch's maps named before it, as `announce` recorded them."""
    return {item["map_id"]: set(item["files"]) for item in switch.get("named") or []}


def _outcome(switch: dict[str, Any]) -> str:
    if switch["state"] == ANNOUNCED:
        return "cancelled"
    return f"rolled forward from batch {switch['applied']} of {switch['batches']}"


async def settle(store: Store, asset_id: str) -> str | None:
    """Finish what a switch of the asset left: cancel it when announced, roll it forward
    when applying, then drop the files it replaced. The caller holds the asset's lease.
    Says what it did, or None."""
    switch = await store[col.SWITCHES].find_one({"_id": asset_id})
    if switch is None:
        return None
    token = switch["token"]
    if switch["state"] == ANNOUNCED and await cancel(store, asset_id, token):
        log.warning("cancelled the announced switch of asset %r (its import stopped)", asset_id)
        return _outcome(switch)
    switch["state"] = APPLYING
    await apply_batches(store, asset_id, token)
    await drop_replaced_files(store, _named(switch))
    log.warning(
        "rolled forward the switch of asset %r (its import stopped after %d of %d batches)",
        asset_id,
        switch["applied"],
        switch["batches"],
    )
    return _outcome(switch)


async def settle_abandoned(store: Store, asset_id: str) -> str | None:
    """`settle` a switch whose importer has stopped (no lease, or an abandoned one),
    taking the asset's lease first so that one process does it; None when the importer
    still runs or another process is at it."""
    if not await writer_gone(store, asset_id):
        return None
    try:
        async with asset_leases(store, [asset_id], wait=0):
            return await settle(store, asset_id)
    except LeaseBusy:
        return None


@dataclass(frozen=True)
class Settled:
    """What became of a switch (`floorgate gc`), or would become of it in a dry run:
    `done` says "cancelled" or "rolled forward from batch 3 of 12"; None when its
    import still runs (or another process settles it), and it is left alone."""

    asset_id: str
    token: str
    done: str | None


async def settle_all(store: Store, *, dry_run: bool = False) -> list[Settled]:
    """`settle_abandoned` every switch (`floorgate gc`), by asset; with `dry_run`, only
    say what would be done."""
    found = []
    for switch in await store[col.SWITCHES].find({}).sort("_id").to_list():
        asset_id = switch["_id"]
        if dry_run:
            done = _outcome(switch) if await writer_gone(store, asset_id) else None
        else:
            done = await settle_abandoned(store, asset_id)
        found.append(Settled(asset_id, switch["token"], done))
    return found


async def orphan_batches(store: Store, before: datetime) -> dict[str, int]:
    """Staged batches written before `before` whose token has no switch: batches per
    token. Listed before the switches are read, so a switch announced meanwhile counts."""
    tokens: dict[str, int] = {}
    query = {"created_at": {"$lt": before}}
    async for batch in store[col.IMPORT_BATCHES].find(query, {"token": 1}):
        tokens[batch["token"]] = tokens.get(batch["token"], 0) + 1
    switching = {doc["token"] async for doc in store[col.SWITCHES].find({}, {"token": 1})}
    return {token: count for token, count in tokens.items() if token not in switching}


async def remove_batches(store: Store, tokens: list[str]) -> int:
    removed = 0
    for token in tokens:
        removed += (await store[col.IMPORT_BATCHES].delete_many({"token": token})).deleted_count
    return removed
