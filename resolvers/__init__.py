"""The logic behind both faces: reads, writes, paging, validation and errors; access and keys
in `auth/`, routes and distances in `wayfinding/`."""
