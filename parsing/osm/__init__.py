"""OpenStreetMap indoor data (Simple Indoor Tagging) read from GeoJSON or OSM XML into
tagged features in WGS84, then turned into an IMDF archive in memory (units, doors,
walkways, connectors): pure, no I/O (docs/osm.md; data (c) OpenStreetMap contributors,
ODbL)."""
