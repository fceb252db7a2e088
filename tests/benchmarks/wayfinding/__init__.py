"""Benchmarks of directions and E18 matrices (`python -m tests.benchmarks route`)."""
