"""`parse_unit_map` on a generated ~5 MB unit map, beside lxml's bare parse of the same bytes.

The issue's figures: a median under 1 s, and no more than 10x `etree.fromstring`
measured in the same run. The map is built the way drawing tools export large
properties: several levels, each with wings drawn as nested transformed groups; units
as `<path>`s with arcs and curves placed by `transform`; hit areas; doors (arcs) and
walls of the base plan; labels placed by `matrix()` transforms; walk paths with curves;
stairs and elevator connectors with icon symbols drawn by `<use>`.

The same bytes are also sent through E10 (`POST /v1/maps/parse`) in-process: the
ASGI app with httpx, an API key checked against the embedded database, body decoding,
GraphQL execution and the JSON response.

Run with `python -m tests.benchmarks svg_parse`.
"""

from __future__ import annotations

import asyncio
import gc
import os
import platform
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import httpx
from lxml import etree

from parsing.svg import parse_unit_map
from resolvers.auth.keys import create_key
from resolvers.auth.permissions import UNIT_MAPS_PARSE
from rest.app import create_app
from storage.database import connect
from storage.embedded.server import EmbeddedServer
from storage.settings import Settings

ROUNDS = 7
TARGET_BYTES = 5 * 1024 * 1024
UNITS_PER_WING = 80  # 40 each side of the corridor
WINGS = 8  # 4 x 2: 640 units a level, so about ten levels in 5 MB
# Unit types of the building (width, depth): real floor plans repeat a handful of them.
UNIT_TYPES = ((160, 140), (200, 140), (240, 150), (120, 130), (180, 160), (220, 170))


def _n(value: float) -> str:
    """Numbers as drawing tools write them: up to 2 decimals."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def _unit_path(
    width: float, depth: float, rng: random.Random, origin: tuple[float, float] | None
) -> str:
    """A unit outline: half are plain polygons with a balcony recess, a quarter have a
    bay window (an arc), the rest a rounded corner (a cubic) or a chamfer (a quadratic).

    Without `origin`: relative commands from (0, 0), as Inkscape writes a path that a
    `transform` places. With it: absolute coordinates from there, every position baked
    into the path data, as Illustrator exports (no two such paths alike).
    """
    ox, oy = origin if origin is not None else (0.0, 0.0)
    w, h = width, depth
    style = rng.random()
    if style < 0.5:
        recess, inset = rng.choice((60, 80)), rng.choice((12, 16))
        side = (w - recess) / 2
        corners = [(w, 0), (w, h), (w - side, h), (w - side, h - inset)]
        corners += [(side, h - inset), (side, h), (0, h)]
        segments = [("L", point) for point in corners]
    elif style < 0.75:
        bay = rng.choice((40, 50, 60))
        side = (w - bay) / 2
        segments = [("L", (w, 0)), ("L", (w, h)), ("L", (w - side, h))]
        segments += [("A", (bay / 2, bay / 3, side, h)), ("L", (0, h))]
    elif style < 0.9:
        segments = [("L", (w - 20, 0)), ("C", (w - 9, 0, w, 9, w, 20)), ("L", (w, h))]
        segments += [("L", (0, h))]
    else:
        segments = [("L", (w, 0)), ("L", (w, h - 30)), ("Q", (w, h, w - 30, h))]
        segments += [("L", (0, h))]
    if origin is None:
        return _relative(segments)
    return _absolute(segments, ox, oy)


def _relative(segments: list[tuple[str, tuple[float, ...]]]) -> str:
    out, x, y = ["M0,0"], 0.0, 0.0
    for kind, values in segments:
        if kind == "L":
            nx, ny = values
            out.append(
                f"h{_n(nx - x)}"
                if ny == y
                else f"v{_n(ny - y)}"
                if nx == x
                else f"l{_n(nx - x)},{_n(ny - y)}"
            )
        elif kind == "A":
            rx, ry, nx, ny = values
            out.append(f"a{_n(rx)},{_n(ry)} 0 0 1 {_n(nx - x)},{_n(ny - y)}")
        elif kind == "C":
            x1, y1, x2, y2, nx, ny = values
            out.append(
                f"c{_n(x1 - x)},{_n(y1 - y)} {_n(x2 - x)},{_n(y2 - y)} {_n(nx - x)},{_n(ny - y)}"
            )
        else:  # Q
            x1, y1, nx, ny = values
            out.append(f"q{_n(x1 - x)},{_n(y1 - y)} {_n(nx - x)},{_n(ny - y)}")
        x, y = values[-2], values[-1]
    return " ".join(out) + " z"


def _absolute(segments: list[tuple[str, tuple[float, ...]]], ox: float, oy: float) -> str:
    def p(x: float, y: float) -> str:
        return f"{x + ox:.3f},{y + oy:.3f}"

    out = [f"M{p(0, 0)}"]
    for kind, values in segments:
        if kind == "L":
            out.append(f"L{p(*values)}")
        elif kind == "A":
            rx, ry, nx, ny = values
            out.append(f"A{_n(rx)},{_n(ry)} 0 0 1 {p(nx, ny)}")
        elif kind == "C":
            out.append(f"C{p(*values[0:2])} {p(*values[2:4])} {p(*values[4:6])}")
        else:
            out.append(f"Q{p(*values[0:2])} {p(*values[2:4])}")
    return "".join(out) + "Z"


def _wing(
    parts: dict[str, list[str]], level: int, wing: int, rng: random.Random, distinct: bool
) -> None:
    """One wing: a double-loaded corridor, units both sides, in the wing's own frame."""
    frame = (
        f'transform="translate({_n(300 + 7000 * (wing % 4))} {_n(300 + 1300 * (wing // 4))}) '
        f'rotate({rng.choice((0, 90, 180, 270, 15, -15))})"'
    )
    for name in ("units", "hit", "doors", "labels", "walls", "paths"):
        parts[name].append(f'<g id="L{level}-w{wing}-{name}" {frame}>')
    x_north = x_south = 0.0
    corridor_y = 150.0
    for index in range(UNITS_PER_WING):
        north = index % 2 == 0
        width, depth = rng.choice(UNIT_TYPES)
        x = x_north if north else x_south
        y = corridor_y - 16 - depth if north else corridor_y + 16
        unit_id = f"b1-f{level}-w{wing}-{index + 1:02d}"
        # Placed by a transform, as drawing tools do for moved or duplicated objects.
        if distinct:  # positions in the data, a thousandth per unit so that none repeat
            serial = (level * WINGS + wing) * UNITS_PER_WING + index
            placement, origin = "", (x + serial / 1000, y)
        else:
            placement, origin = f' transform="translate({_n(x)} {_n(y)})"', None
        d = _unit_path(width, depth, rng, origin)
        parts["units"].append(
            f'<path id="{unit_id}" data-unit-id="{unit_id}" class="unit" fill="#ffffff" '
            f'stroke="#374151" stroke-width="1"{placement} d="{d}"/>'
        )
        corners = f"{_n(x)},{_n(y)} {_n(x + width)},{_n(y)} {_n(x + width)},{_n(y + depth)}"
        parts["hit"].append(
            f'<polygon data-target-id="{unit_id}" data-target-type="Unit" fill="#000000" '
            f'opacity="0" points="{corners} {_n(x)},{_n(y + depth)}"/>'
        )
        door_x = x + width / 2
        door_y = y + depth if north else y
        swing = f"a28,28 0 0 {1 if north else 0} 28,{-28 if north else 28}"
        parts["doors"].append(
            f'<path fill="none" stroke="#6b7280" d="M{_n(door_x - 14)},{_n(door_y)} h28 '
            f'M{_n(door_x - 14)},{_n(door_y)} {swing}"/>'
        )
        parts["labels"].append(
            f'<text transform="matrix(1 0 0 1 {_n(x + width / 2)} {_n(y + depth / 2 + 8)})" '
            f'class="label" font-size="22" fill="#111827" text-anchor="middle">'
            f'<tspan x="0" y="0">{level}{index + 1:02d}</tspan></text>'
        )
        parts["paths"].append(
            f'<line x1="{_n(door_x)}" y1="{_n(corridor_y)}" x2="{_n(door_x)}" '
            f'y2="{_n(door_y)}" stroke="#f97316" stroke-width="2"/>'
        )
        parts["walls"].append(
            f'<path fill="none" stroke="#111827" stroke-width="3" '
            f'd="M{_n(x + width)},{_n(y)} V{_n(y + depth)}"/>'
        )
        if north:
            x_north += width
        else:
            x_south += width
    end = max(x_north, x_south)
    parts["paths"].append(
        f'<path fill="none" stroke="#f97316" stroke-width="2" d="M0,{_n(corridor_y)} '
        f'H{_n(end - 60)} c30,0 60,-20 60,-60 a40,40 0 0 0 -40,-40"/>'
    )
    parts["walls"].append(
        f'<path fill="none" stroke="#111827" stroke-width="6" d="M0,0 H{_n(end)} '
        f'V{_n(2 * corridor_y)} H0 Z"/>'
    )
    for name in ("units", "hit", "doors", "labels", "walls", "paths"):
        parts[name].append("</g>")


def _level(level: int, rng: random.Random, distinct: bool) -> str:
    parts: dict[str, list[str]] = {
        name: [] for name in ("units", "hit", "doors", "labels", "walls", "paths")
    }
    for wing in range(WINGS):
        _wing(parts, level, wing, rng, distinct)
    connectors = "".join(
        f'<rect x="{_n(1000 + 80 * k)}" y="900" width="70" height="70" fill="#c7d2fe" '
        f'data-connector="{kind}" data-connector-id="core-{kind}-{k}"/>'
        f'<use xlink:href="#icon-{kind}" x="{_n(1035 + 80 * k)}" y="935"/>'
        for k, kind in enumerate(("elevator", "elevator", "stairs", "stairs"))
    )
    return (
        f'<g id="level-{level}" data-level="Level {level}" data-tag-building="b1" '
        f'data-tag-floor="b1-f{level}" data-level-index="{level}" '
        f'inkscape:groupmode="layer" inkscape:label="Level {level}">\n'
        f'<g id="L{level}-walls" data-layer="walls">{"".join(parts["walls"])}</g>\n'
        f'<g id="L{level}-units" data-layer="units">{"".join(parts["units"])}</g>\n'
        f'<g id="L{level}-hit-areas" data-layer="hit-areas">{"".join(parts["hit"])}</g>\n'
        f'<g id="L{level}-doors">{"".join(parts["doors"])}</g>\n'
        f'<g id="L{level}-paths" data-layer="paths">{"".join(parts["paths"])}</g>\n'
        f'<g id="L{level}-core">{connectors}</g>\n'
        f'<g id="L{level}-labels" font-family="sans-serif">{"".join(parts["labels"])}</g>\n'
        "</g>\n"
    )


def generate_map(
    target_bytes: int = TARGET_BYTES, seed: int = 1, *, distinct_paths: bool = False
) -> bytes:
    """A deterministic unit map of about `target_bytes` (whole levels, so a little more).

    With `distinct_paths`, unit paths carry their positions in absolute path data, no
    two alike, which defeats the parser's per-document caches of parsed and flattened
    path data (the worst case for the parser).
    """
    rng = random.Random(seed)
    head = (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" '
        'xmlns:inkscape="http://www.inkscape.org/namespaces/inkscape" '
        'width="28000px" height="3000px" viewBox="0 0 28000 3000" data-feet-per-unit="0.25">\n'
        "<title>Generated benchmark property</title>\n"
        "<defs><style>.unit{fill:#fff}.label{font-size:22px}</style>"
        '<symbol id="icon-elevator" viewBox="0 0 20 20" width="20" height="20">'
        '<rect x="1" y="1" width="18" height="18" rx="3" fill="#4338ca"/>'
        '<path d="M6,8 l4,-4 4,4 z M6,12 l4,4 4,-4 z" fill="#ffffff"/></symbol>'
        '<symbol id="icon-stairs" viewBox="0 0 20 20" width="20" height="20">'
        '<path d="M2,18 h5 v-5 h5 v-5 h5 v-5 h1" fill="none" stroke="#b45309"/></symbol>'
        "</defs>\n"
    )
    chunks = [head]
    size = len(head)
    level = 0
    while size < target_bytes:
        level += 1
        chunk = _level(level, rng, distinct_paths)
        chunks.append(chunk)
        size += len(chunk)
    chunks.append("</svg>\n")
    return "".join(chunks).encode("utf-8")


# ---------------------------------------------------------------- measuring


def time_once(function: Callable[[], object]) -> float:
    """Wall time of one call in seconds. A full collection first, so that garbage of an
    earlier step is not collected on this one's time (its own collections count)."""
    gc.collect()
    start = time.perf_counter()
    function()
    return time.perf_counter() - start


def standard_steps(data: bytes) -> dict[str, Callable[[], object]]:
    """The steps `main` times: lxml's bare parse (the baseline) and `parse_unit_map`.
    More can be added to the dict (an HTTP round trip of the same bytes, say)."""
    return {
        "lxml": lambda: etree.fromstring(data),
        "parse_unit_map": lambda: parse_unit_map(data),
    }


def measure(steps: dict[str, Callable[[], object]], rounds: int = ROUNDS) -> dict[str, list[float]]:
    """Interleaved timings (seconds) of each step: one warm-up call each, then `rounds`
    rounds in which the order rotates, so that drift falls on all steps alike."""
    names = list(steps)
    times: dict[str, list[float]] = {name: [] for name in names}
    for name in names:  # warm-up: imports, caches, first-touch allocations
        steps[name]()
    for round_number in range(rounds):
        shift = round_number % len(names)
        for name in names[shift:] + names[:shift]:
            times[name].append(time_once(steps[name]))
    return times


def machine() -> str:
    """OS, CPU, Python and the versions that matter, for the record."""
    cpu = platform.processor() or "cpu ?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    packages = []
    for package in ("lxml", "svgelements", "orjson"):
        try:
            packages.append(f"{package} {version(package)}")
        except PackageNotFoundError:
            packages.append(f"{package} ?")
    return (
        f"{platform.system()} {platform.release()} {platform.machine()}, {cpu}, "
        f"{os.cpu_count()} cores, CPython {platform.python_version()}, libxml2 "
        f"{'.'.join(map(str, etree.LIBXML_VERSION))}, {', '.join(packages)}"
    )


def report(
    label: str,
    data: bytes,
    steps: dict[str, Callable[[], object]] | None = None,
    rounds: int = ROUNDS,
) -> dict[str, list[float]]:
    """Print what the map holds, then median/min of every step and its ratio to lxml."""
    parsed = parse_unit_map(data)
    times = measure(steps if steps is not None else standard_steps(data), rounds)
    baseline = statistics.median(times["lxml"])
    print(
        f"{label}: {len(data) / 1024 / 1024:.2f} MiB, {len(parsed.levels)} levels, "
        f"{len(parsed.units)} units, {len(parsed.walk_lines)} walk lines, "
        f"{len(parsed.connectors)} connectors; {rounds} rounds"
    )
    for name, values in times.items():
        median = statistics.median(values)
        print(
            f"  {name:<16} median {median * 1000:8.1f} ms   min {min(values) * 1000:8.1f} ms"
            f"   {median / baseline:5.1f}x lxml"
        )
    return times


class RouteClient:
    """E10 through the real ASGI app in-process (httpx ASGITransport, no socket), on an
    embedded database server that holds the API key."""

    def __init__(self, folder: Path) -> None:
        self.server = EmbeddedServer(folder / "db")
        self.server.start()
        self.loop = asyncio.new_event_loop()
        settings = Settings(
            data_dir=folder,
            public_url="https://bench.local",
            database_name="floorgate_bench_parse",
            rate_limit_per_second=0,
        )
        self.store = connect(self.server.uri, settings)
        self.loop.run_until_complete(self.store.ensure_indexes())
        key = self.loop.run_until_complete(create_key(self.store, "bench", [UNIT_MAPS_PARSE], None))
        app = create_app(settings, self.store)
        self.client = httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app),
            base_url="https://bench.local",
            headers={"API-Key": key.secret, "Content-Type": "application/vnd.map+xml"},
            timeout=60,
        )

    def step(self, data: bytes) -> Callable[[], object]:
        def post() -> object:
            response = self.loop.run_until_complete(
                self.client.post("/v1/maps/parse", content=data)
            )
            assert response.status_code == 200, response.text[:200]
            return response

        return post

    def close(self) -> None:
        self.loop.run_until_complete(self.client.aclose())
        self.loop.run_until_complete(self.store.close())
        self.loop.close()
        self.server.stop()


def main() -> None:
    print(machine())
    with tempfile.TemporaryDirectory() as folder:
        route = RouteClient(Path(folder))
        try:
            for label, data in (
                ("generated map", generate_map()),
                ("same map, unit paths absolute, none alike", generate_map(distinct_paths=True)),
            ):
                steps = {**standard_steps(data), "E10 route": route.step(data)}
                report(label, data, steps)
        finally:
            route.close()


if __name__ == "__main__":
    main()
