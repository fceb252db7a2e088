"""Georeference of a unit map and its GeoJSON form."""
