"""Tests of rest/v1/: the REST routes, their documents, paging and the OpenAPI document."""
