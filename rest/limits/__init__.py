"""The table of every limit of the service, read from where each is enforced, from which
docs/limits.md's tables are written (`make generate`).

The limits themselves stay where they are enforced (settings in `storage/settings.py`,
constants in `resolvers/limits.py`, `storage/limits.py`, `parsing/limits.py`, `rest/ops/`,
...); this wing names them, on the top floor because it reads every floor.
"""
