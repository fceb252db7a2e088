"""The pictures of the docs, each drawn by its test from what the demo answers."""
