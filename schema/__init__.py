"""Strawberry types, queries and permission classes: thin, the logic is in `resolvers`."""
