"""What the API serves for the demo asset, as one comparable value, and versions of the
demo dataset that change everything an import can change (tests/storage/test_import_atomic.py)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import httpx
from pymongo import MongoClient

from rest.app import create_app
from storage import collections as col
from storage.database import Store
from storage.demo.install import ASSET_ID, write_demo
from storage.imports.leases import lease_id
from storage.settings import Settings
from tests.servers import FLOORGATE

FLAGS = "references, unit-attributes-resource, distances, locations-resource"
ALL = {"per-page": "10000"}
TIMESTAMP = re.compile(rb'"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00)"')


def demo_version(folder: Path, version: int) -> Path:
    """The demo dataset (version 1), or a version of it where every asset field, floor
    label, unit name, reference value, exclusive assignment and location changes, and
    every drawing changes scale (new files, walk graphs, GeoJSON and distances)."""
    source = write_demo(folder / "v1")
    if version == 1:
        return source
    target = folder / f"v{version}"
    shutil.copytree(source.parent, target)
    for svg in (target / "maps").glob("*.svg"):
        scaled = f'data-feet-per-unit="0.{25 + version}"'
        text = svg.read_text(encoding="utf-8").replace('data-feet-per-unit="0.25"', scaled)
        svg.write_text(text, encoding="utf-8")
    data = json.loads(source.read_text(encoding="utf-8"))
    for asset in data["assets"]:
        asset["name"] += f" v{version}"
    for floor in data["floors"]:
        floor["label"] += f" v{version}"
    for unit in data["units"]:
        unit["name"] += f"-{version}"
    for section in ("asset_references", "unit_references"):
        for reference in data[section]:
            reference["value"] += f"{version}"
    exclusive = {g["id"]: g for g in data["attribute_groups"] if g["one_attribute_per_unit"]}
    for assignment in data["assignments"]:
        group = exclusive.get(assignment["group_id"])
        if group is not None:
            names = [a["attribute_id"] for a in group["attributes"]]
            at = names.index(assignment["attribute_id"])
            assignment["attribute_id"] = names[(at + version) % len(names)]
    for location in data["locations"]:
        location["x"] += version
    path = target / "dataset.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


async def snapshot(store: Store, settings: Settings, key: str) -> dict[str, Any]:
    """Every answer the REST API gives about the demo asset: lists, single resources,
    E17 with its ETag, the map documents and GeoJSON files, and a distance matrix per
    map with walk paths. A fresh app and an empty read cache each time: nothing cached
    between snapshots (an import's own process writes through another client, which
    this store's cache would otherwise see only when the change stream delivers it)."""
    store.cache.flush()
    app = create_app(settings, store)
    headers = {"API-Key": key, "Experimental-Flags": FLAGS}
    seen: dict[str, Any] = {}
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="https://testserver") as client:

        async def get(path: str, params: dict[str, str] | None = None) -> httpx.Response:
            answer = await client.get(path, params=params, headers=headers)
            seen[f"GET {path} {params or ''}"] = (answer.status_code, answer.content)
            return answer

        await get("/v1/assets")
        await get(f"/v1/assets/{ASSET_ID}")
        await get(f"/v1/assets/{ASSET_ID}/floors", ALL)
        await get("/v1/units", {"asset": ASSET_ID, **ALL})
        await get("/v1/assets/references", {"asset": ASSET_ID, **ALL})
        await get("/v1/units/references", {"asset": ASSET_ID, **ALL})
        groups = (await get("/v1/units/attribute-groups")).json()["data"]
        for group in groups:
            await get(
                f"/v1/units/attribute-groups/{group['group_id']}/units", {"asset": ASSET_ID, **ALL}
            )
        maps = (await get("/v1/maps", {"asset": ASSET_ID, **ALL})).json()["data"]
        for unit_map in maps:
            map_id = unit_map["id"]
            await get(f"/v1/maps/{map_id}")
            for leaf in ("backgrounds", "levels/tags", "units"):
                await get(f"/v1/maps/{map_id}/{leaf}", ALL)
            locations = await get(f"/v1/unitmaps/{map_id}/locations", ALL)
            seen[f"ETag {map_id}"] = locations.headers.get("etag")
            for name in ("url", "geojson_url"):
                if unit_map.get(name):
                    await get("/files/" + unit_map[name].split("/files/", 1)[1])
            placed = locations.json().get("data", [])[:3]
            if "pathfinding" in unit_map.get("tags", []) and len(placed) >= 2:
                ids = [{"id": location["id"]} for location in placed]
                payload = {"data": {"sources": ids[:1], "targets": ids[1:]}}
                answer = await client.post(
                    f"/v1/unitmaps/{map_id}/distance-matrix", json=payload, headers=headers
                )
                seen[f"E18 {map_id}"] = (answer.status_code, answer.content)
    return seen


def latest_timestamp(path: Path) -> bytes:
    """The latest timestamp a dataset file gives: later ones are an import's clock."""
    return max(TIMESTAMP.findall(path.read_bytes()))


def without_import_time(shot: dict[str, Any], latest: bytes) -> dict[str, Any]:
    """The snapshot with the import's clock taken out: timestamps later than any the
    dataset gives (those of derived locations), and the ETags that digest them, so two
    imports of one file at two times compare equal."""

    def clock(match: re.Match[bytes]) -> bytes:
        return b'"<import time>"' if match.group(1) > latest else match.group(0)

    out: dict[str, Any] = {}
    for name, value in shot.items():
        if name.startswith("ETag "):
            continue
        if isinstance(value, tuple):
            value = (value[0], TIMESTAMP.sub(clock, value[1]))
        out[name] = value
    return out


def cli_import(
    uri: str,
    database: str,
    path: Path,
    data_dir: Path,
    *extra: str,
    settings: dict[str, str] | None = None,
) -> subprocess.Popen[str]:
    """`floorgate import PATH` as its own process against `database`, with `settings`
    (FLOORGATE_ variables) beside the database's."""
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(data_dir),
        "FLOORGATE_MONGODB_URI": uri,
        "FLOORGATE_DATABASE": database,
        "FLOORGATE_DATA_DIR": str(data_dir),
        **(settings or {}),
    }
    return subprocess.Popen(
        [FLOORGATE, "import", str(path), *extra],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def wait_for_lease(
    uri: str, database: str, process: subprocess.Popen[str], timeout: float = 60.0
) -> float:
    """Until the import holds the asset's lease (its write phase began); the time then."""
    deadline = time.monotonic() + timeout
    with MongoClient(uri) as client:
        leases = client[database][col.LEASES]
        while time.monotonic() < deadline:
            if leases.find_one({"_id": lease_id(ASSET_ID), "pid": process.pid}) is not None:
                return time.monotonic()
            if process.poll() is not None:
                raise AssertionError(f"the import ended first: {process.communicate()}")
            time.sleep(0.005)
    raise AssertionError("the import never took its lease")


def lease_held(uri: str, database: str, pid: int) -> bool:
    with MongoClient(uri) as client:
        lease = client[database][col.LEASES].find_one({"_id": lease_id(ASSET_ID)})
    return lease is not None and lease.get("pid") == pid


def wait_for_commit(
    uri: str,
    database: str,
    suffix: str,
    timeout: float = 180.0,
    process: subprocess.Popen[str] | None = None,
) -> float:
    """Until the asset's name ends with `suffix` (an import committed); the time then.
    An import that ended without committing fails at once, with what it said. (The
    write phase took over 60 s once, on a 2-core machine busy with the whole suite.)"""
    deadline = time.monotonic() + timeout
    with MongoClient(uri) as client:
        assets = client[database][col.ASSETS]
        while time.monotonic() < deadline:
            asset = assets.find_one({"_id": ASSET_ID}) or {}
            if asset.get("name", "").endswith(suffix):
                return time.monotonic()
            if process is not None and process.poll() not in (None, 0):
                raise AssertionError(f"the import failed: {process.communicate()}")
            time.sleep(0.005)
    raise AssertionError(f"the import never committed in {timeout:g} s")
