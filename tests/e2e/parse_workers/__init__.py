"""End-to-end tests of the E10 parse workers (`storage/isolated.py`) of `floorgate serve`
over TLS: their memory after big parses, and Ctrl-C (issue 45, points 7 and 11)."""
