"""MongoDB access: collections and indexes, GridFS files, the embedded server, import, demo data."""
