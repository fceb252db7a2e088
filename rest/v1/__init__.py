"""The REST API /v1: the route table, its persisted GraphQL documents, dispatch, bodies, paging
URLs and the OpenAPI document.
"""
