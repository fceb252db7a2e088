"""Tests of rest/graphql_http/: /graphql over HTTP, GraphiQL and the SDL."""
