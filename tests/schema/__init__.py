"""Tests of schema/: the GraphQL schema, its guard, operation limits and compiled execution."""
