"""Tests of schema/execution."""
