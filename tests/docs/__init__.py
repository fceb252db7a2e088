"""Tests that hold the docs to the code: limits, the GraphQL guide, the newcomer's tour."""
