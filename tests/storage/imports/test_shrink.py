"""Issue 45, point 6: an import never leaves a stored map with no units, or fewer than
half of them, unless asked (storage/imports/shrink.py), in one transaction as staged,
and nothing is written when it refuses (not even the drawings' files)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from storage import collections as col
from storage.embedded.server import EmbeddedServer
from storage.imports.importer import import_dataset
from storage.imports.shrink import MapsShrink, kept_enough
from tests.storage.imports.staged import NONE_LEFT, contents, leftovers, staging_store

ASSET = "shrink-court"
UNITS = [f"sc-{n}" for n in range(1, 7)]


def svg(units: list[str]) -> str:
    """One floor drawn with `units` side by side in its units layer, and a corridor of
    walk paths reaching each of them."""
    rects = "".join(
        f'<rect data-unit-id="{unit}" x="{10 + 50 * n}" y="10" width="50" height="80"/>'
        for n, unit in enumerate(units)
    )
    spurs = "".join(
        f'<line x1="{35 + 50 * n}" y1="120" x2="{35 + 50 * n}" y2="90"/>' for n in range(len(units))
    )
    return (
        '<svg xmlns="http://www.w3.org/2000/svg" width="400" height="160" '
        'viewBox="0 0 400 160" data-feet-per-unit="0.25">'
        '<g id="level-sc-f1" data-level="Floor 1" data-tag-floor="sc-f1" data-level-index="1">'
        '<g id="walls"><rect x="10" y="10" width="380" height="140" fill="none"/></g>'
        f'<g data-layer="units">{rects}</g>'
        f'<g data-layer="paths"><line x1="10" y1="120" x2="390" y2="120"/>{spurs}</g>'
        "</g></svg>"
    )


def dataset(folder: Path, drawn: list[str], listed: list[str]) -> Path:
    """An asset of six units, a map drawing `drawn` and a map without a drawing that
    lists `listed`."""
    folder.mkdir(parents=True)
    (folder / "f1.svg").write_text(svg(drawn), encoding="utf-8")
    data: dict[str, Any] = {
        "assets": [{"id": ASSET, "market": "multifamily", "name": "Shrink Court"}],
        "floors": [{"id": "sc-f1", "asset_id": ASSET, "name": "Floor 1", "sort": 1}],
        "units": [
            {"id": unit, "asset_id": ASSET, "floor_id": "sc-f1", "name": unit} for unit in UNITS
        ],
        "unit_maps": [
            {"id": "sc-drawn", "asset_id": ASSET, "name": "Drawn", "svg": "f1.svg"},
            {"id": "sc-listed", "asset_id": ASSET, "name": "Listed", "unit_ids": listed},
        ],
    }
    path = folder / "dataset.json"
    path.write_bytes(orjson.dumps(data))
    return path


@pytest.mark.parametrize(
    ("before", "after", "kept"),
    [
        (0, 0, True),  # a map without units may stay so
        (1, 0, False),  # had units, would have none
        (1, 1, True),
        (2, 1, True),  # half kept
        (4, 2, True),
        (5, 2, False),  # 3 of 5 lost: more than half
        (19, 9, False),
        (19, 10, True),
        (19, 0, False),
        (3, 30, True),  # growing
    ],
)
def test_the_rule(before: int, after: int, kept: bool) -> None:
    assert kept_enough(before, after) is kept


@pytest.mark.security
@pytest.mark.parametrize("staged", [False, True], ids=["one transaction", "staged"])
async def test_a_shrinking_import_is_refused_unless_allowed(
    db_server: EmbeddedServer, tmp_path: Path, staged: bool
) -> None:
    limit = {"max_documents": 2} if staged else {}  # staged: the asset outweighs 2
    first = dataset(tmp_path / "first", UNITS[:4], UNITS)
    shrunk = dataset(tmp_path / "shrunk", UNITS[:1], [])
    half = dataset(tmp_path / "half", UNITS[:2], UNITS[:3])
    async with staging_store(db_server) as store:
        await import_dataset(store, first, **limit, allow_shrink=False)  # new maps: no rule
        before = await contents(store)
        with pytest.raises(MapsShrink) as refused:
            await import_dataset(store, shrunk, **limit, allow_shrink=False)
        assert str(refused.value) == (
            "it would leave 2 stored map(s) with fewer than 50% of their units: "
            "'sc-drawn' from 4 units to 1, 'sc-listed' from 6 units to 0. "
            "Give --allow-shrink to import it anyway"
        )
        assert [(s.map_id, s.before, s.after) for s in refused.value.shrinks] == [
            ("sc-drawn", 4, 1),
            ("sc-listed", 6, 0),
        ]
        assert await contents(store) == before  # no document, no file
        assert await leftovers(store) == NONE_LEFT  # nothing staged
        await import_dataset(store, half, **limit, allow_shrink=False)  # half kept: allowed
        await import_dataset(store, shrunk, **limit, allow_shrink=True)
        assert {doc["_id"]: doc["unit_ids"] async for doc in store[col.UNIT_MAPS].find({})} == {
            "sc-drawn": UNITS[:1],
            "sc-listed": [],
        }
