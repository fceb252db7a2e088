"""Vector tiles of an asset's georeferenced maps (issue 49): the tiles, their TileJSON and
a MapLibre style, read from the maps' stored GeoJSON files (docs/tiles.md)."""
