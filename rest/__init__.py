"""Starlette app, REST routes, error mapping, OpenAPI, the floorgate CLI."""
