"""The `floorgate` command: serve, demo, imports, maintenance and key management."""
