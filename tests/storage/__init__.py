"""Tests of storage/: datasets, imports, the demo, the embedded server, the read cache, settings."""
