"""Operator writes through the API (`service.admin`): maps, references, locations.

Puts run the importer on a one-record dataset, so the API and `floorgate import`
share every rule (validation first, nothing written on a problem, timestamps,
files, GeoJSON). Access was checked by the field's permission class.

A put past FLOORGATE_IMPORT_MAX_DOCUMENTS is refused (413, WRITE_TOO_LARGE) before
anything is written: the importer would stage it and switch it in, and a switch waits a
whole request budget before it applies, so it could never answer within one. Puts and
`deleteLocation` hold the asset's lease (storage/imports/leases.py), so they never
interleave with an import of the asset, staged or not.
"""

from __future__ import annotations

import re
from functools import partial
from pathlib import Path
from typing import Any

from resolvers.auth.scope import check_target, in_scope
from resolvers.context import RequestContext, unavailable
from resolvers.errors import ApiError, ErrorCode, FieldErrors, invalid
from resolvers.limits import LEASE_WAIT_SHARE
from resolvers.paging import as_resource
from resolvers.validation import check_id
from storage import collections as c
from storage.datasets.fields import DatasetError, Problem
from storage.imports.leases import LeaseBusy, asset_leases
from storage.transactions import Session, atomically

# `storage.imports.importer` and `storage.datasets.map_drawings` pull in the SVG parser,
# numpy, shapely and lxml: they are imported by the first write that needs them, not at
# start (issue 15).

RECORD_PATH = re.compile(r"^\$\.\w+\[0\]\.?")
# An importer path quoted inside a message, e.g. "(also at $.locations[0].tags[0])".
QUOTED_PATH = re.compile(r"\$\.\w+\[0\][\w.\[\]]*")


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.capitalize() for part in rest)


def input_field(problem: Problem) -> str:
    """`$.unit_maps[0].level_tags[1].key` -> `input.levelTags[1].key`; `svg` stays `svg`."""
    return _input_path(problem.path)


def input_message(problem: Problem) -> str:
    """The problem's message with every importer path in it named as the client sent it."""
    return QUOTED_PATH.sub(lambda m: _input_path(m.group(0)), problem.message)


def _input_path(importer_path: str) -> str:
    path = RECORD_PATH.sub("", importer_path)
    if path == "svg":
        return "svg"
    names = re.sub(r"[A-Za-z_]+", lambda m: _camel(m.group(0)), path)
    return f"input.{names}" if names else "input"


async def _put(
    context: RequestContext, section: str, record: dict[str, Any], svg: str | None = None
) -> None:
    """Import one record of `section` within the key's scope (`resolvers.auth.scope`); every
    problem becomes a 422 field."""
    caller = await context.caller()
    await check_target(context, caller, section, record)
    from storage.imports.importer import NeedsStaging, import_data  # lazily, see the imports

    svg_sources = (
        {record["id"]: svg} if svg is not None and isinstance(record.get("id"), str) else {}
    )
    try:
        await import_data(
            context.store,
            {section: [record]},
            Path.cwd(),
            limits=context.settings.svg_limits,
            svg_sources=svg_sources,
            assets=caller.assets,
            # In one transaction where the deployment has them; a standalone server
            # still takes writes, in the importer's idempotent order.
            require_transaction=False,
            # Another writer of the asset (an import) is waited for within most of the
            # request's time budget; then 503 with Retry-After, nothing written.
            wait=context.settings.request_timeout_seconds * LEASE_WAIT_SHARE,
            max_documents=context.settings.import_max_documents,
            may_stage=False,
        )
    except LeaseBusy:
        raise unavailable(context.settings) from None
    except NeedsStaging as error:
        raise ApiError(
            ErrorCode.WRITE_TOO_LARGE,
            details={"documents": error.documents, "limit": error.limit},
            documents=f"{error.documents:,}",
            asset=f'"{error.asset_id}"',
            limit=f"{error.limit:,}",
        ) from None
    except DatasetError as error:
        fields: dict[str, list[str]] = {}
        for problem in error.problems:
            fields.setdefault(input_field(problem), []).append(input_message(problem))
        raise invalid(fields) from None


async def _stored(context: RequestContext, section: str, query: dict[str, Any]) -> dict[str, Any]:
    stored = await context.store[section].find_one(query)
    assert stored is not None, "an imported record is stored"
    return as_resource(stored)


async def put_unit_map(context: RequestContext, record: dict[str, Any], svg: str) -> dict[str, Any]:
    await _put(context, c.UNIT_MAPS, record, svg)
    return await _stored(context, c.UNIT_MAPS, {"_id": record["id"]})


async def put_asset_reference(context: RequestContext, record: dict[str, Any]) -> dict[str, Any]:
    await _put(context, c.ASSET_REFERENCES, record)
    return await _stored(context, c.ASSET_REFERENCES, {"_id": record["id"]})


async def put_unit_reference(context: RequestContext, record: dict[str, Any]) -> dict[str, Any]:
    """Unit references are keyed by (unit, key): a put replaces the unit's value for the key."""
    await _put(context, c.UNIT_REFERENCES, record)
    return await _stored(
        context, c.UNIT_REFERENCES, {"unit_id": record["unit_id"], "key": record["key"]}
    )


async def put_location(context: RequestContext, record: dict[str, Any]) -> dict[str, Any]:
    """The importer also rewrites the map's GeoJSON, which holds its locations."""
    await _put(context, c.LOCATIONS, record)
    return await _stored(context, c.LOCATIONS, {"_id": record["id"]})


def _checked_ids(**ids: str) -> None:
    errors = FieldErrors()
    for name, value in ids.items():
        check_id(errors, name, value)
    errors.raise_if_any()


async def delete_asset_reference(context: RequestContext, reference_id: str) -> bool:
    """True when a reference was deleted; deleting what is not there (or not in the
    key's scope: the same) is not an error."""
    caller = await context.caller()
    _checked_ids(id=reference_id)
    result = await context.store[c.ASSET_REFERENCES].delete_one(
        in_scope(caller, {"_id": reference_id})
    )
    return result.deleted_count == 1


async def delete_unit_reference(context: RequestContext, unit_id: str, key: str) -> bool:
    caller = await context.caller()
    _checked_ids(unitId=unit_id, key=key)
    result = await context.store[c.UNIT_REFERENCES].delete_one(
        in_scope(caller, {"unit_id": unit_id, "key": key})
    )
    return result.deleted_count == 1


async def delete_location(context: RequestContext, location_id: str) -> bool:
    """Deletes the location and rewrites its map's GeoJSON without it, in one transaction;
    the GeoJSON file it replaces goes after the commit.

    It holds the asset's lease, as the puts do (waiting for an import of the asset within
    most of the request's budget, then 503): a staged import computes its maps' GeoJSON
    from the locations it read under that lease, and a delete between its plan and its
    switch would leave the location in the GeoJSON it switches in."""
    from storage.datasets.map_drawings import refresh_geojson
    from storage.files import drop_replaced_files, named_files

    caller = await context.caller()
    _checked_ids(id=location_id)
    store = context.store
    named: dict[str, set[str]] = {}
    wait = context.settings.request_timeout_seconds * LEASE_WAIT_SHARE
    query = in_scope(caller, {"_id": location_id})

    async def work(session: Session, asset_id: str) -> bool:
        location = await store[c.LOCATIONS].find_one_and_delete(
            {**query, "asset_id": asset_id}, session=session
        )
        if location is None:
            return False
        map_id = location["unit_map_id"]
        named.update(await named_files(store, [map_id], session))
        await refresh_geojson(store, map_id, session=session)
        return True

    while True:  # again when an import moved the location to another asset meanwhile
        found = await store[c.LOCATIONS].find_one(query, {"asset_id": 1})
        if found is None:
            return False
        asset_id = found["asset_id"]
        try:
            async with asset_leases(store, [asset_id], wait=wait):
                deleted: bool = await atomically(store, partial(work, asset_id=asset_id))
        except LeaseBusy:
            raise unavailable(context.settings) from None
        if deleted:
            break
    await drop_replaced_files(store, named)
    return deleted
