"""The places a text finds on one map, for a route to the nearest of them
(`to: {nearest: {q}}`, resolvers/wayfinding/nearest.py)."""

from __future__ import annotations

from typing import Any

from resolvers.context import RequestContext
from resolvers.search.index import Tier
from resolvers.search.indexes import asset_index


async def map_location_ids(context: RequestContext, unit_map: dict[str, Any], q: str) -> list[str]:
    """The location on `unit_map` of every place `q` finds by name (whole or by word
    prefixes) or by a category it names ("restroom": those named "Restroom 2" and the
    toilets named otherwise alike); of the best it finds by typos (of the whole name
    before words') or tags when neither finds any. In id order; empty when none."""
    asset_id = unit_map.get("asset_id")
    if asset_id is None:
        return []
    index = await asset_index(context.store, context.services.search_indexes, asset_id)
    matches = index.find(q)
    if not matches:
        return []
    wanted = {Tier.EXACT, Tier.PREFIX, Tier.KIND, Tier.CATEGORY}
    if not any(match.tier in wanted for match in matches):
        wanted = {min(match.tier for match in matches)}
    found = set()
    for match in matches:
        if match.tier in wanted:
            spot = index.places[match.place].location_on(unit_map["id"])
            if spot is not None:
                found.add(spot[1])
    return sorted(found)
