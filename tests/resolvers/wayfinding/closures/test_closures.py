"""What a map's closures close now (`resolvers.wayfinding.closures`): the closed edges
and the closures with their names, computed once per closures in force (the cache),
a kept answer told when the first closure ends, and one closure in words."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import orjson
import pytest

from resolvers.context import RequestContext, Services
from resolvers.reads import visible_map
from resolvers.wayfinding import closures as closures_module
from resolvers.wayfinding.closures import (
    NOTHING_CLOSED,
    ActiveClosure,
    Closed,
    closed_edges,
    closure_words,
)
from resolvers.wayfinding.distances import map_graph
from routing import closures as routing_closures
from routing.matrix import LoadedGraph
from storage import collections as c
from storage.cache.read_cache import READS, ReadLog
from storage.closures import put_closure
from storage.files import get_file
from storage.timestamps import format_timestamp
from tests.resolvers.wayfinding.closures.closure_env import ASSET, MAP, Env, world

env = world()


@pytest.fixture
async def context(env: Env, settings) -> AsyncIterator[RequestContext]:
    await env.store[c.CLOSURES].delete_many({})
    yield RequestContext(Services(env.store, settings), env.admin, frozenset({"directions"}))
    await env.store[c.CLOSURES].delete_many({})


async def the_map(context: RequestContext) -> tuple[dict, LoadedGraph]:
    unit_map = await visible_map(context, await context.caller(), MAP)
    return unit_map, await map_graph(context, unit_map)


async def close(
    context: RequestContext,
    kind: str,
    target: str,
    until: str | None = None,
    kind_of: str | None = None,
) -> None:
    await put_closure(context.store, MAP, ASSET, kind, target, until, None, kind_of)


async def test_nothing_closed_without_closures(context):
    unit_map, loaded = await the_map(context)
    assert await closed_edges(context, unit_map, loaded) is NOTHING_CLOSED
    assert len(context.services.closure_cache) == 0


async def test_the_edges_and_closures_in_force(context, monkeypatch):
    unit_map, loaded = await the_map(context)
    until = format_timestamp(datetime.now(UTC) + timedelta(hours=1))
    await close(context, "connector", "cl-lift", until, "elevator")
    await close(context, "unit", "cl-lobby")
    await close(
        context, "unit", "cl-bay", format_timestamp(datetime.now(UTC) - timedelta(seconds=1))
    )
    closed = await closed_edges(context, unit_map, loaded)
    stored = await get_file(context.store, unit_map["parsed_file"])
    assert stored is not None
    outlines = routing_closures.unit_outlines(orjson.loads(stored.data), ["cl-lobby"])
    expected = routing_closures.closed_edges(loaded.graph, ["cl-lift"], outlines)
    assert len(expected.edges) == 4  # the lift's ride and two links, the lobby's corridor
    assert closed == Closed(
        expected.edges,
        (
            ActiveClosure("connector", "cl-lift", "Lift A", "elevator", until, None),
            ActiveClosure("unit", "cl-lobby", "Lobby", None, None, None),
        ),
        expected.by_target,
    )
    lobby = expected.by_target[("unit", "cl-lobby")]
    assert closed.needed_by([*lobby, 10_000]) == (closed.closures[1],)
    assert closed.needed_by([]) == ()
    # computed once per closures in force: the second request reads neither the drawing
    # nor the graph's segments again
    assert len(context.services.closure_cache) == 1
    computed: list[object] = []

    def counted(*args: object) -> object:
        computed.append(args)
        return routing_closures.ClosedEdges(frozenset(), {})

    monkeypatch.setattr(closures_module, "_compute", counted)
    assert await closed_edges(context, unit_map, loaded) == closed
    assert computed == []
    await close(context, "unit", "cl-shop")  # another set in force: computed anew
    again = await closed_edges(context, unit_map, loaded)
    assert (len(computed), again.edges, len(context.services.closure_cache)) == (1, frozenset(), 1)


async def test_a_kept_answer_ends_with_the_first_closure(context):
    unit_map, loaded = await the_map(context)
    soon, later = (datetime.now(UTC).replace(microsecond=0) + timedelta(minutes=m) for m in (5, 50))
    await close(context, "unit", "cl-lobby", format_timestamp(later))
    await close(context, "unit", "cl-shop", format_timestamp(soon))
    await close(context, "connector", "cl-lift", None, "elevator")
    log = ReadLog(b"key")
    token = READS.set(log)
    try:
        closed = await closed_edges(context, unit_map, loaded)
    finally:
        READS.reset(token)
    assert len(closed.closures) == 3
    assert log.until == soon.timestamp()
    read = {collection for collection, _ in log.versions}
    assert c.CLOSURES in read or not context.store.cache.live


def test_words():
    moment = datetime(2030, 6, 1, 9, 30, tzinfo=UTC)
    lift = ActiveClosure(
        "connector", "cl-lift", "Lift A", "elevator", "2030-06-01T14:00:00+00:00", "x"
    )
    assert closure_words(lift, moment) == "the elevator Lift A is closed until 14:00 UTC"
    tomorrow = ActiveClosure(
        "connector", "b1-stairs-a", None, "stairs", "2030-06-02T08:05:00+00:00", None
    )
    # no place names them: by their kind, never by an id (issue 66)
    assert closure_words(tomorrow, moment) == "the stairs are closed until 2030-06-02 08:05 UTC"
    assert (
        closure_words(ActiveClosure("unit", "cl-bay", None, None, None, None))
        == "a place without a name is closed"
    )
    assert (
        closure_words(ActiveClosure("unit", "cl-lobby", "Lobby", None, None, None))
        == "Lobby is closed"
    )
