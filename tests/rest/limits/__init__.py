"""Tests of rest/limits/: the table of limits and docs/limits.md's tables written from it."""
