"""Unit-map SVG drawn from an IMDF venue, in floorgate's conventions (docs/unit-map-svg.md).

Each level is a `<g data-level=... data-tag-floor=... data-level-index=...
data-level-height=...>` (index and height on a drawing of several levels: the height is
the level's IMDF ordinal, so that two levels of one ordinal are one floor) holding,
bottom to top: the level's outline, the spaces that are only drawn (walkways, stairs,
structure), the UnitLayer (units that are API units), the walls (every space's
boundary), the openings (a light gap, then a thin door line), the `paths` layer of
generated walk lines (`data-access="no-wheelchair"` where a wheelchair may not go), the
connectors (a small circle at each stop: its centre is the stop) and labels.
Coordinates are canvas units (`Canvas`), written to 3 decimals. Colours:
`parsing.imdf.palette`, each space and unit filled by its category; the groups' paint is
the default under them.

Every polygon is written valid as written (issue 65, point 1): a shape valid in metres
can cross itself once rounded to the drawing's grid (a spike folding back within
0.05 mm, a hole meeting its wall), and the parser, the walk graph and the GeoJSON read
what is written. So the outline, spaces and units are checked on the grid at once,
repaired on it (`parsing.geo.valid_shapes.made_valid`) or left out (`valid_as_drawn`
reports which). A shape of several parts is one element per part: the parser reads one
outline per element (docs/svg-parsing.md, "Holes"), so a unit keeps its largest part
and its other parts are drawn as spaces of its category.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any
from xml.sax.saxutils import escape, quoteattr

import numpy as np
import shapely
from shapely.geometry import LineString, MultiPolygon, Polygon
from shapely.geometry.base import BaseGeometry

from parsing.geo.valid_shapes import SLIVER_M2, made_valid, parts_of, reason
from parsing.imdf import palette as p
from parsing.imdf.projection import Canvas
from parsing.imdf.read import Report
from parsing.svg_elements import MAX_LEVEL_HEIGHT

STOP_RADIUS = 10.0  # canvas units (0.5 m)
GRID = 1000  # grid steps per canvas unit: the 3 decimals `_num` writes
XY = tuple[float, float]


@dataclass
class DrawnLevel:
    """One level's content, in metres of the local plane."""

    id: str
    name: str
    index: int  # position in level order, lowest 0
    outline: BaseGeometry | None = None
    # (unit id, IMDF category, shape): units listed as API units, and drawn-only spaces
    units: list[tuple[str, str, BaseGeometry]] = field(default_factory=list)
    spaces: list[tuple[str, str, BaseGeometry]] = field(default_factory=list)
    openings: list[LineString] = field(default_factory=list)
    paths: list[tuple[Sequence[XY], bool]] = field(default_factory=list)  # (points, wheelchair)
    stops: list[tuple[str, str, XY]] = field(default_factory=list)  # (connector id, kind, point)
    labels: list[tuple[str, XY]] = field(default_factory=list)
    ordinal: float | None = None  # IMDF's, from which its height in floors is drawn
    grid: OnGrid | None = None  # its polygons as written (`on_grid`), once drawn


@dataclass
class OnGrid:
    """A level's polygons as the drawing writes them on `canvas`: canvas units rounded
    to 3 decimals, each valid as written, one polygon per element; and what was done to
    which on the way (import report kind, example)."""

    canvas: Canvas
    outline: list[Polygon] = field(default_factory=list)
    spaces: list[tuple[str, Polygon]] = field(default_factory=list)  # (category, part)
    units: list[tuple[str, str, Polygon]] = field(default_factory=list)  # (id, category, part)
    findings: list[tuple[str, str]] = field(default_factory=list)


def _grid_words(canvas: Canvas) -> str:
    return f"{canvas.metres_per_unit / GRID * 1000:g} mm"


def repaired_kind(canvas: Canvas) -> str:
    """The import report's kind for a polygon that crossed itself once drawn and was
    mended; `left_out_kind` for one with nothing left. Points nearer each other than the
    drawing's grid fold back: the mapper moves them apart (or removes the spike)."""
    return (
        f"invalid polygon once drawn to {_grid_words(canvas)}, repaired "
        "(points that close fold back: move them apart or remove the spike)"
    )


def left_out_kind(canvas: Canvas) -> str:
    return (
        f"invalid polygon once drawn to {_grid_words(canvas)}, left out: no area once "
        "made valid (redraw it wider than that)"
    )


PARTS_KIND = (
    "unit polygon of several parts: the largest is the unit, the others left out of it "
    "and drawn as space (draw each part as a unit of its own, or join them)"
)


def _to_grid(canvas: Canvas) -> Any:
    """The canvas transform of a metre (x, y) array, rounded to the grid (the floats the
    parser reads back from the 3 decimals written)."""
    origin = np.array([canvas.min_x, canvas.max_y])
    scale = np.array([1.0, -1.0]) / canvas.metres_per_unit

    def transform(xy: Any) -> Any:
        return np.round((xy - origin) * scale * GRID) / GRID

    return transform


def on_grid(canvas: Canvas, levels: Sequence[DrawnLevel]) -> None:
    """Sets each level's `grid` (kept: a level drawn on its own map and on the stack is
    checked once): every polygon checked as written, all at once (GEOS over the array);
    an invalid one repaired on the grid or left out, a unit of several parts split."""
    todo = [level for level in levels if level.grid is None or level.grid.canvas != canvas]
    entries: list[tuple[DrawnLevel, str, str, str]] = []  # (level, role, id, category)
    shapes: list[BaseGeometry] = []
    for level in todo:
        level.grid = OnGrid(canvas)
        if isinstance(level.outline, Polygon | MultiPolygon):
            entries.append((level, "outline", f"{level.id} outline", ""))
            shapes.append(level.outline)
        for role, drawn in (("space", level.spaces), ("unit", level.units)):
            for unit_id, category, shape in drawn:
                if isinstance(shape, Polygon | MultiPolygon):
                    entries.append((level, role, unit_id, category))
                    shapes.append(shape)
    if not shapes:
        return
    written = shapely.transform(np.array(shapes, dtype=object), _to_grid(canvas))
    valid = shapely.is_valid(written)
    for (level, role, name, category), shape, ok in zip(entries, written, valid, strict=True):
        grid = level.grid
        assert grid is not None
        if not ok:
            why = reason(shape).partition(" at ")[0]  # where: canvas units, no help to a mapper
            shape = _repaired(shape)
            kind = left_out_kind(canvas) if shape is None else repaired_kind(canvas)
            grid.findings.append((kind, f"{name}: {why}"))
        sliver = SLIVER_M2 / canvas.metres_per_unit**2
        parts = parts_of(shape, sliver) if shape is not None else []
        if role == "outline":
            grid.outline += parts
        elif role == "space" or not parts:
            grid.spaces += [(category, part) for part in parts]
        else:
            grid.units.append((name, category, parts[0]))
            grid.spaces += [(category, part) for part in parts[1:]]
            if len(parts) > 1:
                scale = canvas.metres_per_unit**2
                rest = sum(part.area for part in parts[1:]) * scale
                whole = sum(part.area for part in parts) * scale
                grid.findings.append(
                    (
                        PARTS_KIND,
                        f"{name}: {len(parts)} parts, {rest:.2f} of {whole:.2f} m² drawn as space",
                    )
                )


def _repaired(shape: BaseGeometry) -> BaseGeometry | None:
    """An invalid shape (on the grid) made valid there: repaired in whole grid steps,
    then checked again as the floats written; None when nothing valid is left."""
    steps = shapely.transform(shape, lambda xy: np.round(xy * GRID))
    fixed = made_valid(steps, grid=1.0)
    if fixed is None:
        return None
    back = shapely.transform(fixed, lambda xy: xy / GRID)
    return back if back.is_valid else None


def valid_as_drawn(canvas: Canvas, levels: Sequence[DrawnLevel], report: Report) -> None:
    """Checks the levels' polygons as they will be written (`on_grid`) and says in the
    import report which were repaired, left out or split, by unit id (a level's outline
    by its id)."""
    on_grid(canvas, levels)
    for level in levels:
        if level.grid is not None:
            for kind, example in level.grid.findings:
                report.add(kind, example)


def _num(value: float) -> str:
    text = f"{value:.3f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def _points(canvas: Canvas, coords: Sequence[XY]) -> str:
    return " ".join(f"{_num(u)},{_num(v)}" for u, v in (canvas.xy(x, y) for x, y in coords))


def _written(coords: Sequence[XY]) -> str:
    """Canvas points already on the grid (`on_grid`), as written."""
    return " ".join(f"{_num(u)},{_num(v)}" for u, v in coords)


def _shape(polygon: Polygon, attrs: str) -> str:
    """A polygon element (on the grid), or an evenodd path for one with holes."""
    if not polygon.interiors:
        coords = list(polygon.exterior.coords)[:-1]
        return f"<polygon points={quoteattr(_written(coords))}{attrs}/>"
    parts = []
    for ring in (polygon.exterior, *polygon.interiors):
        parts.append("M" + _written(list(ring.coords)[:-1]).replace(" ", " L") + " Z")
    return f'<path d={quoteattr(" ".join(parts))}{attrs} fill-rule="evenodd"/>'


def _outline_lines(polygon: Polygon) -> list[str]:
    return [
        f"<polyline points={quoteattr(_written(list(ring.coords)))}/>"
        for ring in (polygon.exterior, *polygon.interiors)
    ]


def level_heights(levels: Sequence[DrawnLevel]) -> list[int] | None:
    """Each level's height in floors (`data-level-height`): its ordinal, when every
    ordinal is a whole number within MAX_LEVEL_HEIGHT of 0 (IMDF's are integers);
    else the rank of its ordinal among the venue's distinct ones (1.5 between 1 and 2
    is a floor of its own, as by position), so that levels of one ordinal are one
    height either way. None when a level has no ordinal."""
    ordinals = [level.ordinal for level in levels]
    if any(ordinal is None for ordinal in ordinals):
        return None
    known = [float(ordinal) for ordinal in ordinals if ordinal is not None]
    if all(o.is_integer() and abs(o) <= MAX_LEVEL_HEIGHT for o in known):
        return [int(o) for o in known]
    rank = {ordinal: index for index, ordinal in enumerate(sorted(set(known)))}
    return [rank[o] for o in known]


def level_svg(
    canvas: Canvas, level: DrawnLevel, *, with_index: bool, height: int | None = None
) -> str:
    """One level's `<g>`."""
    if level.grid is None or level.grid.canvas != canvas:
        on_grid(canvas, [level])
    grid = level.grid
    assert grid is not None
    index = f' data-level-index="{level.index}"' if with_index else ""
    if height is not None:
        index += f' data-level-height="{height}"'
    out = [
        f"<g id={quoteattr('level-' + level.id)} data-level={quoteattr(level.name)} "
        f"data-tag-floor={quoteattr(level.id)}{index}>"
    ]
    if grid.outline:
        out.append(
            f'<g id="outline" fill="{p.OUTLINE_FILL}" stroke="{p.OUTLINE_STROKE}" '
            f'stroke-width="{p.OUTLINE_WIDTH}">'
        )
        out += [_shape(part, "") for part in grid.outline]
        out.append("</g>")
    out.append(f'<g id="spaces" fill="{p.SPACES_FILL}" stroke="none">')
    out += [
        _shape(part, f' class={quoteattr("imdf-" + category)} fill="{p.fill_of(category)}"')
        for category, part in grid.spaces
    ]
    out.append(f'</g><g data-layer="units" fill="{p.UNITS_FILL}" stroke="none">')
    out += [
        _shape(
            part,
            f" data-unit-id={quoteattr(unit_id)} class={quoteattr('imdf-' + category)} "
            f'fill="{p.fill_of(category)}"',
        )
        for unit_id, category, part in grid.units
    ]
    out.append(
        f'</g><g id="walls" fill="none" stroke="{p.WALL_STROKE}" stroke-width="{p.WALL_WIDTH}" '
        'stroke-linejoin="round">'
    )
    for part in [*(s for _, s in grid.spaces), *(s for _, _, s in grid.units)]:
        out += _outline_lines(part)
    doors = [
        f"<polyline points={quoteattr(_points(canvas, list(line.coords)))}/>"
        for line in level.openings
    ]
    out.append(
        f'</g><g id="openings" fill="none" stroke="{p.GAP_STROKE}" '
        f'stroke-width="{p.GAP_WIDTH}" stroke-linecap="butt">'
    )
    out += doors
    out.append(
        f'</g><g id="doors" fill="none" stroke="{p.DOOR_STROKE}" '
        f'stroke-width="{p.DOOR_WIDTH}" stroke-linecap="butt">'
    )
    out += doors
    out.append('</g><g data-layer="paths" fill="none" stroke="#c33" stroke-width="2">')
    for points, wheelchair in level.paths:
        access = "" if wheelchair else ' data-access="no-wheelchair"'
        out.append(f"<polyline points={quoteattr(_points(canvas, points))}{access}/>")
    out.append('</g><g id="connectors" fill="#36c">')
    for connector_id, kind, (x, y) in level.stops:
        u, v = canvas.xy(x, y)
        out.append(
            f'<circle cx="{_num(u)}" cy="{_num(v)}" r="{_num(STOP_RADIUS)}" '
            f"data-connector={quoteattr(kind)} "
            f"data-connector-id={quoteattr(connector_id)}/>"
        )
    out.append(f'</g><g id="labels" font-size="24" text-anchor="middle" fill="{p.TEXT}">')
    for text, (x, y) in level.labels:
        u, v = canvas.xy(x, y)
        out.append(f'<text x="{_num(u)}" y="{_num(v)}">{escape(text)}</text>')
    out.append("</g></g>")
    return "".join(out)


def venue_svg(canvas: Canvas, levels: Sequence[DrawnLevel], title: str) -> str:
    """A drawing of the given levels (one for a level's map, all for the stack)."""
    several = len(levels) > 1
    heights = level_heights(levels)  # a level's own map too: its GeoJSON `level` is its ordinal
    body = "".join(
        level_svg(canvas, level, with_index=several, height=None if heights is None else heights[i])
        for i, level in enumerate(levels)
    )
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{canvas.width}" '
        f'height="{canvas.height}" viewBox="0 0 {canvas.width} {canvas.height}" '
        f'data-feet-per-unit="{canvas.feet_per_unit!r}"><title>{escape(title)}</title>'
        f"{body}</svg>"
    )
