"""Strawberry types, queries and permission classes: thin, the logic is in `resolvers`.

The modules that declare types (`@strawberry.type`, `.input`, `.field`, ...) keep their
annotations as objects: no `from __future__ import annotations`. With it, strawberry
evaluates every annotation string with `eval` while the types are made, about a third
of their import and 20 ms of every start (issue 15, cold start; checked by
tests/e2e/test_cold_start.py)."""
