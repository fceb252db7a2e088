"""Benchmarks of what web maps fetch: vector tiles (`python -m tests.benchmarks tiles`)."""
