"""Search (`search`, `GET /v1/search`, issue 47): the places of the assets a key may
see that a text finds, best first, paged.

Access (flag `search`, any key) was checked by the field's permission class; `near`
also needs `service.distances.calculate` (403), the permission of every search of the walk
graph (route, E18): it measures a walk from the place to every match, and 24 aliased
searches of a key without that permission held an honest GET at 16x its p95 (issue 63).
Then input (422), then the map (404) when one is named, then `near` on it (422). Order: the match's
tier (exact name, word prefixes, a kind's word typed whole, typos, a kind met otherwise,
tag: `index.Tier`), then walking time
from `near` in `mode` (unreachable places last), then name, asset and id. Semantics in
docs/api.md, "Search".
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, TypedDict

from parsing.gcpause import gc_paused
from parsing.imdf.categories import is_public
from resolvers.auth.access import authorize
from resolvers.auth.keys import Caller
from resolvers.auth.permissions import DISTANCES_CALCULATE
from resolvers.context import RequestContext
from resolvers.errors import FieldErrors
from resolvers.limits import DEFAULT_SEARCH_PER_PAGE, MAX_SEARCH_ASSETS, MAX_SEARCH_PER_PAGE
from resolvers.paging import Page, paged
from resolvers.reads import visible_map
from resolvers.search.index import MATCHED, Entry, Match, SearchIndex, Tier
from resolvers.search.indexes import asset_index
from resolvers.search.text import check_text, phrase
from resolvers.validation import check_id, check_paging
from resolvers.wayfinding.closures import closed_ids, profile_closed
from resolvers.wayfinding.distances import (
    check_choice,
    location_points,
    map_graph,
    map_waypoints,
    rounded,
)
from resolvers.wayfinding.graph_cache import on_graph
from storage import collections as c
from storage.cache import cached_reads
from storage.cache.names import READ_LANGUAGE, local_name

if TYPE_CHECKING:
    from routing.matrix import Cell
    from routing.profile import Profile


PARTIAL_SHARE = 8  # a page within the first eighth of the matches is sorted partially


class SearchResult(TypedDict):
    """One item of a search (the spec's shape, issue 47)."""

    kind: str
    id: str
    name: str | None
    asset_id: str
    floor_id: str | None
    map_id: str | None
    location_id: str | None
    category: str | None
    score: float
    matched: str
    distance: float | None
    time: float | None
    closed: bool | None


@dataclass(frozen=True)
class Found:
    """A match with, from `near`, its walk, and, on a map, whether it is closed."""

    index: SearchIndex
    match: Match
    cell: Cell = None  # None: not walked (no `near`), or not reached
    closed: bool = False  # a closure of the map asked for closes it
    walked: bool = False  # measured from `near`

    @property
    def place(self) -> Entry:
        """Its place, read from the index (`index.Places`): asked of the results shown
        and of those a map, a floor or a walk filters, not of every match."""
        return self.index.places[self.match.place]


async def search(
    context: RequestContext,
    q: str,
    page: int | None,
    per_page: int | None,
    asset: str | None = None,
    unit_map_id: str | None = None,
    floor_id: str | None = None,
    near: str | None = None,
    mode: str | None = None,
) -> Page:
    from routing.model import MODES
    from routing.profile import Profile

    caller = await context.caller()
    if near is not None:  # a walk-graph search, as a route's (issue 63, finding 2)
        await authorize(context, permission=DISTANCES_CALCULATE)
    errors = FieldErrors()
    check_text(errors, "q", q)
    for name, value in (
        ("asset", asset),
        ("unitMapId", unit_map_id),
        ("floorId", floor_id),
        ("near", near),
    ):
        check_id(errors, name, value)
    check_choice(errors, "mode", mode, tuple(MODES))
    if near is not None and unit_map_id is None:
        errors.add("near", "needs `unitMapId` (REST: `map`), the map the location is on")
    page_no, size = check_paging(
        errors, page, DEFAULT_SEARCH_PER_PAGE if per_page is None else per_page
    )
    errors.raise_if_any()
    size = min(size, MAX_SEARCH_PER_PAGE)
    unit_map = None
    if unit_map_id is not None:
        unit_map = await visible_map(context, caller, unit_map_id)
    assets = await _assets(context, caller, asset, unit_map)
    indexes = [
        await asset_index(context.store, context.services.search_indexes, asset_id)
        for asset_id in assets
    ]
    shut = frozenset() if unit_map is None else await closed_ids(context, unit_map)
    if unit_map is None or near is None:
        # Garbage collection paused: a search of many matches (4,578 of 10,000 places)
        # makes as many objects, which young collections during it moved to the oldest
        # generation, where they soon died: full collections came every few seconds
        # beside searches, 25-35 ms each (issue 63, finding 5). Nothing awaited: they
        # are all dropped, by reference counting, as `_page` returns (held by no name
        # here: collection resumes after).
        with gc_paused(settle=False):
            found = _marked(_found(indexes, q, unit_map_id, floor_id), unit_map_id, shut)
            return _page(found, q, page_no, size, unit_map_id)
    found = _marked(_found(indexes, q, unit_map_id, floor_id), unit_map_id, shut)
    found = await _walked(context, unit_map, near, Profile(MODES[mode or "foot"]), found)
    return _page(found, q, page_no, size, unit_map_id)


def _marked(found: list[Found], map_id: str | None, shut: frozenset[str]) -> list[Found]:
    """The results closed marked so (their unit closed, or their location on the map);
    the others are left as they are, open (`_item` says `closed` only with a map)."""
    if not shut:
        return found
    marked = []
    for one in found:
        place = one.place
        spot = place.location_on(map_id)
        closed = place.id in shut or (spot is not None and spot[1] in shut)
        marked.append(replace(one, closed=True) if closed else one)
    return marked


def _found(
    indexes: list[SearchIndex], q: str, map_id: str | None, floor_id: str | None
) -> list[Found]:
    """The matches of `q` in every index, filtered."""
    return [one for index in indexes for one in _filtered(index, index.find(q), map_id, floor_id)]


def _page(found: list[Found], q: str, page_no: int, size: int, map_id: str | None) -> Page:
    """Page `page_no` of the results, best first."""
    start = (page_no - 1) * size
    asked = len(phrase(q))
    items = [_item(one, asked, map_id) for one in _ranked(found, start + size)[start:]]
    return paged(items, page_no, size, start + size < len(found), len(found))


async def _assets(
    context: RequestContext, caller: Caller, asset: str | None, unit_map: dict[str, Any] | None
) -> list[str]:
    """The assets searched: the map's, else the one named, else all the key may see."""
    if unit_map is not None:
        owner = unit_map.get("asset_id")
        return [owner] if owner and asset in (None, owner) else []
    if asset is not None:
        return [asset] if caller.may_see(asset) else []
    found = await cached_reads.find_list(
        context.store,
        c.ASSETS,
        caller.scope_filter("_id"),
        [("_id", 1)],
        limit=MAX_SEARCH_ASSETS + 1,
        projection={"_id": 1},
    )
    if len(found) > MAX_SEARCH_ASSETS:
        # Each asset is an index built and asked: past a few, a search must name its asset.
        errors = FieldErrors()
        errors.add(
            "asset",
            f"is required when the key may see more than {MAX_SEARCH_ASSETS} assets "
            "(or `unitMapId`, REST `map`)",
        )
        errors.raise_if_any()
    return [str(doc["_id"]) for doc in found]


def _filtered(
    index: SearchIndex, matches: list[Match], map_id: str | None, floor_id: str | None
) -> list[Found]:
    if floor_id is None and map_id is None:
        return [Found(index, match) for match in matches]
    found = []
    for match in matches:
        place = index.places[match.place]
        if floor_id is not None and floor_id not in place.floors:
            continue
        if map_id is not None and place.location_on(map_id) is None:
            continue
        found.append(Found(index, match))
    return found


async def _walked(
    context: RequestContext,
    unit_map: dict[str, Any],
    near: str,
    profile: Profile,
    found: list[Found],
) -> list[Found]:
    """Each result with its walk from `near` (one search from it to them all)."""
    map_id = unit_map["id"]
    spots = {position: one.place.location_on(map_id) for position, one in enumerate(found)}
    wanted = {near, *(spot[1] for spot in spots.values() if spot is not None)}
    points = location_points(unit_map, await map_waypoints(context, unit_map, wanted))
    if near not in points:
        errors = FieldErrors()
        errors.add("near", f"no location {near!r} on map {map_id!r}")
        errors.raise_if_any()
    if not unit_map.get("graph_file") or not found:
        return found
    # (position in `found`, its point): a place whose location is on no level is not walked
    targets = [
        (position, points[spot[1]])
        for position, spot in spots.items()
        if spot is not None and spot[1] in points
    ]
    loaded = await map_graph(context, unit_map)
    profile, _ = await profile_closed(context, unit_map, loaded, profile)  # as a route walks
    (cells,) = await on_graph(
        loaded,
        loaded.matrix,
        profile,
        [points[near]],
        [point for _, point in targets],
        stoppable=True,
    )
    walked = [replace(one, walked=True) for one in found]
    for (position, _), cell in zip(targets, cells, strict=True):
        walked[position] = replace(walked[position], cell=cell)
    return walked


def _ranked(found: list[Found], count: int) -> list[Found]:
    """The first `count` in order: a partial sort when they are few of many ("room" with
    a typo meets 4,578 places of 10,000, for a page of 10)."""
    if count < len(found) // PARTIAL_SHARE:
        return heapq.nsmallest(count, found, key=_order)
    return sorted(found, key=_order)


def _order(one: Found) -> tuple[Any, ...]:
    """Tier, then walking time (unreachable last), then name, asset and id; closed places
    after open ones. From `near` (a walk measured, issue 66), reachable places first:
    open and public ones, then non-public, then closed, then those the mode cannot
    reach; by time among what was asked for (a name, its words' beginnings, a kind's
    word), then typos and the rest."""
    places, number = one.index.places, one.match.place
    names = (places.sort_names[number], places.asset_ids[number], places.ids[number])
    if not one.walked:
        return (one.closed, one.match.tier, math.inf, *names)
    time = math.inf if one.cell is None else one.cell[1]
    if one.closed:
        group = 2
    elif math.isinf(time):
        group = 3
    else:
        group = 0 if is_public(one.place.category) else 1
    asked = Tier.EXACT if one.match.tier <= Tier.KIND else one.match.tier
    return (group, asked, time, one.match.tier, *names)


def _item(one: Found, asked: int, map_id: str | None) -> SearchResult:
    place, cell = one.place, one.cell
    spot = place.location_on(map_id)
    return {
        "kind": place.kind,
        "id": place.id,
        "name": _name_of(place),
        "asset_id": place.asset_id,
        "floor_id": place.floor_id,
        "map_id": None if spot is None else spot[0],
        "location_id": None if spot is None else spot[1],
        "category": place.category,
        "score": one.index.score(one.match, asked),
        "matched": MATCHED[one.match.matched],
        "distance": None if cell is None else rounded(cell[0]),
        "time": None if cell is None else rounded(cell[1]),
        "closed": None if map_id is None else one.closed,
    }


def _name_of(place: Entry) -> str | None:
    """The place's name in the request's language where it has one (issue 51)."""
    wanted = READ_LANGUAGE.get()
    if wanted is None or not place.names:
        return place.name
    return local_name(dict(place.names), wanted) or place.name
