"""IMDF import, issue 35: input forms, names, the GeoJSON round trip."""
