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

import math
import re
from array import array
from typing import Any

import shapely
import shapely.errors
from lxml import etree
from shapely.geometry import LineString, Polygon, mapping
from shapely.ops import polygonize, unary_union

from parsing.imdf.read import shown
from parsing.osm.limits import (
    MAX_OSM_DEPTH,
    MAX_OSM_ELEMENTS,
    MAX_OSM_MEMBERS,
    MAX_OSM_NODES,
    MAX_OSM_RELATIONS,
    MAX_OSM_TAG_CHARS,
    MAX_OSM_TAGS,
    MAX_OSM_WAY_NODES,
    MAX_OSM_WAYS,
)
from parsing.osm.model import OsmData, OsmError, OsmFeature
from parsing.safety import discard, pull_parser

CHUNK_BYTES = 32 * 1024
FORM = "OSM XML (Simple Indoor Tagging)"
LINE_KEYS = frozenset({"highway", "barrier", "railway", "waterway"})  # closed, still a line
AREA_INDOOR = frozenset({"room", "area", "corridor", "column", "level", "yes"})
KINDS = {"node": MAX_OSM_NODES, "way": MAX_OSM_WAYS, "relation": MAX_OSM_RELATIONS}
ID = re.compile(r"-?[0-9]{1,19}\Z")  # OSM ids are 64-bit; JOSM's new ones are negative
MAX_ID = 2**63 - 1
DECIMAL = re.compile(r"[-+]?[0-9]+(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?\Z|[-+]?\.[0-9]+\Z")
CHILDREN = {  # what an element may hold: its tags, a way's nodes, a relation's members
    "tag": (MAX_OSM_TAGS, "tags"),
    "nd": (MAX_OSM_WAY_NODES, "nodes (<nd>)"),
    "member": (MAX_OSM_MEMBERS, "members"),
    "other": (MAX_OSM_TAGS, "elements other than tags, nodes and members"),
}
AXES = {"lon": "longitude", "lat": "latitude"}


def read_osm_xml(data: bytes, name: str) -> OsmData:
    """The tagged elements of an OSM XML document, or an OsmError naming the file, the
    element and the rule it breaks. The document is streamed: each top-level element is
    read once complete and dropped from the tree, every count is checked as it grows."""
    reader = _Reader(name)
    parser = pull_parser()
    try:
        for start in range(0, max(len(data), 1), CHUNK_BYTES):
            parser.feed(data[start : start + CHUNK_BYTES])
            reader.read(parser.read_events())
        parser.close()
        reader.read(parser.read_events())
    except etree.XMLSyntaxError as error:
        raise OsmError(_xml_problem(name, error)) from None
    except etree.LxmlError as error:
        raise OsmError(f"{name}: not readable as XML ({type(error).__name__})") from None
    finally:
        discard(parser)
    if reader.root is None:
        raise OsmError(f"{name}: malformed XML (no root element)")
    if reader.pending is not None:
        reader.take(reader.pending)
        reader.pending = None
    reader.root = None
    return reader.result


def _root(element: Any, name: str) -> Any:
    info = element.getroottree().docinfo
    if info.internalDTD is not None or info.doctype:
        raise OsmError(
            f"{name}: XML entities are not allowed (it declares a DTD; OSM XML has none)"
        )
    if element.tag != "osm":
        raise OsmError(f"{name}: the root element is <{shown(str(element.tag))}>, not <osm>")
    return element


def _depth(element: Any) -> int:
    """Its nesting (the root is 1), counted up to one past the limit."""
    depth = 1
    for _ in element.iterancestors():
        depth += 1
        if depth > MAX_OSM_DEPTH:
            break
    return depth


def _too_deep(name: str, line: int | None) -> str:
    where = f" (line {line})" if line else ""
    return f"{name}: elements nested more than {MAX_OSM_DEPTH} levels deep{where}"


def _xml_problem(name: str, error: etree.XMLSyntaxError) -> str:
    """The refusal of a document libxml2 cannot read, in our words where we have them."""
    last = error.error_log.last_error if error.msg == "no element found" else None
    message = (last.message if last is not None else str(error.msg or error)).strip()
    if "depth" in message.lower():  # libxml2's own bound, past ours
        return _too_deep(name, error.lineno)
    if "amplification" in message or "ntity" in message:
        return f"{name}: XML entities are not allowed ({message})"
    return f"{name}: malformed XML ({message})"


class _Reader:
    """The elements of one file, read one top-level element at a time."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.result = OsmData([], FORM)
        self.nodes: dict[int, list[float]] = {}
        self.ways: dict[int, array[int]] = {}
        self.relations: set[int] = set()
        self.root: Any = None
        self.pending: Any = None  # the last top-level element begun: whole once the next is
        self.count = 0
        self.children: dict[str, int] = {}

    def read(self, events: Any) -> None:
        """Each element as it begins: counted, its depth checked; the top-level element
        before it, now whole, read and dropped."""
        for _, element in events:
            self.count += 1
            if self.count > MAX_OSM_ELEMENTS:
                raise OsmError(
                    f"{self.name}: more than {MAX_OSM_ELEMENTS} XML elements "
                    f"(line {element.sourceline})"
                )
            parent = element.getparent()
            if parent is None:
                self.root = _root(element, self.name)
            elif parent is self.root:
                if self.pending is not None:
                    self.take(self.pending)
                    self.root.remove(self.pending)
                self.pending = element
                self.children = dict.fromkeys(CHILDREN, 0)
            elif parent is self.pending:
                self.child(element.tag)
            elif _depth(element) > MAX_OSM_DEPTH:
                raise OsmError(_too_deep(self.name, element.sourceline))

    def child(self, tag: Any) -> None:
        """One more `<tag>`, `<nd>` or `<member>` of the element being read: refused the
        moment there are too many, before the element holds them all."""
        kind = tag if tag in CHILDREN else "other"
        self.children[kind] += 1
        limit, what = CHILDREN[kind]
        if self.children[kind] > limit:
            pending = self.pending
            raw = pending.get("id", "")
            id_ = shown(raw) if ID.match(raw) else "with an id that is no OSM id"
            raise self.refuse(f"{shown(str(pending.tag))} {id_}", f"more than {limit} {what}")

    def refuse(self, element: str, rule: str) -> OsmError:
        return OsmError(f"{self.name}: {element}: {rule}")

    def take(self, element: Any) -> None:
        kind = element.tag
        if kind not in KINDS:
            return  # <bounds>, <note>, <meta>: nothing to read
        raw = element.get("id", "")
        if not ID.match(raw) or abs(int(raw)) > MAX_ID:
            shown_id = shown(raw) if raw else "without an id"
            raise self.refuse(f"{kind} {shown_id}", "its id is not an OSM id (an integer)")
        id_ = int(raw)
        where = f"{kind} {id_}"
        seen = self.nodes if kind == "node" else self.ways if kind == "way" else self.relations
        if id_ in seen:
            raise self.refuse(where, "appears twice in the file (each element once)")
        limit = KINDS[kind]
        if len(seen) >= limit:
            raise self.refuse(where, f"more than {limit} {kind}s in one file")
        tags = self.tags(element, where)
        if kind == "node":
            self.node(element, id_, where, tags)
        elif kind == "way":
            self.way(element, id_, where, tags)
        else:
            self.relations.add(id_)
            self.relation(element, where, tags)

    def tags(self, element: Any, where: str) -> dict[str, str]:
        found = {}
        for tag in element.iterchildren("tag"):
            key, value = tag.get("k", ""), tag.get("v", "")
            if len(key) > MAX_OSM_TAG_CHARS or len(value) > MAX_OSM_TAG_CHARS:
                raise self.refuse(where, _long_tag(key))
            if key:
                found[key] = value
            if len(found) > MAX_OSM_TAGS:
                raise self.refuse(where, f"more than {MAX_OSM_TAGS} tags")
        return found

    def node(self, element: Any, id_: int, where: str, tags: dict[str, str]) -> None:
        lat, lon = element.get("lat"), element.get("lon")
        if lat is None or lon is None:
            self.nodes[id_] = []  # a node without a position (a deleted one): never drawn
            self.result.report.add("node without a position, skipped", f"node/{id_}")
            return
        position = [
            _coordinate(self, where, "lon", lon, 180),
            _coordinate(self, where, "lat", lat, 90),
        ]
        self.nodes[id_] = position
        if tags:
            geometry = {"type": "Point", "coordinates": position}
            self.result.features.append(OsmFeature(f"node/{id_}", tags, geometry))

    def refs(self, element: Any, where: str, child: str, limit: int, what: str) -> list[Any]:
        found: list[Any] = []
        for ref in element.iterchildren(child):
            if len(found) >= limit:
                raise self.refuse(where, f"more than {limit} {what}")
            found.append(ref)
        return found

    def way(self, element: Any, id_: int, where: str, tags: dict[str, str]) -> None:
        refs = array("q")
        for nd in self.refs(element, where, "nd", MAX_OSM_WAY_NODES, "nodes (<nd>)"):
            raw = nd.get("ref", "")
            if not ID.match(raw) or abs(int(raw)) > MAX_ID:
                raise self.refuse(where, f"<nd ref='{shown(raw)}'> names no node (an integer id)")
            refs.append(int(raw))
        self.ways[id_] = refs
        if not tags:
            return
        feature_id = f"way/{id_}"
        points = [self.nodes.get(ref) for ref in refs]
        positions = [p for p in points if p]
        if len(positions) < len(refs) or len(positions) < 2:
            self.result.report.add("way with nodes missing from the file, skipped", feature_id)
            return
        closed = refs[0] == refs[-1] and len(positions) >= 4
        if closed and _is_area(tags):
            geometry: dict[str, Any] = {"type": "Polygon", "coordinates": [positions]}
        else:
            geometry = {"type": "LineString", "coordinates": positions}
        self.result.features.append(OsmFeature(feature_id, tags, geometry))

    def relation(self, element: Any, where: str, tags: dict[str, str]) -> None:
        members = self.refs(element, where, "member", MAX_OSM_MEMBERS, "members")
        if tags.get("type") != "multipolygon":
            return
        feature_id = where.replace(" ", "/")
        rings: dict[str, list[LineString]] = {"outer": [], "inner": []}
        for member in members:
            if member.get("type") != "way":
                continue
            raw = member.get("ref", "")
            refs = self.ways.get(int(raw)) if ID.match(raw) else None
            points = [self.nodes.get(r) for r in refs or ()]
            positions = [p for p in points if p]
            if refs is None or len(positions) < len(refs) or len(positions) < 2:
                self.result.report.add(
                    "multipolygon with members missing from the file, skipped", feature_id
                )
                return
            rings["inner" if member.get("role") == "inner" else "outer"].append(
                LineString(positions)
            )
        try:
            outer = unary_union(list(polygonize(rings["outer"])))
            inner = unary_union(list(polygonize(rings["inner"])))
            shape = outer.difference(inner) if not inner.is_empty else outer
        except (shapely.errors.GEOSException, ValueError):
            raise self.refuse(where, "its member ways make no area (multipolygon)") from None
        if shape.is_empty or not isinstance(shape, Polygon | shapely.MultiPolygon):
            self.result.report.add("multipolygon whose rings do not close, skipped", feature_id)
            return
        tags.pop("type", None)
        self.result.features.append(OsmFeature(feature_id, tags, dict(mapping(shape))))


def _long_tag(key: str) -> str:
    return f"tag {shown(key[:40])!r} longer than {MAX_OSM_TAG_CHARS} characters (key or value)"


def _coordinate(reader: _Reader, where: str, axis: str, raw: str, bound: int) -> float:
    """A latitude or longitude: a decimal number (not `NaN`, `inf`, `1_0` or ` 4 `, which
    Python's float reads) within +-bound, else the node is refused."""
    value = float(raw) if DECIMAL.match(raw) else math.nan
    if not math.isfinite(value) or abs(value) > bound:
        rule = (
            f"{axis}='{shown(raw[:40])}' is not a {AXES[axis]} (a number from -{bound} to {bound})"
        )
        raise reader.refuse(where, rule)
    return value


def _is_area(tags: dict[str, str]) -> bool:
    if tags.get("area") == "yes" or tags.get("indoor") in AREA_INDOOR:
        return True
    if tags.get("area") == "no" or LINE_KEYS & tags.keys():
        return False
    return any(key in tags for key in ("building", "building:part", "room", "shop", "amenity"))
