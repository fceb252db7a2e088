"""Every tile z14-18 over an asset's `tiles.json` bounds, asked through the app (issue 65:
a tile never fails on geometry): the statuses counted, and what answered otherwise."""

from __future__ import annotations

import math
from collections import Counter

import httpx

ZOOMS = range(14, 19)


def tile_of(lon: float, lat: float, z: int) -> tuple[int, int]:
    n = 1 << z
    x = int((lon + 180) / 360 * n)
    y = int((1 - math.asinh(math.tan(math.radians(lat))) / math.pi) / 2 * n)
    return x, y


def tiles_over(bounds: list[float]) -> list[tuple[int, int, int]]:
    """(z, x, y) of every tile z14-18 that the bounds (west, south, east, north) meet."""
    west, south, east, north = bounds
    found = []
    for z in ZOOMS:
        (x0, y0), (x1, y1) = tile_of(west, north, z), tile_of(east, south, z)
        found += [(z, x, y) for x in range(x0, x1 + 1) for y in range(y0, y1 + 1)]
    return found


async def sweep(
    client: httpx.AsyncClient, headers: dict[str, str], asset: str
) -> tuple[Counter[int], list[tuple[int, int, int, int, str]]]:
    """The statuses of every tile over the asset's bounds, and each one not 200 or 204."""
    tile_json = await client.get(f"/v1/assets/{asset}/tiles.json", headers=headers)
    assert tile_json.status_code == 200, tile_json.text
    statuses: Counter[int] = Counter()
    failed = []
    for z, x, y in tiles_over(tile_json.json()["bounds"]):
        answer = await client.get(f"/v1/assets/{asset}/tiles/{z}/{x}/{y}.mvt", headers=headers)
        statuses[answer.status_code] += 1
        if answer.status_code not in (200, 204):
            failed.append((z, x, y, answer.status_code, answer.text[:200]))
    return statuses, failed
