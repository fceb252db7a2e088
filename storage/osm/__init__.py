"""OpenStreetMap indoor places imported as floorgate assets (`floorgate import-osm`,
docs/osm.md): Simple Indoor Tagging turned into an IMDF venue in memory, then imported
by the IMDF venue pipeline. Data (c) OpenStreetMap contributors, ODbL."""
