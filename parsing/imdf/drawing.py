"""Unit-map SVG drawn from an IMDF venue, in floorgate's conventions (docs/unit-map-svg.md).

Each level is a `<g data-level=... data-tag-floor=... data-level-index=...
data-level-height=...>` (index and height on a drawing of several levels: the height is
the level's IMDF ordinal, so that two levels of one ordinal are one floor) holding,
bottom to top: the level's outline, the spaces that are only drawn (walkways, stairs,
structure), the UnitLayer (units that are API units), the walls (every space's
boundary), the openings (a light gap, then a thin door line), the `paths` layer of
generated walk lines (`data-access="no-wheelchair"` where a wheelchair may not go), the
connectors (a small circle at each stop: its centre is the stop) and labels.
Coordinates are canvas units (`Canvas`). Colours: `parsing.imdf.palette`, each space
and unit filled by its category; the groups' paint is the default under them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from xml.sax.saxutils import escape, quoteattr

from shapely.geometry import LineString, MultiPolygon, Polygon
from shapely.geometry.base import BaseGeometry

from parsing.imdf import palette as p
from parsing.imdf.projection import Canvas
from parsing.svg_elements import MAX_LEVEL_HEIGHT

STOP_RADIUS = 10.0  # canvas units (0.5 m)
XY = tuple[float, float]


@dataclass
class DrawnLevel:
    """One level's content, in metres of the local plane."""

    id: str
    name: str
    index: int  # position in level order, lowest 0
    outline: BaseGeometry | None = None
    # (unit id, IMDF category, shape)
    units: list[tuple[str, str, BaseGeometry]] = field(default_factory=list)
    spaces: list[tuple[str, BaseGeometry]] = field(default_factory=list)  # (category, shape)
    openings: list[LineString] = field(default_factory=list)
    paths: list[tuple[Sequence[XY], bool]] = field(default_factory=list)  # (points, wheelchair)
    stops: list[tuple[str, str, XY]] = field(default_factory=list)  # (connector id, kind, point)
    labels: list[tuple[str, XY]] = field(default_factory=list)
    ordinal: float | None = None  # IMDF's, from which its height in floors is drawn


def _num(value: float) -> str:
    text = f"{value:.3f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def _points(canvas: Canvas, coords: Sequence[XY]) -> str:
    return " ".join(f"{_num(u)},{_num(v)}" for u, v in (canvas.xy(x, y) for x, y in coords))


def _rings(shape: BaseGeometry) -> list[Polygon]:
    if isinstance(shape, Polygon):
        return [shape]
    if isinstance(shape, MultiPolygon):
        return list(shape.geoms)
    return []


def _shape(canvas: Canvas, shape: BaseGeometry, attrs: str) -> str:
    """A polygon element, or a path for holes and several parts."""
    polygons = _rings(shape)
    if len(polygons) == 1 and not polygons[0].interiors:
        coords = list(polygons[0].exterior.coords)[:-1]
        return f"<polygon points={quoteattr(_points(canvas, coords))}{attrs}/>"
    parts = []
    for polygon in polygons:
        for ring in (polygon.exterior, *polygon.interiors):
            parts.append("M" + _points(canvas, list(ring.coords)[:-1]).replace(" ", " L") + " Z")
    return f'<path d={quoteattr(" ".join(parts))}{attrs} fill-rule="evenodd"/>'


def _outline_lines(canvas: Canvas, shape: BaseGeometry) -> list[str]:
    lines = []
    for polygon in _rings(shape):
        for ring in (polygon.exterior, *polygon.interiors):
            lines.append(f"<polyline points={quoteattr(_points(canvas, list(ring.coords)))}/>")
    return lines


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
    index = f' data-level-index="{level.index}"' if with_index else ""
    if height is not None:
        index += f' data-level-height="{height}"'
    out = [
        f"<g id={quoteattr('level-' + level.id)} data-level={quoteattr(level.name)} "
        f"data-tag-floor={quoteattr(level.id)}{index}>"
    ]
    if level.outline is not None:
        out.append(
            f'<g id="outline" fill="{p.OUTLINE_FILL}" stroke="{p.OUTLINE_STROKE}" '
            f'stroke-width="{p.OUTLINE_WIDTH}">'
        )
        out.append(_shape(canvas, level.outline, ""))
        out.append("</g>")
    out.append(f'<g id="spaces" fill="{p.SPACES_FILL}" stroke="none">')
    out += [
        _shape(
            canvas, shape, f' class={quoteattr("imdf-" + category)} fill="{p.fill_of(category)}"'
        )
        for category, shape in level.spaces
    ]
    out.append(f'</g><g data-layer="units" fill="{p.UNITS_FILL}" stroke="none">')
    out += [
        _shape(
            canvas,
            shape,
            f" data-unit-id={quoteattr(unit_id)} class={quoteattr('imdf-' + category)} "
            f'fill="{p.fill_of(category)}"',
        )
        for unit_id, category, shape in level.units
    ]
    out.append(
        f'</g><g id="walls" fill="none" stroke="{p.WALL_STROKE}" stroke-width="{p.WALL_WIDTH}" '
        'stroke-linejoin="round">'
    )
    for shape in [*(s for _, s in level.spaces), *(s for _, _, s in level.units)]:
        out += _outline_lines(canvas, shape)
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
