"""Tests of resolvers/wayfinding/: routes and the distance matrix (E18) through the real
app, maneuvers, waypoints against a map's drawing and on the earth, nearest, costing,
landmarks, and the time budget of route work (issue 45)."""
