"""Run an import so that readers see all of it or none of it (docs/dataset.md).

1. Validate everything against the database (`storage.datasets.validation`); on a problem nothing
   is written.
2. Take the lease of every asset the import writes (`storage.imports.leases`): two imports of
   one asset never interleave. Then finish what a killed staged import of those assets
   left (`storage.imports.switches.settle`) before writing over it. Unless allowed, refuse
   an import that would leave a stored map with fewer than half its units
   (`storage.imports.shrink`), still with nothing written.
3. Store the drawings' files (content-addressed: harmless until a document names them).
4. Write every document in one transaction (`storage.imports.writer`). An import larger
   than `max_documents` is committed per asset, each asset in one transaction; records
   of no asset (attribute groups) go with the first. An asset larger than that alone is
   staged and switched in, in transactions of a bounded size, behind a switch that
   readers respect (`storage.imports.switches`); an API write may not stage
   (`may_stage=False`) and is refused with NeedsStaging before step 2.
5. After each commit (or switch), delete the files that its maps no longer name.

A process killed anywhere leaves the state before (or, after a commit, the state after),
plus at most files nothing names, which `floorgate gc` removes; a switch it left half
applied is rolled forward (by the next import of the asset, gc, or a serving process)
and readers of the asset wait for it.
"""

from __future__ import annotations

import uuid
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from parsing.limits import SvgLimits
from storage import collections as col
from storage.database import Store
from storage.datasets.fields import DatasetError
from storage.datasets.map_drawings import StoredDrawing, store_drawing
from storage.datasets.sections import SECTIONS
from storage.datasets.structure import Inputs, load_dataset
from storage.datasets.validation import Validated, validate_against
from storage.files import drop_replaced_files
from storage.imports import switches
from storage.imports.leases import asset_leases
from storage.imports.replaced import removed_by_map
from storage.imports.shrink import refuse_shrinking
from storage.imports.staging import StagedPlan, stage
from storage.imports.writer import ImportReport, Records, Writer
from storage.limits import IMPORT_TRANSACTION_DOCUMENTS, IMPORT_WAIT_SECONDS
from storage.timestamps import now
from storage.transactions import NoTransactions, Session, has_transactions, in_transaction

Waiting = Callable[[str, dict[str, Any]], None]
Extra = dict[str, list[dict[str, Any]]]  # collection -> documents replaced by `_id`


class NeedsStaging(RuntimeError):
    """An asset of the import writes more documents than one transaction may take, and
    the caller may not stage it (an API write: its switch waits a whole request budget
    before it applies, so it cannot finish within one). Raised before anything is
    written."""

    def __init__(self, asset_id: str, documents: int, limit: int) -> None:
        self.asset_id, self.documents, self.limit = asset_id, documents, limit
        super().__init__(
            f"asset {asset_id!r} would write {documents:,} documents, more than one "
            f"transaction may take ({limit:,}: FLOORGATE_IMPORT_MAX_DOCUMENTS)"
        )


async def import_dataset(
    store: Store,
    path: Path,
    *,
    limits: SvgLimits | None = None,
    require_transaction: bool = True,
    wait: float = IMPORT_WAIT_SECONDS,
    waiting: Waiting | None = None,
    max_documents: int = IMPORT_TRANSACTION_DOCUMENTS,
    allow_shrink: bool = True,
) -> ImportReport:
    """`floorgate import PATH`: load, validate against the database, then write."""
    data, base_dir = load_dataset(path)
    return await import_data(
        store,
        data,
        base_dir,
        limits=limits,
        require_transaction=require_transaction,
        wait=wait,
        waiting=waiting,
        max_documents=max_documents,
        allow_shrink=allow_shrink,
    )


async def import_data(
    store: Store,
    data: dict[str, Any],
    base_dir: Path,
    *,
    limits: SvgLimits | None = None,
    svg_sources: dict[str, str] | None = None,
    assets: frozenset[str] | None = None,
    require_transaction: bool = True,
    wait: float = IMPORT_WAIT_SECONDS,
    waiting: Waiting | None = None,
    max_documents: int = IMPORT_TRANSACTION_DOCUMENTS,
    may_stage: bool = True,
    allow_shrink: bool = True,
    replace_locations: bool = False,
    extra: Extra | None = None,
) -> ImportReport:
    """Validate `data`; raise DatasetError and write nothing if anything is wrong,
    else upsert every record by id (relative SVG paths start at `base_dir`).

    `svg_sources` gives drawings in memory, by map id, for map records without `svg`;
    `assets` limits what the records may name to a key's scope (`load_existing`).
    Without transactions (a standalone mongod) it raises NoTransactions, unless
    `require_transaction` is False: it then writes in the idempotent order, outside one.
    `wait` bounds the wait for another writer of the same assets (LeaseBusy after it).
    More than `max_documents` are committed per asset; an asset past it is staged and
    switched in (`storage.imports.switches`), or, unless `may_stage`, refused with
    NeedsStaging before anything is written. Unless `allow_shrink` (the commands ask
    for it; an API put replaces the map it names), an import that would leave a stored
    map with fewer than half its units raises MapsShrink, before anything is written
    (`storage.imports.shrink`). With `replace_locations` (`floorgate import-imdf`: a
    venue's locations are all generated), each map of the file keeps only the locations
    the file gives it (and its derived ones): the others are deleted by the same
    transaction or switch, counted in `ImportReport.removed_locations`
    (`storage.imports.replaced`); without it no location is ever deleted. `extra`:
    documents the import derives besides its records (a venue's health report), by
    collection, each with the `asset_id` of an asset of the file: replaced by `_id` in
    the transaction or switch of their asset, with its records.
    """
    inputs = Inputs(limits or SvgLimits(), dict(svg_sources or {}), assets)
    validated = await validate_against(store, data, base_dir, inputs)
    if validated.problems:
        raise DatasetError(validated.problems)
    atomic = await has_transactions(store)
    if not atomic and require_transaction:
        raise NoTransactions()
    owners = _assets_of(validated)
    records = validated.checked.records
    removed = await removed_by_map(store, records) if replace_locations else {}
    parts = plan_transactions(records, owners, max_documents, _weight(validated, removed))
    for part in parts:
        if part.staged is not None and not may_stage:
            raise NeedsStaging(part.staged, part.documents, max_documents)
    report = ImportReport()
    async with (
        store.client.start_session() as session,
        asset_leases(
            store,
            {a for a in owners.values() if a},
            wait=wait,
            session_id=session.session_id,
            waiting=waiting,
        ),
    ):
        await _settle_switches(store, {a for a in owners.values() if a})
        if not allow_shrink:  # under the leases: what no other import changes meanwhile
            await refuse_shrinking(store, validated)
        files = await _store_files(store, validated, report)
        at = now()
        for part in parts:
            derived = _extra_of(part, extra)
            if part.staged is not None and atomic:
                writer = await _switch(
                    store, validated, part, files, at, replace_locations, derived
                )
            else:
                current = session if atomic else None
                writer = await _commit(
                    store, validated, part.records, files, at, current, replace_locations, derived
                )
            report.add(writer.report)
            await drop_replaced_files(store, writer.named_before)
    return report


def _extra_of(part: Part, extra: Extra | None) -> Extra:
    """The documents of `extra` whose asset this part writes."""
    if not extra:
        return {}
    assets = {record["id"] for _, record in part.records[col.ASSETS]}
    return {
        name: [doc for doc in docs if doc.get("asset_id") in assets] for name, docs in extra.items()
    }


async def _settle_switches(store: Store, assets: set[str]) -> None:
    """Finish the switches that killed imports of these assets left (this import holds
    their leases now), before writing over them."""
    query = {"_id": {"$in": sorted(assets)}}
    for switch in await store[col.SWITCHES].find(query, {"_id": 1}).to_list():
        await switches.settle(store, switch["_id"])


async def _switch(
    store: Store,
    validated: Validated,
    part: Part,
    files: dict[str, StoredDrawing],
    at: str,
    replace_locations: bool,
    extra: Extra | None = None,
) -> Writer:
    """Stage the asset's writes (computed at once, reading the live state under the
    lease, outside any transaction), then switch them in."""
    assert part.staged is not None
    plan = StagedPlan()
    writer = _writer(
        store, validated, part.records, files, at, None, replace_locations, plan, extra
    )
    await writer.run()
    batches = plan.batches()
    token = uuid.uuid4().hex
    staged = switches.Staged.of(token, part.staged, plan, batches, writer.named_before)
    await stage(store, staged.token, staged.asset_id, batches)
    await switches.switch_in(store, staged)
    return writer


def _writer(
    store: Store,
    validated: Validated,
    records: Records,
    files: dict[str, StoredDrawing],
    at: str,
    session: Session,
    replace_locations: bool,
    plan: StagedPlan | None = None,
    extra: Extra | None = None,
) -> Writer:
    lookup = validated.lookup
    drawings = validated.checked.drawings
    exclusive = lookup.group_is_exclusive
    return Writer(
        store, records, drawings, files, exclusive, at, session, plan, replace_locations, extra
    )


async def _commit(
    store: Store,
    validated: Validated,
    records: Records,
    files: dict[str, StoredDrawing],
    at: str,
    session: Session,
    replace_locations: bool,
    extra: Extra | None = None,
) -> Writer:
    """Write `records` in one transaction of `session` (or without one, given None);
    the driver runs it again from the start on a transient error."""

    async def work(current: Session) -> Writer:
        writer = _writer(
            store, validated, records, files, at, current, replace_locations, None, extra
        )
        await writer.run()
        return writer

    if session is None:
        return await work(None)
    writer: Writer = await in_transaction(store, work, session)
    return writer


async def _store_files(
    store: Store, validated: Validated, report: ImportReport
) -> dict[str, StoredDrawing]:
    """Each drawing's source, parsed document and walk graph, stored unless unchanged."""
    files = {}
    for map_id, drawing in validated.checked.drawings.items():
        stored = await store_drawing(store, map_id, drawing)
        files[map_id] = stored
        report.files_stored += stored.written
        report.files_unchanged += stored.unchanged
    return files


# Sections whose records name their asset in `asset_id`.
_OWNED = (
    col.FLOORS,
    col.UNITS,
    col.UNIT_MAPS,
    col.ASSET_REFERENCES,
    col.UNIT_REFERENCES,
    col.ASSIGNMENTS,
    col.LOCATIONS,
)

Owners = dict[tuple[str, int], str | None]  # (section, index in the file) -> its asset


def _assets_of(validated: Validated) -> Owners:
    """The asset each record writes to; None for the records of no asset (attribute
    groups)."""
    owners: Owners = {}
    for section, records in validated.checked.records.items():
        for index, record in records:
            owner = None
            if section == col.ASSETS:
                owner = record["id"]
            elif section in _OWNED:
                owner = record["asset_id"]
            elif section == col.BACKGROUNDS:
                unit_map = validated.lookup.get(col.UNIT_MAPS, record["unit_map_id"]) or {}
                owner = unit_map.get("asset_id")
            owners[(section, index)] = owner
    return owners


def _weight(
    validated: Validated, removed: dict[str, list[Any]]
) -> Callable[[str, dict[str, Any]], int]:
    """Documents a record writes: one, plus a drawn map's level tags and the locations
    derived for its units (a unit the file gives a location on that map derives none:
    `Writer._unit_locations`), plus the locations it removes from a map whose locations
    the file replaces (`removed`, by map id). Locations the database gives only lower
    the true count."""
    drawings = validated.checked.drawings
    given: defaultdict[str, set[str]] = defaultdict(set)
    for _, location in validated.checked.records[col.LOCATIONS]:
        given[location["unit_map_id"]].update(
            tag["value"] for _, tag in location.get("tags", []) if tag["key"] == col.UNIT_ID_TAG
        )

    def weight(section: str, record: dict[str, Any]) -> int:
        if section != col.UNIT_MAPS:
            return 1
        gone = len(removed.get(record["id"], ()))
        drawing = drawings.get(record["id"])
        if drawing is None:
            return 1 + gone
        derived = set() if drawing.graph is None else {u.id for u in drawing.parsed.units}
        return 1 + gone + len(drawing.parsed.levels) + len(derived - given[record["id"]])

    return weight


@dataclass
class Part:
    """Records written together: in one transaction, or (`staged`: their asset) staged
    and switched in; `documents`: what they weigh."""

    records: Records
    staged: str | None = None
    documents: int = 0


def plan_transactions(
    records: Records,
    owners: Owners,
    max_documents: int,
    weight: Callable[[str, dict[str, Any]], int],
) -> list[Part]:
    """All records in one part when they weigh at most `max_documents`; else one part per
    asset, in the order the file names them, records of no asset in the first part. An
    asset that weighs more on its own is staged."""
    parts: dict[str | None, Records] = {None: {section: [] for section in SECTIONS}}
    weights: Counter[str | None] = Counter()
    for section in SECTIONS:
        for index, record in records[section]:
            owner = owners[(section, index)]
            part = parts.setdefault(owner, {name: [] for name in SECTIONS})
            part[section].append((index, record))
            weights[owner] += weight(section, record)
    shared = parts.pop(None)
    if weights.total() <= max_documents or not parts:  # (only records of no asset)
        return [Part(records, documents=weights.total())]
    first = next(iter(parts))
    for section in SECTIONS:
        parts[first][section] = shared[section] + parts[first][section]
    weights[first] += weights.pop(None, 0)
    return [
        Part(
            part,
            str(asset_id) if weights[asset_id] > max_documents else None,
            weights[asset_id],
        )
        for asset_id, part in parts.items()
    ]
