"""IMDF archives read as found in the wild, projected to a canvas and drawn as a unit-map
SVG; the venue as the import works on it (levels, units, names, contents, places)."""
