"""Shapes, path data, transforms and numbers: SVG geometry to canvas polylines and placements."""
