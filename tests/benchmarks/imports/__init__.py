"""Benchmarks of imports: the demo, IMDF venues, a 4,000-unit tower."""
