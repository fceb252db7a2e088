"""Tests of resolvers/: reads, writes, keys and rate limits, distances and routes."""
