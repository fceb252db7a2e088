"""The interior rings of a unit or hit-area path: courtyards, light wells, lift shafts
(docs/svg-parsing.md, "Holes"). A path of several subpaths fills its outline (the
subpath enclosing the largest area) less the subpaths that the fill rule leaves empty
inside it; those are kept as holes instead of being dropped with the rest."""

from __future__ import annotations

from shapely.geometry import Polygon

from parsing.geometry.path_data import Polyline

INTERIORS_MEET = "T********"  # DE-9IM: the two interiors share a point


def _ring(flat: list[float]) -> list[float]:
    """A subpath's ring without its closing point (the outline's own rule)."""
    if len(flat) > 2 and flat[0] == flat[-2] and flat[1] == flat[-1]:
        return flat[:-2]
    return flat


def _polygon(flat: list[float]) -> Polygon | None:
    """The ring as a simple polygon with area, else None (a line, a self-crossing ring)."""
    if len(flat) < 6:
        return None
    polygon = Polygon(zip(flat[0::2], flat[1::2], strict=True))
    return polygon if polygon.is_valid and polygon.area > 0 else None


def holes_of(
    polylines: list[Polyline], outline: list[float], fill_rule: str | None
) -> list[list[float]]:
    """The subpaths other than `outline` that are holes of it, in written order
    (`fill_rule`: the shape's own `fill-rule`; any value but evenodd is nonzero).

    A hole is a simple ring with area inside the outline (it may touch it), not inside
    or overlapping a larger hole (a ring inside a hole, an island, is left out as every
    further ring was before). With the nonzero rule (SVG's default) only a ring wound
    against the outline leaves a hole; a ring wound the same way is filled, so it is
    no hole. A self-crossing outline keeps no holes."""
    if len(polylines) < 2:
        return []
    evenodd = fill_rule is not None and fill_rule.strip().lower() == "evenodd"
    outer = _polygon(outline)
    if outer is None:
        return []
    outer_ccw = outer.exterior.is_ccw
    candidates: list[tuple[float, int, list[float], Polygon]] = []
    for index, (coords, _) in enumerate(polylines):
        flat = _ring(coords)
        if flat == outline:  # the outline itself (or a copy of it)
            continue
        polygon = _polygon(flat)
        if polygon is None or not outer.contains(polygon):
            continue
        if not evenodd and polygon.exterior.is_ccw == outer_ccw:
            continue
        candidates.append((-polygon.area, index, flat, polygon))
    accepted: list[tuple[int, list[float], Polygon]] = []
    for _, index, flat, polygon in sorted(candidates, key=lambda c: (c[0], c[1])):
        if all(not hole.relate_pattern(polygon, INTERIORS_MEET) for _, _, hole in accepted):
            accepted.append((index, flat, polygon))
    return [flat for _, flat, _ in sorted(accepted, key=lambda a: a[0])]
