"""An OSM file read within its byte bound and handed to the reader of its form: OSM XML
(`.osm`, `.xml`, or a document that begins with `<`) or GeoJSON (docs/osm.md). Data
(c) OpenStreetMap contributors, ODbL."""

from __future__ import annotations

from pathlib import Path

from parsing.osm.geojson import read_osm_geojson
from parsing.osm.limits import MAX_OSM_BYTES
from parsing.osm.model import OsmData, OsmError
from parsing.osm.xml import read_osm_xml

XML_SUFFIXES = (".osm", ".xml")


def read_osm(path: Path) -> OsmData:
    """The features of the OSM file at `path`, or an OsmError naming the problem (no such
    file, past MAX_OSM_BYTES, not readable in its form)."""
    if not path.is_file():
        raise OsmError(f"{path}: no such file")
    size = path.stat().st_size
    if size > MAX_OSM_BYTES:
        raise OsmError(f"{path}: {size} bytes, at most {MAX_OSM_BYTES}")
    try:
        with path.open("rb") as file:
            data = file.read(MAX_OSM_BYTES + 1)
    except OSError as error:
        raise OsmError(f"{path}: cannot be read ({error.strerror})") from None
    if len(data) > MAX_OSM_BYTES:
        raise OsmError(f"{path}: grew past {MAX_OSM_BYTES} bytes while read")
    if path.suffix.lower() in XML_SUFFIXES or data.lstrip()[:1] == b"<":
        return read_osm_xml(data, str(path))
    return read_osm_geojson(data, str(path))
