"""Unit-map SVG to the parsed document, geometry, GeoJSON: pure functions, no I/O."""
