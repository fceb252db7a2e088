"""Tests of rest/v1/planned/: the routes planned ahead of time, held to the GraphQL
operations they are made from."""
