"""Where the real buildings of the tests live: tests/data/, in the repository, so that a
clone alone runs the suite (issue 64, point 4). Its README.md gives each dataset's source,
commit, licence and attribution; every reader names the folder from here, and no test
reads outside the checkout (tests/docs/test_checkout_only.py)."""

from __future__ import annotations

from pathlib import Path

DATA = Path(__file__).resolve().parents[1] / "data"
# Westport House, Dundee: WRLD's indoor-map GeoJSON, a file per level (CC BY 4.0)
WESTPORT_HOUSE = DATA / "wrld-westport-house" / "westport-house"
# Three OpenStreetMap indoor places, map-gl-indoor's examples (ODbL 1.0)
OSM_INDOOR = DATA / "osm-indoor-map-gl-indoor"
