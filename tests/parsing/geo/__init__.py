"""Tests of parsing/geo/: the georeference's inverse and the levels a WGS84 point finds."""
