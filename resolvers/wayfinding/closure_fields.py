"""The closures' fields (issue 50): `closures` (a map's closures in force), `close`,
`closeConnector`, `closeUnit` and `reopen`, and their REST rows.

Access (a key, flag `directions`; `service.admin` for the writes) was checked by the
field's permission class. Then, in the contract's order: the input (422: ids, exactly
one target, `until` in the future and at most MAX_CLOSURE_DAYS ahead, the reason's
length and characters), the map (404 when the key may not see it: the one scope rule,
`resolvers.auth.scope`), then the target on that map (422: a connector id the walk
graph's stops do not name, a unit id the drawing does not have). Reopening takes any
id: a target the drawing has lost since may still be reopened.
"""

from __future__ import annotations

import unicodedata
from datetime import UTC, datetime, timedelta
from typing import Any

from resolvers.context import RequestContext
from resolvers.errors import FieldErrors, invalid
from resolvers.limits import MAX_CLOSURE_DAYS, MAX_CLOSURE_REASON_CHARS
from resolvers.paging import slice_list
from resolvers.reads import begin, visible_map
from resolvers.validation import check_id
from resolvers.wayfinding.closures import active_list, as_api
from storage.closures import (
    CONNECTOR,
    UNIT,
    active_closures,
    delete_closure,
    put_closure,
)
from storage.timestamps import format_timestamp

IDS = {CONNECTOR: "connectorId", UNIT: "unitId"}  # each kind's argument


async def list_closures(
    context: RequestContext, map_id: str, page: int | None, per_page: int | None
) -> list[dict[str, Any]]:
    """The map's closures in force, by kind then target id: all, or one slice when
    paging arguments are given."""
    caller, page_no, size = await begin(context, (page, per_page), unitMapId=map_id)
    unit_map = await visible_map(context, caller, map_id)
    found = await active_closures(context.store, map_id)
    closures = [as_api(each, map_id) for each in await active_list(context, unit_map, found)]
    if page is None and per_page is None:
        return closures
    return slice_list(closures, page_no, size)


def check_until(errors: FieldErrors, until: str | None, moment: datetime) -> str | None:
    """`until` in the stored form (UTC, whole seconds), after `moment` and at most
    MAX_CLOSURE_DAYS ahead; None (and a problem) otherwise."""
    if until is None:
        return None
    try:
        given = datetime.fromisoformat(until)
        end = given.astimezone(UTC) if given.tzinfo is not None else None
    except (ValueError, OverflowError):  # not a timestamp, or one past the calendar's ends
        given, end = None, None
    if end is None:
        problem = "" if given is None else " (the offset is missing)"
        errors.add(
            "until",
            "must be an ISO 8601 timestamp with an offset, like 2030-06-01T14:00:00+00:00"
            + problem,
        )
        return None
    end = end.replace(microsecond=0)  # as stored: whole seconds
    if end <= moment:
        errors.add("until", "must be in the future (leave it out to close until reopened)")
    elif end > moment + timedelta(days=MAX_CLOSURE_DAYS):
        errors.add(
            "until",
            f"must be at most {MAX_CLOSURE_DAYS} days ahead (leave it out to close until reopened)",
        )
    else:
        return format_timestamp(end)
    return None


def check_reason(errors: FieldErrors, reason: str | None) -> str | None:
    """At most MAX_CLOSURE_REASON_CHARS characters, no control characters (a line break
    included: a reason is one line); empty is none."""
    if reason is None or reason == "":
        return None
    if len(reason) > MAX_CLOSURE_REASON_CHARS:
        errors.add("reason", f"must be at most {MAX_CLOSURE_REASON_CHARS} characters")
    if any(unicodedata.category(char) == "Cc" for char in reason):
        errors.add("reason", "must not contain control characters")
    return reason


def target_of(
    errors: FieldErrors, connector_id: str | None, unit_id: str | None
) -> tuple[str, str] | None:
    """(kind, id) of the one target named: a connector or a unit, not both."""
    check_id(errors, IDS[CONNECTOR], connector_id)
    check_id(errors, IDS[UNIT], unit_id)
    if connector_id is not None and unit_id is not None:
        errors.add(IDS[UNIT], "name a connector or a unit, not both")
        return None
    if connector_id is None and unit_id is None:
        errors.add(IDS[CONNECTOR], "a connector or a unit is required")
        return None
    return (CONNECTOR, connector_id) if connector_id is not None else (UNIT, unit_id)  # type: ignore[return-value]  # one of them is given


async def close(
    context: RequestContext,
    map_id: str,
    connector_id: str | None,
    unit_id: str | None,
    until: str | None,
    reason: str | None,
) -> dict[str, Any]:
    """Close one connector or one unit of the map (replacing its earlier closure)."""
    caller = await context.caller()
    moment = datetime.now(UTC)
    errors = FieldErrors()
    check_id(errors, "unitMapId", map_id)
    target = target_of(errors, connector_id, unit_id)
    stored_until = check_until(errors, until, moment)
    stored_reason = check_reason(errors, reason)
    errors.raise_if_any()
    assert target is not None
    kind, target_id = target
    unit_map = await visible_map(context, caller, map_id)
    connector_kind = await _target_on_map(context, unit_map, kind, target_id)
    await put_closure(
        context.store,
        map_id,
        unit_map["asset_id"],
        kind,
        target_id,
        stored_until,
        stored_reason,
        connector_kind,
        moment,
    )
    stored = {
        "kind": kind,
        "target_id": target_id,
        "connector_kind": connector_kind,
        "until": stored_until,
        "reason": stored_reason,
    }
    (closure,) = await active_list(context, unit_map, [stored])
    return as_api(closure, map_id)


async def _target_on_map(
    context: RequestContext, unit_map: dict[str, Any], kind: str, target_id: str
) -> str | None:
    """422 unless the map has the target; a connector's kind (`elevator`, ...)."""
    from routing.closures import connector_kinds

    if kind == UNIT:
        if target_id not in (unit_map.get("unit_ids") or []):
            raise invalid({IDS[UNIT]: [f"no unit {target_id!r} is drawn on this map"]})
        return None
    kinds = {}
    if unit_map.get("graph_file"):
        from resolvers.wayfinding.distances import map_graph  # walk graphs load when used

        kinds = connector_kinds((await map_graph(context, unit_map)).graph)
    if target_id not in kinds:
        raise invalid({IDS[CONNECTOR]: [f"no connector {target_id!r} on this map's walk graph"]})
    return kinds[target_id]


async def reopen(
    context: RequestContext, map_id: str, connector_id: str | None, unit_id: str | None
) -> bool:
    """Remove the closure of one connector or unit: True when one was stored (one that
    its `until` already ended included), False when there was none."""
    caller = await context.caller()
    errors = FieldErrors()
    check_id(errors, "unitMapId", map_id)
    target = target_of(errors, connector_id, unit_id)
    errors.raise_if_any()
    assert target is not None
    await visible_map(context, caller, map_id)
    return await delete_closure(context.store, map_id, *target)
