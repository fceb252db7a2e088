"""Tests of resolvers/attributes/: unit attributes, their assignments and changes."""
