"""Tests of parsing/geo/: the GeoJSON of a map, its georeference and inverse, and the
levels a WGS84 point finds."""
