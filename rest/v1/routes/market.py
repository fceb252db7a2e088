"""The vendor paths under `/v1/assets/{asset}/{market}/`: each a flat read spelled again
under the asset and its market (docs/api.md); `rest.v1.routes.rows.with_market_aliases`
makes their rows."""

from __future__ import annotations

from rest.v1.routes.params import HARBOR

# Flat operation id: (path under /v1/assets/{asset}/{market}/, the alias's operation id).
MARKET_ALIASES: dict[str, tuple[str, str]] = {
    "listFloors": ("floors", "listMarketFloors"),
    "getFloor": ("floors/{floor}", "getMarketFloor"),
    "listUnits": ("units", "listMarketUnits"),
    "getUnit": ("units/{unit}", "getMarketUnit"),
    "listUnitMaps": ("maps", "listMarketUnitMaps"),
    "getUnitMap": ("maps/{map}", "getMarketUnitMap"),
    "listBackgrounds": ("maps/{map}/backgrounds", "listMarketBackgrounds"),
    "getBackground": ("maps/{map}/backgrounds/{background}", "getMarketBackground"),
    "listLevelTags": ("maps/{map}/levels/tags", "listMarketLevelTags"),
    "listUnitMapUnits": ("maps/{map}/units", "listMarketUnitMapUnits"),
    "getUnitMapUnit": ("maps/{map}/units/{unit}", "getMarketUnitMapUnit"),
    "listUnitMapLocations": ("maps/{map}/locations", "listMarketLocations"),
    "listAssetReferences": ("references", "listMarketAssetReferences"),
    "listUnitReferences": ("units/references", "listMarketUnitReferences"),
    "listUnitReferenceGroups": ("units/reference-groups", "listMarketUnitReferenceGroups"),
    "listGroupUnitReferences": (
        "units/reference-groups/{group}/references",
        "listMarketGroupUnitReferences",
    ),
}
# A vendor path's example is its flat route's under the demo's asset and market.
EXAMPLE_MARKET = {**HARBOR, "market": "multifamily"}
