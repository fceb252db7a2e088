"""Tests of closures (resolvers/wayfinding/closures.py, closure_fields.py): written,
listed, ending by themselves, and what each closes on a route."""
