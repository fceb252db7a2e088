"""Tests of schema/execution/running."""
