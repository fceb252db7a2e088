"""What several areas' rows share: the paging and asset parameters, and the demo
property's asset and floor map their example requests name (`make run`'s data)."""

from __future__ import annotations

from rest.v1.routes.rows import Param

PAGE = (Param("page", "page", "Int"), Param("per-page", "perPage", "Int"))
ASSET = Param("asset", "assetId", "ID")

# Example requests on the demo property: each row's `example`.
HARBOR = {"asset": "harbor-view"}
FLOOR_MAP = {"map": "map-b1-f1"}
