"""Tests of rest/pages/: the landing page, the API reference, the viewer's page and files."""
