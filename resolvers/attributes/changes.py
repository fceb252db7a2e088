"""Live changes of a group's assignments (`unitAttributeAssignmentChanges`, and REST's
`GET /v1/units/attribute-groups/{group}/units/changes`, which runs it).

Everything a client can get wrong is decided before the first event: access (flag
`unit-attributes-resource`, permission service.unit-attributes.read, by the field's
permission class), then input (422), then the group (404). A key sees only the events
of assets in its scope, as E20 lists only their assignments; an `assetId` outside the
scope gives a stream without events, as it gives E20 an empty list.

A cursor is the event's number in the log (`storage.attributes.events`), as text:
clients hand it back, they do not read it. One whose next event the log no longer keeps
is refused (410): resuming from it would skip changes silently.

Each open subscription holds one of its key's slots (FLOORGATE_MAX_SUBSCRIPTIONS_PER_KEY,
counted over every process: `storage.attributes.subscriptions`); the last check takes
it, and it is given back when the stream ends or when the request (a WebSocket's
operation, an event stream) ends, whichever comes first: a subscription completed before
its stream started holds nothing. A change of the key (disabled, its permission taken
away, its scope narrowed) reaches the stream as soon as the process hears of it
(`storage.attributes.hub`). A replay from a cursor is charged like a page (`Sight.pay`).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from functools import partial
from typing import Any

from resolvers.attributes.assignments import group_of
from resolvers.auth.keys import Caller
from resolvers.auth.permissions import UNIT_ATTRIBUTES_READ
from resolvers.context import RequestContext, units_of
from resolvers.errors import ApiError, ErrorCode, FieldErrors
from resolvers.validation import check_id
from storage.attributes.events import EVENT_FIELDS, Event, latest, resumable
from storage.database import UNAVAILABLE_ERRORS

MAX_CURSOR = 2**63 - 1


def cursor_of(event: Event) -> str:
    return str(event["_id"])


def position_of(errors: FieldErrors, name: str, cursor: str | None) -> int | None:
    """The event number a cursor names; None (from now) when there is none."""
    if cursor is None:
        return None
    if not (cursor.isascii() and cursor.isdigit() and len(cursor) <= 19):
        errors.add(name, "is not a cursor of this stream")
        return None
    position = int(cursor)
    if position > MAX_CURSOR:
        errors.add(name, "is not a cursor of this stream")
        return None
    return position


def as_change(event: Event) -> dict[str, Any]:
    """An event as the API object (snake_case, as stored; GraphQL camelizes)."""
    return {
        "change": event["change"],
        "at": event["at"],
        "cursor": cursor_of(event),
        "assignment": {name: event[name] for name in EVENT_FIELDS},
    }


async def assignment_changes(
    context: RequestContext, group_id: str, asset_id: str | None, after: str | None
) -> AsyncIterator[dict[str, Any]]:
    """The checks, awaited now; then the stream of changes, for as long as it is read."""
    services = context.services
    checked = services.event_hub.key_changes  # a change of the key from now on is heard
    caller = await context.caller()
    errors = FieldErrors()
    check_id(errors, "groupId", group_id)
    check_id(errors, "assetId", asset_id)
    position = position_of(errors, "after", after)
    errors.raise_if_any()
    await group_of(context, group_id, for_write=False)
    if position is not None:
        await check_resumable(context, position)
    else:  # "from now" is from this answer: a write after it is never missed
        position = await latest(services.store)
    if (reason := await services.event_hub.unavailable()) is not None:
        retry = services.settings.retry_after_seconds
        raise ApiError(ErrorCode.LIVE_UNAVAILABLE, reason=reason, retry_after=retry)
    sight = Sight(context, caller, asset_id)
    limit = services.settings.max_subscriptions_per_key
    slot = await services.subscription_slots.take(caller.key_id, limit)
    if slot is None:
        raise ApiError(ErrorCode.TOO_MANY_SUBSCRIPTIONS, limit=str(limit))
    free = partial(services.subscription_slots.free, slot)
    context.on_release(free)  # the request ends: the slot is free, the stream run or not
    return stream(context, group_id, sight, position, checked, free)


class Sight:
    """What a subscription's key may see, renewed while the stream lasts: a key disabled,
    or whose permission or scope changed, holds no stream on its old rights."""

    def __init__(self, context: RequestContext, caller: Caller, asset_id: str | None) -> None:
        self.context = context
        self.asset_id = asset_id
        self.see(caller)

    def see(self, caller: Caller) -> None:
        self.caller = caller
        self.visible = caller.asset_filter(self.asset_id) is not None

    def accept(self, event: Event) -> bool:
        if self.asset_id is not None and event["asset_id"] != self.asset_id:
            return False
        return self.visible and self.caller.may_see(event["asset_id"])

    async def still_wanted(self) -> bool:
        """The key is still enabled and may still read assignments (asked when the key
        changes, without spending its rate limit): read from the database, since the
        key cache may not have seen the change yet."""
        services = self.context.services
        try:
            found = await services.key_cache.current(services.store, self.caller.key_id)
        except UNAVAILABLE_ERRORS:  # the database is away: asked again once it is back
            return True
        if found is None or UNIT_ATTRIBUTES_READ not in found.permissions:
            return False
        self.see(found)
        return True

    async def pay(self, count: int) -> None:
        """`count` events replayed from the log are charged like a page of that many:
        `count` times the subscription's cost (what one event of it costs), one rate-limit
        unit per COST_PER_RATE_UNIT. Out of tokens, the replay waits for them."""
        context = self.context
        units = units_of(count * (context.cost or 1))
        limiter = context.services.rate_limiter
        while (
            wait := await limiter.take(self.caller.key_id, units, self.caller.limit)
        ) is not None:
            await asyncio.sleep(wait)


async def check_resumable(context: RequestContext, position: int) -> None:
    found = await resumable(context.services.store, position)
    if found is None:
        raise ApiError(
            ErrorCode.BAD_USER_INPUT, fields={"after": ["is not a cursor of this stream"]}
        )
    if not found:
        raise ApiError(ErrorCode.CURSOR_EXPIRED)


async def stream(
    context: RequestContext,
    group_id: str,
    sight: Sight,
    position: int,
    checked: int,
    free: Callable[[], None],
) -> AsyncIterator[dict[str, Any]]:
    hub = context.services.event_hub
    changes = hub.changes(
        group_id,
        sight.accept,
        position,
        still_wanted=sight.still_wanted,
        key_id=sight.caller.key_id,
        pay=sight.pay,
        checked=checked,
    )
    try:
        async for event in changes:
            yield as_change(event)
    finally:
        free()
