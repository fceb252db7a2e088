"""What a map's closures close now (issue 50): the walk graph's closed edges and the
closures in force, for a route, E18 answer or `nearest` to route around and to name
(`closed_edges`, `closure_words`).

Read per request: the map's closures through the read cache (a dict lookup while the
collection's version holds), kept only while they are in force (`storage.closures`), so
a closure applies at once and ends by itself at its `until`. The edge set is computed
once per process for each (map, walk graph, parsed drawing, closures in force) and kept
in `Services.closure_cache`, bounded in bytes; a unit's closure reads the parsed
drawing (its outline) only then. A map without closures costs one cached read.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import orjson

from parsing.imdf.label_rank import is_generated
from resolvers.context import RequestContext
from storage import collections as c
from storage.cache import cached_reads
from storage.closures import CONNECTOR, UNIT, Closure, active_closures, ends_at
from storage.files import get_file

if TYPE_CHECKING:  # routing is imported by the functions that need it
    from routing.closures import ClosedEdges
    from routing.matrix import LoadedGraph
    from routing.model import WalkGraph
    from routing.profile import Profile
    from routing.route import Route

BY_ID = [("_id", 1)]


@dataclass(frozen=True)
class ActiveClosure:
    """A closure in force, as a route's `reason` and the closures list name it."""

    kind: str  # `connector` or `unit`
    target_id: str  # the connector's `data-connector-id`, or the unit's id
    name: str | None  # the unit's name, or the name of the connector's place, if known
    connector_kind: str | None  # `elevator`, `stairs`, ... (a connector's)
    until: str | None  # a timestamp; None: until reopened
    reason: str | None


@dataclass(frozen=True)
class Closed:
    """The edges closed now (`Profile.closed`) and the closures that close them."""

    edges: frozenset[int]
    closures: tuple[ActiveClosure, ...]
    # Each closure's own edges, by (kind, target id): which of them a path would need.
    by_target: dict[tuple[str, str], frozenset[int]] = field(default_factory=dict)

    def needed_by(self, path_edges: Iterable[int]) -> tuple[ActiveClosure, ...]:
        """The closures that close an edge of `path_edges` (a route found without them),
        in their order: what a route's `reason` names when only they stand in its way."""
        used = set(path_edges)
        return tuple(
            each
            for each in self.closures
            if not used.isdisjoint(self.by_target.get((each.kind, each.target_id), ()))
        )


NOTHING_CLOSED = Closed(frozenset(), ())


def as_api(closure: ActiveClosure, map_id: str) -> dict[str, Any]:
    """A closure as both faces serve it (snake_case, as stored documents are)."""
    return {
        "unit_map_id": map_id,
        "kind": closure.kind,
        "connector_id": closure.target_id if closure.kind == CONNECTOR else None,
        "unit_id": closure.target_id if closure.kind == UNIT else None,
        "connector_kind": closure.connector_kind,
        "name": closure.name,
        "until": closure.until,
        "reason": closure.reason,
    }


async def closed_edges(
    context: RequestContext, unit_map: dict[str, Any], loaded: LoadedGraph
) -> Closed:
    """The edges of the map's walk graph (`loaded`) closed now, and the closures in
    force; a kept answer that calls this ends when the first of them does."""
    found = await active_closures(context.store, unit_map["id"])
    if not found:
        return NOTHING_CLOSED
    edges = await _edges(context, unit_map, loaded, found)
    closures = await active_list(context, unit_map, found)
    return Closed(edges.edges, tuple(closures), edges.by_target)


async def _edges(
    context: RequestContext, unit_map: dict[str, Any], loaded: LoadedGraph, found: list[Closure]
) -> ClosedEdges:
    connectors = sorted(each["target_id"] for each in found if each["kind"] == CONNECTOR)
    units = sorted(each["target_id"] for each in found if each["kind"] == UNIT)
    parsed_file = unit_map.get("parsed_file")

    async def load() -> ClosedEdges:
        data = None
        if units and parsed_file:
            stored = await get_file(context.store, parsed_file)
            data = None if stored is None else stored.data
        from resolvers.wayfinding.graph_cache import on_graph  # not at start (cold start)

        return await on_graph(loaded, _compute, loaded.graph, connectors, units, data)

    key = (unit_map.get("graph_file"), parsed_file, tuple(connectors), tuple(units))
    return await context.services.closure_cache.get(unit_map["id"], key, load)


def _compute(
    graph: WalkGraph, connectors: list[str], units: list[str], parsed: bytes | None
) -> ClosedEdges:
    """The closed edges (on the CPU pool for a large graph: the drawing is parsed JSON)."""
    from routing.closures import closed_edges, unit_outlines

    outlines = unit_outlines(orjson.loads(parsed), units) if parsed else []
    return closed_edges(graph, connectors, outlines)


async def active_list(
    context: RequestContext, unit_map: dict[str, Any], found: list[Closure]
) -> list[ActiveClosure]:
    """The closures `found` with the names of what they close, in their order."""
    names = await target_names(context, unit_map, found)
    return [
        ActiveClosure(
            each["kind"],
            each["target_id"],
            names.get((each["kind"], each["target_id"])),
            each.get("connector_kind"),
            each.get("until"),
            each.get("reason"),
        )
        for each in found
    ]


async def target_names(
    context: RequestContext, unit_map: dict[str, Any], found: list[Closure]
) -> dict[tuple[str, str], str]:
    """A closed unit's name (its stored unit's), a closed connector's (the name of the
    first of its places, `places_of`: "Lift A"); a target without one is left out. A
    generated name (an IMDF venue's "Elevator 1", a drawn connector's "Elevator") names
    no closure: it says the kind the words already say ("the elevator Elevator")."""
    store, names = context.store, {}
    targets = {(each["kind"], each["target_id"]) for each in found}
    units = sorted(target for kind, target in targets if kind == UNIT)
    if units:
        query = {"_id": {"$in": units}, "asset_id": unit_map.get("asset_id")}
        for unit in await cached_reads.find_list(
            store, c.UNITS, query, BY_ID, projection={"name": 1}
        ):
            if unit.get("name"):
                names[(UNIT, unit["_id"])] = unit["name"]
    connectors = {(kind, target) for kind, target in targets if kind == CONNECTOR}
    for place, closes in await places_of(context, unit_map, connectors):
        tags = place.get("tags") or []
        said = {tag.get("key"): tag.get("value") for tag in tags if isinstance(tag, dict)}
        if not place.get("name") or is_generated(place["name"], said):
            continue
        for target in closes:
            names.setdefault(target, place["name"])
    return names


async def places_of(
    context: RequestContext, unit_map: dict[str, Any], targets: Iterable[tuple[str, str]]
) -> list[tuple[dict[str, Any], tuple[tuple[str, str], ...]]]:
    """The map's locations that stand for closure targets ((kind, id) pairs), in id
    order, each with the targets it stands for (issue 66: a route or `nearest` to a closed
    place says so). A unit's place stands for it (tag `svc:id`, or its own id on a map
    that keeps units' places under their ids); a connector's places are those tagged
    with its id (`svc:connector-id`: an IMDF lift's unit on each level) or standing for
    a unit of its id (a drawing's lift that is also a unit)."""
    wanted = sorted(set(targets))
    if not wanted:
        return []
    ids = sorted({target for _, target in wanted})
    map_id = unit_map["id"]
    keys = [c.UNIT_ID_TAG, c.CONNECTOR_ID_TAG]
    query = {
        "unit_map_id": map_id,
        "$or": [
            {"tags": {"$elemMatch": {"key": {"$in": keys}, "value": {"$in": ids}}}},
            {"_id": {"$in": [*ids, *(f"{each}@{map_id}" for each in ids)]}},
        ],
    }
    found = await cached_reads.find_list(
        context.store, c.LOCATIONS, query, BY_ID, projection={"name": 1, "tags": 1}
    )
    asked = set(wanted)
    placed = []
    for place in found:
        closes: dict[tuple[str, str], None] = {}
        own = str(place["_id"]).removesuffix(f"@{map_id}")
        said = [(UNIT, own)]
        for tag in place.get("tags") or []:
            value = tag.get("value") if isinstance(tag, dict) else None
            if not isinstance(value, str):
                continue
            if tag.get("key") == c.UNIT_ID_TAG:
                said += [(UNIT, value), (CONNECTOR, value)]
            elif tag.get("key") == c.CONNECTOR_ID_TAG:
                said.append((CONNECTOR, value))
        for target in said:
            if target in asked:
                closes[target] = None
        if closes:
            placed.append((place, tuple(closes)))
    return placed


async def closed_ids(context: RequestContext, unit_map: dict[str, Any]) -> frozenset[str]:
    """The ids of what the map's closures in force close, for a search to flag (its
    results are units or locations): the closed units' own, and their places' and the
    closed connectors' places' (`places_of`)."""
    targets = {
        (each["kind"], each["target_id"])
        for each in await active_closures(context.store, unit_map["id"])
    }
    placed = await places_of(context, unit_map, targets)
    units = {target for kind, target in targets if kind == UNIT}
    return frozenset({*(str(place["_id"]) for place, _ in placed), *units})


async def closed_places(
    context: RequestContext, unit_map: dict[str, Any], closed: Closed
) -> dict[str, tuple[ActiveClosure, ...]]:
    """The map's locations the closures in force close, by id, with those closures."""
    if not closed.closures:
        return {}
    by_target = {(each.kind, each.target_id): each for each in closed.closures}
    return {
        str(place["_id"]): tuple(by_target[target] for target in closes)
        for place, closes in await places_of(context, unit_map, by_target)
    }


def closure_words(closure: ActiveClosure, moment: datetime | None = None) -> str:
    """One closure in words, for a route's `reason`: "the elevator Lift A is closed until
    14:00 UTC" (the day too when it is not today's, in UTC); "Lobby is closed". Never an
    id, which a visitor cannot read (issue 66: "the elevator 0395bc01-b983-... is
    closed"): a connector without a place is said by its kind ("the stairs are
    closed"), a unit without a name as "a place without a name"; the answer's `closures`
    carry the ids."""
    verb = "is"
    if closure.kind == CONNECTOR:
        kind = closure.connector_kind or "connector"
        named = f"the {kind} {closure.name}" if closure.name else f"the {kind}"
        verb = "are" if not closure.name and kind == "stairs" else "is"
    else:
        named = closure.name or "a place without a name"
    end = ends_at({"until": closure.until})
    if end is None:
        return f"{named} {verb} closed"
    today = (moment or datetime.now(UTC)).astimezone(UTC).date()
    shown = end.astimezone(UTC)
    when = shown.strftime("%H:%M") if shown.date() == today else shown.strftime("%Y-%m-%d %H:%M")
    return f"{named} {verb} closed until {when} UTC"


async def profile_closed(
    context: RequestContext, unit_map: dict[str, Any], loaded: LoadedGraph, profile: Profile
) -> tuple[Profile, Closed]:
    """`profile` with the edges closed now (what every route, E18 answer and `nearest`
    walks), and the closures in force."""
    import dataclasses

    closed = await closed_edges(context, unit_map, loaded)
    return dataclasses.replace(profile, closed=closed.edges), closed


def closures_in_the_way(
    closed: Closed, route: Route, graph: WalkGraph
) -> tuple[ActiveClosure, ...]:
    """The closures a route found without them would need: the closed connectors it
    rides and the closed units whose edges it walks (`routing.closures.walked_edges`);
    every closure in force when it needs none of them (it cannot: it was found only
    without them)."""
    from routing.closures import walked_edges

    ridden = {ride.connector_id for ride in route.rides}
    units = [each for each in closed.closures if each.kind == UNIT]
    legs = [(leg.level, leg.points) for leg in route.legs]
    walked = walked_edges(
        graph, legs, (e for each in units for e in closed.by_target.get((UNIT, each.target_id), ()))
    )
    needed = set(closed.needed_by(walked))
    named = tuple(
        each
        for each in closed.closures
        if each in needed or (each.kind == CONNECTOR and each.target_id in ridden)
    )
    return named or closed.closures
