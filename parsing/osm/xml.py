"""An OSM XML file (`.osm`, API 0.6: nodes, ways, multipolygon relations) read safely
into tagged features in WGS84 (docs/osm.md). Data (c) OpenStreetMap contributors, ODbL.

The parser is configured as the SVG reader's (parsing/safety.py): no DTD loaded, no
entity expanded, no file or socket opened; a document that declares entities is
refused, elements are counted while it is read a chunk at a time, and nesting is
bounded. A closed way is an area when its tags say so (indoor rooms, areas, corridors,
columns, buildings, `area=yes`), a line otherwise; a multipolygon relation is an area
made of its outer and inner member ways.
"""

from __future__ import annotations

from typing import Any

import shapely
from lxml import etree
from shapely.geometry import LineString, Polygon, mapping
from shapely.ops import polygonize, unary_union

from parsing.imdf.read import shown
from parsing.osm.limits import MAX_OSM_DEPTH, MAX_OSM_ELEMENTS
from parsing.osm.model import OsmData, OsmError, OsmFeature
from parsing.safety import discard, pull_parser

CHUNK_BYTES = 32 * 1024
FORM = "OSM XML (Simple Indoor Tagging)"
LINE_KEYS = frozenset({"highway", "barrier", "railway", "waterway"})  # closed, still a line
AREA_INDOOR = frozenset({"room", "area", "corridor", "column", "level", "yes"})


def read_osm_xml(data: bytes, name: str) -> OsmData:
    """The tagged elements of an OSM XML document, or an OsmError naming the problem."""
    root = _parsed(data, name)
    result = OsmData([], FORM)
    nodes: dict[str, tuple[float, float]] = {}
    ways: dict[str, list[str]] = {}
    for element in root:
        kind = element.tag
        if kind == "node":
            _node(element, nodes, result)
        elif kind == "way":
            refs = [nd.get("ref", "") for nd in element if nd.tag == "nd"]
            ways[element.get("id", "")] = refs
            _way(element, refs, nodes, result)
        elif kind == "relation":
            _relation(element, ways, nodes, result)
    return result


def _parsed(data: bytes, name: str) -> Any:
    parser = pull_parser()
    count = 0
    try:
        for start in range(0, max(len(data), 1), CHUNK_BYTES):
            parser.feed(data[start : start + CHUNK_BYTES])
            count += sum(1 for _ in parser.read_events())
            if count > MAX_OSM_ELEMENTS:
                discard(parser)
                raise OsmError(f"{name}: more than {MAX_OSM_ELEMENTS} XML elements")
        root = parser.close()
    except etree.XMLSyntaxError as error:
        last = error.error_log.last_error if error.msg == "no element found" else None
        message = last.message if last is not None else str(error.msg or error)
        if "amplification" in message or "Entity" in message or "entity" in message:
            raise OsmError(f"{name}: XML entities are not allowed ({message.strip()})") from None
        raise OsmError(f"{name}: malformed XML ({message.strip()})") from None
    except etree.LxmlError as error:
        raise OsmError(f"{name}: not readable as XML ({error})") from None
    info = root.getroottree().docinfo
    if info.internalDTD is not None or info.doctype:
        raise OsmError(
            f"{name}: XML entities are not allowed (it declares a DTD; OSM XML has none)"
        )
    if root.tag != "osm":
        raise OsmError(f"{name}: the root element is <{shown(str(root.tag))}>, not <osm>")
    if etree.XPath("(" + "/*" * (MAX_OSM_DEPTH + 1) + ")[1]")(root):
        raise OsmError(f"{name}: elements nested more than {MAX_OSM_DEPTH} levels deep")
    return root


def _tags(element: Any) -> dict[str, str]:
    return {t.get("k", ""): t.get("v", "") for t in element if t.tag == "tag" and t.get("k")}


def _node(element: Any, nodes: dict[str, tuple[float, float]], result: OsmData) -> None:
    id_ = element.get("id", "")
    try:
        position = (float(element.get("lon")), float(element.get("lat")))
    except (TypeError, ValueError):
        result.report.add("node without a position, skipped", f"node/{shown(id_)}")
        return
    nodes[id_] = position
    tags = _tags(element)
    if tags:
        geometry = {"type": "Point", "coordinates": list(position)}
        result.features.append(OsmFeature(f"node/{id_}", tags, geometry))


def _is_area(tags: dict[str, str]) -> bool:
    if tags.get("area") == "yes" or tags.get("indoor") in AREA_INDOOR:
        return True
    if tags.get("area") == "no" or LINE_KEYS & tags.keys():
        return False
    return any(key in tags for key in ("building", "building:part", "room", "shop", "amenity"))


def _way(
    element: Any, refs: list[str], nodes: dict[str, tuple[float, float]], result: OsmData
) -> None:
    tags = _tags(element)
    if not tags:
        return
    id_ = f"way/{element.get('id', '')}"
    points = [nodes[ref] for ref in refs if ref in nodes]
    if len(points) < len(refs) or len(points) < 2:
        result.report.add("way with nodes missing from the file, skipped", shown(id_))
        return
    closed = refs[0] == refs[-1] and len(points) >= 4
    if closed and _is_area(tags):
        geometry: dict[str, Any] = {"type": "Polygon", "coordinates": [[list(p) for p in points]]}
    else:
        geometry = {"type": "LineString", "coordinates": [list(p) for p in points]}
    result.features.append(OsmFeature(id_, tags, geometry))


def _relation(
    element: Any,
    ways: dict[str, list[str]],
    nodes: dict[str, tuple[float, float]],
    result: OsmData,
) -> None:
    tags = _tags(element)
    id_ = f"relation/{element.get('id', '')}"
    if tags.get("type") != "multipolygon":
        return
    rings: dict[str, list[LineString]] = {"outer": [], "inner": []}
    for member in element:
        if member.tag != "member" or member.get("type") != "way":
            continue
        refs = ways.get(member.get("ref", ""))
        points = [nodes[r] for r in refs or [] if r in nodes]
        if refs is None or len(points) < len(refs) or len(points) < 2:
            result.report.add("multipolygon with members missing from the file, skipped", id_)
            return
        rings["inner" if member.get("role") == "inner" else "outer"].append(LineString(points))
    outer = unary_union(list(polygonize(rings["outer"])))
    inner = unary_union(list(polygonize(rings["inner"])))
    shape = outer.difference(inner) if not inner.is_empty else outer
    if shape.is_empty or not isinstance(shape, Polygon | shapely.MultiPolygon):
        result.report.add("multipolygon whose rings do not close, skipped", id_)
        return
    tags.pop("type", None)
    result.features.append(OsmFeature(id_, tags, dict(mapping(shape))))
