"""Unit attributes (E19-E22): reading and writing assignments, and their live changes."""
