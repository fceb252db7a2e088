"""Tests of resolvers/wayfinding/: waypoints against a map's drawing, and the time budget
of route and distance-matrix work (issue 45)."""
