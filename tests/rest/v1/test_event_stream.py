"""REST's Server-Sent Events of a group's assignment changes: refusals as E20's, decided
before the stream starts, then `retry:`, one event per change with its cursor as `id:`,
and resume with Last-Event-ID."""

from __future__ import annotations

import asyncio

import orjson
import pytest

from resolvers.auth.keys import create_key
from resolvers.auth.permissions import UNIT_ATTRIBUTES_READ
from tests.rest.graphql_http.test_subscriptions import FLAG, GROUP, item, live_group, write
from tests.streams import event_stream

__all__ = ["live_group"]  # the fixture, shared with the GraphQL face's tests
PATH = f"/v1/units/attribute-groups/{GROUP}/units/changes"


def parsed(block: bytes) -> dict[str, object]:
    fields = dict(line.split(": ", 1) for line in block.decode().split("\n"))
    return {**fields, "data": orjson.loads(fields["data"])}


@pytest.mark.parametrize(
    ("headers", "path", "status", "body"),
    [
        ({}, PATH, 401, {"message": "No API key found in request"}),
        ({"API-Key": "nope", "Experimental-Flags": FLAG}, PATH, 403, None),
        (
            {"Experimental-Flags": FLAG, "API-Key": "{plain}"},
            PATH,
            403,
            {"message": "Access denied: missing permission service.unit-attributes.read"},
        ),
        ({"API-Key": "{full}"}, PATH, 404, None),
        (
            {"API-Key": "{full}", "Experimental-Flags": FLAG},
            "/v1/units/attribute-groups/no-such-group/units/changes",
            404,
            {"message": "Not found"},
        ),
        ({"API-Key": "{full}", "Experimental-Flags": FLAG, "Last-Event-ID": "x"}, PATH, 422, None),
        (  # digits past any cursor, measured before any conversion
            {"API-Key": "{full}", "Experimental-Flags": FLAG, "Last-Event-ID": "9" * 5000},
            PATH,
            422,
            {
                "message": "Resource validation failed",
                "fields": {"after": ["is not a cursor of this stream"]},
            },
        ),
        ({"API-Key": "{full}", "Experimental-Flags": FLAG}, PATH + "?asset=a&asset=b", 422, None),
    ],
)
async def test_refusals_come_before_the_stream(app, keys, live_group, headers, path, status, body):
    headers = {k: v.format(full=keys.full, plain=keys.plain) for k, v in headers.items()}
    async with event_stream(app, path, headers) as stream:
        content = await stream.body()
    assert stream.status == status
    assert stream.headers["content-type"] == "application/json"
    answer = orjson.loads(content)
    if body is not None:
        assert answer == body
    assert isinstance(answer["message"], str)


async def test_events_then_resume_with_last_event_id(app, client, keys, live_group):
    headers = {"API-Key": keys.full, "Experimental-Flags": FLAG}
    async with event_stream(app, PATH + "?asset=asset-1", headers) as stream:
        assert stream.status == 200
        assert stream.headers["content-type"].startswith("text/event-stream")
        assert stream.headers["cache-control"] == "no-store"
        assert await stream.event() == b"retry: 2000"
        await asyncio.sleep(0.3)
        await write(client, keys.full, [item("city", "u-005")])
        await write(client, keys.full, [item("pool", "u-005")])
        events = [parsed(await stream.event()) for _ in range(3)]
    assert [(e["event"], e["data"]["attribute_id"]) for e in events] == [
        ("assigned", f"{GROUP}-city"),
        ("unassigned", f"{GROUP}-city"),
        ("assigned", f"{GROUP}-pool"),
    ]
    assert events[0]["data"] == {
        "group_id": GROUP,
        "attribute_id": f"{GROUP}-city",
        "asset_id": "asset-1",
        "unit_id": "u-005",
        "at": events[0]["data"]["at"],
    }
    resumed_headers = {**headers, "Last-Event-ID": str(events[0]["id"])}
    async with event_stream(app, PATH + "?asset=asset-1", resumed_headers) as stream:
        assert await stream.event() == b"retry: 2000"
        replayed = [parsed(await stream.event()) for _ in range(2)]
    assert replayed == events[1:]


async def test_a_scoped_key_gets_only_its_assets_events(app, client, keys, store, live_group):
    scoped = await create_key(store, "sse-scoped", [UNIT_ATTRIBUTES_READ], ["asset-2"])
    headers = {"API-Key": scoped.secret, "Experimental-Flags": FLAG}
    async with event_stream(app, PATH, headers) as stream:
        assert await stream.event() == b"retry: 2000"
        await asyncio.sleep(0.3)
        await write(client, keys.full, [item("city", "u-006")])
        await write(client, keys.full, [item("city", "ab", "asset-2")])
        event = parsed(await stream.event())
        assert (event["event"], event["data"]["unit_id"]) == ("assigned", "ab")
        with pytest.raises(TimeoutError):
            await stream.event(timeout=0.3)


async def test_a_key_of_another_asset_naming_this_one_gets_no_events(
    app, client, keys, store, live_group
):
    """A key scoped to asset-2 that asks for asset-1's changes gets a stream without
    events (as E20 answers it an empty list), also when it resumes from the log's start."""
    scoped = await create_key(store, "sse-other-asset", [UNIT_ATTRIBUTES_READ], ["asset-2"])
    headers = {"API-Key": scoped.secret, "Experimental-Flags": FLAG}
    async with event_stream(app, PATH + "?asset=asset-1", headers) as stream:
        assert (stream.status, await stream.event()) == (200, b"retry: 2000")
        await asyncio.sleep(0.3)
        await write(client, keys.full, [item("city", "u-004")])
        with pytest.raises(TimeoutError):
            await stream.event(timeout=0.5)
    async with event_stream(app, PATH + "?asset=asset-1&after=0", headers) as stream:
        assert (stream.status, await stream.event()) == (200, b"retry: 2000")
        with pytest.raises(TimeoutError):
            await stream.event(timeout=0.5)
