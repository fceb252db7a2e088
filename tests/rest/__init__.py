"""Tests of rest/: the app as a whole, its middleware and its hardening, through the real
ASGI app."""
