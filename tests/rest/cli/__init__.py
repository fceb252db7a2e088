"""Tests of rest/cli/: the `floorgate` command's errors."""
