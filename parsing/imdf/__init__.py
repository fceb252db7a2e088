"""IMDF archives read as found in the wild, projected to a canvas and drawn as a unit-map SVG."""
