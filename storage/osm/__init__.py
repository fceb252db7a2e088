"""OpenStreetMap indoor places imported as floorgate assets (`floorgate import-osm`,
docs/osm.md): the file read within its bound, the IMDF venue `parsing/osm/` makes of it
imported by the IMDF venue pipeline. Data (c) OpenStreetMap contributors, ODbL."""
