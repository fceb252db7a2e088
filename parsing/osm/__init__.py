"""OpenStreetMap indoor data (Simple Indoor Tagging) read from GeoJSON or OSM XML into
tagged features in WGS84: pure parsing, no I/O (docs/osm.md; data (c) OpenStreetMap
contributors, ODbL)."""
