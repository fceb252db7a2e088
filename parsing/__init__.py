"""Unit-map SVG to the parsed document, geometry, GeoJSON; IMDF and OSM venues read into
the venue an import works on; the demo's drawings: pure functions, no I/O."""
