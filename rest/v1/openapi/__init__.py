"""The OpenAPI document of /v1: written from the route table (`document.py`), in the
words of its vocabulary (`vocabulary.py`: tags, parameters, error responses),
with schemas from the GraphQL schema (`schemas.py`), served at `/v1/openapi.json` and
`/v1/openapi.yaml` (`serving.py`)."""
