"""Benchmarks that compare two revisions of floorgate: `versus_before` (both served at
once on one database) and `request_paths` (run from each tree in turn)."""
