"""The OSM readers (parsing/osm/): GeoJSON and OSM XML into tagged features in WGS84, and
every input they refuse with a line that says why. The XML parser expands no entity
and loads no DTD (as parsing/safety.py for SVG)."""

from __future__ import annotations

import pytest

from parsing.osm.geojson import read_osm_geojson
from parsing.osm.model import OsmError
from parsing.osm.xml import read_osm_xml

ROOM_XML = b"""<?xml version='1.0' encoding='UTF-8'?>
<osm version='0.6'>
  <node id='1' lat='45.0' lon='5.0'/>
  <node id='2' lat='45.0' lon='5.0001'/>
  <node id='3' lat='45.0001' lon='5.0001'/>
  <node id='4' lat='45.0' lon='5.00005'><tag k='door' v='yes'/><tag k='level' v='0'/></node>
  <way id='10'><nd ref='1'/><nd ref='2'/><nd ref='3'/><nd ref='1'/>
    <tag k='indoor' v='room'/><tag k='level' v='0;1'/><tag k='name' v='Shop'/></way>
  <way id='11'><nd ref='1'/><nd ref='2'/><nd ref='3'/><nd ref='1'/>
    <tag k='highway' v='footway'/></way>
  <relation id='20'><member type='way' ref='10' role='outer'/>
    <tag k='type' v='multipolygon'/><tag k='indoor' v='area'/></relation>
</osm>"""


def test_xml_ways_nodes_and_multipolygons() -> None:
    data = read_osm_xml(ROOM_XML, "t.osm")
    by_id = {f.id: f for f in data.features}
    assert sorted(by_id) == ["node/4", "relation/20", "way/10", "way/11"]
    assert by_id["way/10"].geometry is not None
    assert by_id["way/10"].geometry["type"] == "Polygon"
    assert by_id["way/10"].tags == {"indoor": "room", "level": "0;1", "name": "Shop"}
    assert by_id["way/11"].geometry == {
        "type": "LineString",
        "coordinates": [[5.0, 45.0], [5.0001, 45.0], [5.0001, 45.0001], [5.0, 45.0]],
    }
    assert by_id["relation/20"].geometry is not None
    assert by_id["relation/20"].geometry["type"] == "Polygon"
    assert by_id["node/4"].geometry == {"type": "Point", "coordinates": [5.00005, 45.0]}


BOMB = b"""<?xml version="1.0"?>
<!DOCTYPE osm [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">
<!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;"><!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;">]>
<osm><node id="1" lat="0" lon="0"><tag k="name" v="&d;"/></node></osm>"""
EXTERNAL = b"""<?xml version="1.0"?>
<!DOCTYPE osm [<!ENTITY x SYSTEM "file:///etc/passwd">]>
<osm><node id="1" lat="0" lon="0"><tag k="name" v="&x;"/></node></osm>"""


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"<osm><node id='1'", "t.osm: malformed XML ("),
        (BOMB, "t.osm: XML entities are not allowed ("),
        (EXTERNAL, "t.osm: XML entities are not allowed ("),
        (b"<svg/>", "t.osm: the root element is <svg>, not <osm>"),
        (b"<osm>" + b"<a>" * 20 + b"</a>" * 20 + b"</osm>", "t.osm: elements nested more than 16"),
    ],
    ids=["broken", "entity-bomb", "external-entity", "not-osm", "too-deep"],
)
def test_xml_refused(data: bytes, message: str) -> None:
    with pytest.raises(OsmError) as refused:
        read_osm_xml(data, "t.osm")
    assert str(refused.value).startswith(message)


def test_the_entity_is_never_expanded() -> None:
    """Refused before any tag is read: no name holds the file's contents or a billion a's."""
    with pytest.raises(OsmError):
        read_osm_xml(EXTERNAL, "t.osm")


def test_geojson_tags_without_metadata_and_style() -> None:
    data = read_osm_geojson(
        b'{"type": "FeatureCollection", "features": [{"type": "Feature", "id": "way/1", '
        b'"properties": {"indoor": "room", "level": 0, "user": "x", "fill": "#fff", '
        b'"@id": "way/1"}, "geometry": {"type": "Point", "coordinates": [5, 45]}}, '
        b'{"type": "Feature", "id": "way/2", "properties": {}, "geometry": null}]}',
        "t.geojson",
    )
    assert [(f.id, f.tags) for f in data.features] == [("way/1", {"indoor": "room", "level": "0"})]
    assert data.report.lines() == ["feature without a geometry, skipped: 1 (e.g. way/2)"]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"{nope", "t.geojson: not JSON ("),
        (b"[" * 70 + b"]" * 70, "t.geojson: arrays and objects nested deeper than 64 levels"),
        (b'{"type": "Feature"}', "t.geojson: JSON, but a dict, not a GeoJSON FeatureCollection"),
    ],
)
def test_geojson_refused(data: bytes, message: str) -> None:
    with pytest.raises(OsmError) as refused:
        read_osm_geojson(data, "t.geojson")
    assert str(refused.value).startswith(message)
