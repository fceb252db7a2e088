"""Benchmarks run by `make bench` (`python -m tests.benchmarks`); not part of `make test`."""
