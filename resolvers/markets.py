"""Vendor paths (docs/api.md, "Vendor paths"): `/v1/assets/{asset}/{market}/...` names an
asset and its market before the resource, as clients of the vendor's API call it.

The market must be the asset's own and the asset one the key may see; a resource read
there must belong to that asset. Anything else is 404, word for word as an unknown id,
so a path never tells what exists outside the key's scope.
"""

from __future__ import annotations

from typing import Any

from resolvers.auth.keys import Caller
from resolvers.context import RequestContext
from resolvers.errors import not_found
from storage import collections as c
from storage.cache import cached_reads


async def check_market(
    context: RequestContext, caller: Caller, asset_id: str | None, market: str | None
) -> None:
    """404 unless `market` is absent or the market of an asset the caller may see."""
    if market is None:
        return
    if asset_id is None or not caller.may_see(asset_id):
        raise not_found()
    asset = await cached_reads.find_one(context.store, c.ASSETS, {"_id": asset_id}, {"market": 1})
    if asset is None or asset.get("market") != market:
        raise not_found()


def check_owner(resource: dict[str, Any], asset_id: str | None) -> dict[str, Any]:
    """The resource, when no asset is named or it belongs to the named one; else 404."""
    if asset_id is not None and resource.get("asset_id") != asset_id:
        raise not_found()
    return resource
