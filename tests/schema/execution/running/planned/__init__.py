"""Tests of schema/execution/running/planned/: the REST routes planned ahead of time,
held to the GraphQL operations they are made from."""
