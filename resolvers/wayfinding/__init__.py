"""Directions (with their maneuvers' sentences and landmarks) and distance matrices over a
map's walk graph, and the per-process caches of what a map derives.
"""
