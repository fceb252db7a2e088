"""Nearest in one call (issue 47, point 4): a route's `to` may name candidates instead of
one place (`nearest`: a search text `q`, E17's tag filter `tags`, or location `ids`),
and the route goes to the one reached first.

All candidates are measured by one multi-target search from the start (`closest`: one
Dijkstra on the walk graph, E18's times; those that may tie measured as E18 measures
them); closed candidates are left out first, and by `q` or `tags` the public ones are
searched first when some are not (issue 66, point 4). The least time wins, then the
least distance, then the least id, compared as E18 answers them (rounded to 2
decimals), so a client can check the choice with E18. `directions` then routes to the
chosen place as to `{"id": chosen}`: the same answer as a plain route there, byte for
byte, on the graph, profile and closures the choice used (`Walked`), and with the
start's join the choice made (issue 47: a nearest route costs at most 1.2x that plain
route). The candidates of `ids` and `tags` are kept with the map's walk graph while its
locations stay as they are (`_targets`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from parsing.imdf.categories import NON_PUBLIC
from resolvers.context import RequestContext
from resolvers.errors import FieldErrors
from resolvers.limits import (
    MAX_NEAREST_IDS,
    MAX_QUOTED_CHARS,
    NEAREST_CANDIDATE_COST,
    NEAREST_UNLISTED_CANDIDATES,
    PATH_SEARCH_COST,
)
from resolvers.paging import BY_ID
from resolvers.search.text import check_text
from resolvers.tag_filter import Term, matches, parse_filter
from resolvers.validation import check_id
from resolvers.wayfinding.closures import ActiveClosure, Closed, closed_places, profile_closed
from resolvers.wayfinding.distances import (
    Waypoint,
    check_on_drawing,
    floor_height_of,
    location_points,
    map_graph,
    map_waypoints,
    place_waypoints,
    rounded,
)
from resolvers.wayfinding.graph_cache import on_graph
from storage import collections as c
from storage.cache import cached_reads
from storage.cache.read_cache import kept_key

if TYPE_CHECKING:  # routing is imported by the functions that need it
    from routing.closest import Closest, Targets
    from routing.matrix import LoadedGraph, Point
    from routing.profile import Profile

FORMS = ("q", "tags", "ids")  # exactly one of them
ALONE = ("id", "name", "x", "y", "floor_id", "lon", "lat", "level")  # not with `nearest`
PLACE = "to.nearest"


@dataclass(frozen=True)
class Wanted:
    """A checked `nearest`: its form and what it holds."""

    form: str  # one of FORMS
    text: str = ""  # `q` or `tags` as given
    terms: tuple[Term, ...] = ()
    ids: tuple[str, ...] = ()


@dataclass(frozen=True)
class Walked:
    """What a choice walked on, which the route to it walks again: the map's walk graph,
    and the route's profile with the edges closed now and the closures in force."""

    loaded: LoadedGraph
    profile: Profile
    closed: Closed


@dataclass(frozen=True)
class Choice:
    """The candidate a route goes to. When none is reachable, the one nearest in a
    straight line (E18's `euclidean`), so that the answer's `to` still names a place."""

    location_id: str
    reachable: bool
    start_joins: bool  # whether the start joins the walk graph in the mode
    # None reachable: the point of the one that would be quickest without the excluded
    # kinds and the closures, if one would be (what the `reason` names stands in its way).
    freed: Point | None = None
    walked: Walked | None = None  # None on a map without walk paths
    # Every candidate closed: the closures that close them (the answer's `reason`).
    closed: tuple[ActiveClosure, ...] = ()


def check_nearest(errors: FieldErrors, waypoint: Waypoint) -> Wanted | None:
    """What can be checked of a route's `to.nearest` without the database."""
    nearest = waypoint["nearest"]
    if any(waypoint.get(key) is not None for key in ALONE):
        errors.add(
            PLACE,
            "must be alone in its waypoint: no id, name, x, y, lon, lat, floor or level with it",
        )
    given = [form for form in FORMS if nearest.get(form) is not None]
    if len(given) != 1:
        errors.add(PLACE, "must have exactly one of q, tags or ids")
        return None
    (form,) = given
    if form == "q":
        check_text(errors, f"{PLACE}.q", nearest["q"])
        return Wanted(form, text=nearest["q"])
    if form == "tags":
        tags = nearest["tags"]
        if tags.strip() == "":
            errors.add(f"{PLACE}.tags", "must have at least one term")
        terms = parse_filter(errors, f"{PLACE}.tags", tags)
        return Wanted(form, text=tags, terms=tuple(terms))
    ids = list(nearest["ids"])
    if len(ids) > MAX_NEAREST_IDS:
        errors.add(f"{PLACE}.ids", f"must have at most {MAX_NEAREST_IDS} items")
        return None
    for index, id_ in enumerate(ids):
        check_id(errors, f"{PLACE}.ids.{index}", id_)
    return Wanted(form, ids=tuple(ids))


async def choose(
    context: RequestContext,
    unit_map: dict[str, Any],
    start: Waypoint,
    wanted: Wanted,
    profile: Profile,
) -> Choice:
    """The candidate with the least time from `start` in the route's profile (its mode,
    costing options and closures; ties: distance, then id). 422 for a start or a
    candidate not on the map, or no candidate at all."""
    from routing.closest import closest as search

    errors = FieldErrors()
    start = dict(start)  # filled here for the search only; `directions` places it again
    placed = await place_waypoints(context, unit_map, [("from", start)], errors)
    if not unit_map.get("graph_file"):
        found = await _candidates(context, unit_map, wanted, errors)
        errors.raise_if_any()
        (origin,) = placed
        by_line = _by_line(context, unit_map, origin, found)
        return Choice(by_line, reachable=False, start_joins=False)
    loaded = await map_graph(context, unit_map)
    targets = await _targets(context, unit_map, loaded, wanted, errors)
    errors.raise_if_any()
    if wanted.form != "ids":  # priced as NEAREST_UNLISTED_CANDIDATES: the rest after it ran
        beyond = len(targets.names) - NEAREST_UNLISTED_CANDIDATES
        context.worked(NEAREST_CANDIDATE_COST * max(0, beyond))
    (origin,) = placed
    check_on_drawing(loaded, [("from", start)], placed)
    profile, closed = await profile_closed(context, unit_map, loaded, profile)
    walked = Walked(loaded, profile, closed)
    shut = await closed_places(context, unit_map, closed)
    if all(name in shut for name in targets.names):  # every candidate closed (issue 66)
        found = dict(zip(targets.names, targets.points, strict=True))
        closures = tuple(dict.fromkeys(each for name in targets.names for each in shut[name]))
        by_line = _by_line(context, unit_map, origin, found)
        return Choice(by_line, reachable=False, start_joins=True, walked=walked, closed=closures)
    targets = _kept(targets, lambda name: name not in shut)
    if wanted.form != "ids":  # a visitor's nearest toilet is a public one, if one is reached
        private = await _private(context, unit_map)
        public = _kept(targets, lambda name: name not in private)
        if public.names and len(public.names) < len(targets.names):
            context.worked(PATH_SEARCH_COST)  # a second search of the same candidates
            first = await on_graph(loaded, search, loaded, profile, origin, public, stoppable=True)
            reached = _reached(first, public.names)
            if reached:
                return Choice(reached, reachable=True, start_joins=True, walked=walked)
    # One search gives every candidate's time; only those that may tie are measured
    # along their paths (`closest`), as E18 would measure them.
    closest = await on_graph(loaded, search, loaded, profile, origin, targets, stoppable=True)
    reached = _reached(closest, targets.names)
    if reached:
        return Choice(reached, reachable=True, start_joins=True, walked=walked)
    freed = None
    if closest is not None and (profile.excluded or profile.closed):
        free = profile.without(profile.excluded, closed=True)
        context.worked(PATH_SEARCH_COST)  # only a failure pays it: charged after it ran
        unblocked = await on_graph(loaded, search, loaded, free, origin, targets, stoppable=True)
        freed_id = _reached(unblocked, targets.names)
        freed = None if freed_id is None else targets.points[targets.names.index(freed_id)]
    found = dict(zip(targets.names, targets.points, strict=True))
    by_line = _by_line(context, unit_map, origin, found)
    start_joins = closest is not None
    return Choice(by_line, reachable=False, start_joins=start_joins, freed=freed, walked=walked)


async def _targets(
    context: RequestContext,
    unit_map: dict[str, Any],
    loaded: LoadedGraph,
    wanted: Wanted,
    errors: FieldErrors,
) -> Targets:
    """The candidates (`_candidates`), kept with the map's walk graph while the map's
    locations stay as they are (`locations_version`: their ids, points and tags), for
    `ids` and `tags`; a search's (`q`) follow its index, and are looked up each time."""
    from routing.closest import Targets, keep_targets, kept_targets

    version = unit_map.get("locations_version")
    key = None
    if version is not None and wanted.form != "q":
        # A digest, not the client's text: a filter may be long (the key's bytes count)
        key = (version, kept_key("nearest", wanted.form, wanted.text, wanted.ids))
        kept = kept_targets(loaded, key)
        if kept is not None:
            return kept
    own = FieldErrors()
    found = await _candidates(context, unit_map, wanted, own)
    targets = Targets(tuple(found), tuple(found.values()))
    if key is not None and not own:
        keep_targets(loaded, key, targets)
    for name, messages in own.fields.items():
        for message in messages:
            errors.add(name, message)
    return targets


def _reached(closest: Closest | None, ids: tuple[str, ...]) -> str | None:
    """The candidate of least time in `closest`'s answer (ties: distance, then
    id, as E18 rounds them), None when none is reached."""
    if closest is None or not closest.first:
        return None
    if not closest.cells:  # a sole one
        (index,) = closest.first
        return ids[index]
    reached = [
        (rounded(cell[1]), rounded(cell[0]), ids[index])
        for index, cell in zip(closest.first, closest.cells, strict=True)
        if cell is not None
    ]
    return min(reached)[2] if reached else None


def _kept(targets: Targets, keep: Callable[[str], bool]) -> Targets:
    """The candidates `keep` keeps (the same object when it keeps them all: a kept set
    is found by identity, `routing.closest`)."""
    from routing.closest import Targets

    kept = [pair for pair in zip(targets.names, targets.points, strict=True) if keep(pair[0])]
    if len(kept) == len(targets.names):
        return targets
    return Targets(tuple(name for name, _ in kept), tuple(point for _, point in kept))


NON_PUBLIC_TAG = {"key": c.IMDF_CATEGORY_TAG, "value": {"$regex": f"^{NON_PUBLIC}"}}


async def _private(context: RequestContext, unit_map: dict[str, Any]) -> frozenset[str]:
    """The map's non-public places (`parsing.imdf.categories.is_public`): a visitor's
    nearest toilet is a public one when any is reached (issue 66)."""
    query = {"unit_map_id": unit_map["id"], "tags": {"$elemMatch": NON_PUBLIC_TAG}}
    found = await cached_reads.find_list(
        context.store, c.LOCATIONS, query, BY_ID, projection={"_id": 1}
    )
    return frozenset(str(doc["_id"]) for doc in found)


def _by_line(
    context: RequestContext, unit_map: dict[str, Any], origin: Point, found: dict[str, Point]
) -> str:
    """The candidate nearest in a straight line (ties: id), as E18's `euclidean` measures."""
    from routing.matrix import euclidean_matrix

    feet_per_unit = unit_map.get("feet_per_unit") or 1.0
    floor_height = floor_height_of(context, unit_map)
    (cells,) = euclidean_matrix([origin], list(found.values()), feet_per_unit, floor_height, 1.0)
    return min((rounded(cell[0]), id_) for id_, cell in zip(found, cells, strict=True) if cell)[1]


async def _candidates(
    context: RequestContext, unit_map: dict[str, Any], wanted: Wanted, errors: FieldErrors
) -> dict[str, Point]:
    """The candidates' points by location id, in id order. `ids` not on the map are
    reported on their place; a search or filter that finds none, or no ids, on `to.nearest`."""
    if wanted.form == "ids":
        ids: list[str] | tuple[str, ...] = wanted.ids
    elif wanted.form == "tags":
        ids = await _tagged(context, unit_map, wanted.terms)
    else:
        ids = await _searched(context, unit_map, wanted.text)
    locations = await map_waypoints(context, unit_map, set(ids))
    found = location_points(unit_map, dict(sorted(locations.items())))
    own = FieldErrors()
    for index, id_ in enumerate(wanted.ids):
        if id_ not in locations:
            own.add(f"{PLACE}.ids.{index}", f"no location {id_!r} on this map")
        elif id_ not in found:
            floor = (locations[id_].get("floors") or [{}])[0].get("id")
            own.add(
                f"{PLACE}.ids.{index}",
                f"location {id_!r} is on floor {floor!r}, which is not a level of this map",
            )
    if not found and not own:
        own.add(PLACE, _none_found(wanted))
    for name, messages in own.fields.items():
        for message in messages:
            errors.add(name, message)
    return found


def _none_found(wanted: Wanted) -> str:
    """Why there is no candidate: an empty `ids`, or a text that finds nothing here."""
    if wanted.form == "ids":
        return "has no candidate: ids is empty"
    text = wanted.text
    quoted = text if len(text) <= MAX_QUOTED_CHARS else text[: MAX_QUOTED_CHARS - 3] + "..."
    return f"has no candidate: no location of this map matches {wanted.form} {quoted!r}"


TAG_FIELDS = {"tags.key": 1, "tags.value": 1}  # what the filter reads (no timestamps)


async def _tagged(
    context: RequestContext, unit_map: dict[str, Any], terms: tuple[Term, ...]
) -> list[str]:
    """The ids of the map's locations that pass E17's tag filter (its own rule:
    `tag_filter.matches`): one read of the map's locations' tags."""
    query = {"unit_map_id": unit_map["id"]}
    found = await cached_reads.find_list(
        context.store, c.LOCATIONS, query, BY_ID, projection=TAG_FIELDS
    )
    wanted = list(terms)
    return [doc["_id"] for doc in found if matches(wanted, doc.get("tags", ()))]


async def _searched(context: RequestContext, unit_map: dict[str, Any], q: str) -> list[str]:
    """The location ids on the map of every place the search index finds for `q`."""
    from resolvers.search.lookup import map_location_ids

    return await map_location_ids(context, unit_map, q)
