"""The named places of a map that maneuvers may name as landmarks ("Turn left at Fitness
Center"): its locations, by level, in a grid (`routing.maneuvers.Places`).

Locations are what the API already serves for a map (given by the dataset, or derived
from the drawing's units when the map is processed for pathfinding), so a landmark's
name is the one a client shows for that place. The grid is kept per process, keyed by
the map's `locations_version` and graph file, like the waypoints (`graph_cache`), and
built where the route is computed (`on_graph`: off the event loop for a large graph,
whose map can hold thousands of locations).

A landmark is a place a visitor can see and read (issue 48): never a non-public area
(`imdf:category` `nonpublic...`), and a generated name ("Restroom 2", "Unit 12") only
where no other place is within reach (`Place.generated`; docs/routing.md, "At
connectors, and landmarks").
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from parsing.imdf.categories import is_public
from parsing.imdf.label_rank import is_generated
from resolvers.context import RequestContext
from resolvers.wayfinding.graph_cache import on_graph
from storage import collections as c
from storage.cache import cached_reads
from storage.cache.names import names_key
from storage.database import Store

if TYPE_CHECKING:  # routing is imported by the functions that need it
    from routing.maneuvers import Places
    from routing.matrix import LoadedGraph

PLACE_FIELDS = {"name": 1, "x": 1, "y": 1, "floors": 1, "tags": 1}


async def map_places(
    context: RequestContext, unit_map: dict[str, Any], loaded: LoadedGraph
) -> Places:
    """The named places of the map of `loaded` by level: cached by its
    `locations_version` when it has one, else read anew."""
    map_id = unit_map["id"]
    levels = [level.get("floor_id") for level in unit_map.get("levels") or []]
    version = unit_map.get("locations_version")
    feet_per_unit = loaded.graph.feet_per_unit

    async def load() -> Places:
        locations = await _locations(context.store, map_id)
        return await on_graph(loaded, places_of, locations, levels, feet_per_unit)

    if version is None:
        return await load()
    key = (version, unit_map.get("graph_file"), tuple(levels), feet_per_unit)
    # one entry per map and language (issue 51), as `map_waypoints` keeps its waypoints
    return await context.services.place_cache.get(f"{map_id}\0{names_key()}", key, load)


async def _locations(store: Store, map_id: str) -> list[dict[str, Any]]:
    query = {"unit_map_id": map_id}
    return await cached_reads.find_list(
        store, c.LOCATIONS, query, [("_id", 1)], projection=PLACE_FIELDS
    )


def places_of(
    locations: list[dict[str, Any]], levels: list[str | None], feet_per_unit: float
) -> Places:
    """Each named public location on each level its floors name (every location on the
    only level of a map whose one level has no floor tag, as waypoints are placed), with
    whether its name is generated."""
    from routing.maneuvers import LANDMARK_FT, Place, Places

    position = {floor: index for index, floor in enumerate(levels) if floor is not None}
    single_untagged = levels == [None]
    places = []
    for location in locations:
        name = location.get("name")
        if not name:
            continue
        tags = {
            tag.get("key"): tag.get("value")
            for tag in location.get("tags") or []
            if isinstance(tag, dict)
        }
        if not is_public(tags.get(c.IMDF_CATEGORY_TAG)):
            continue  # a visitor cannot see it from the route, nor go in
        if tags.get(c.PLACE_TYPE_TAG) == c.CONNECTOR_PLACE:
            continue  # a drawn connector's place: its own steps name it
        unit_id, made_up = tags.get(c.UNIT_ID_TAG), is_generated(name, tags)
        floors = [floor.get("id") for floor in location.get("floors") or []]
        on = [0] if single_untagged else sorted({position[f] for f in floors if f in position})
        for level in on:
            places.append(
                Place(
                    str(location["_id"]),
                    unit_id,
                    name,
                    level,
                    float(location["x"]),
                    float(location["y"]),
                    made_up,
                )
            )
    return Places(places, LANDMARK_FT / feet_per_unit)
