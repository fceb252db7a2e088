"""The one scope rule for writes: a key writes only inside its asset scope, and a record
outside it behaves exactly like one that does not exist.

Every operator write (`resolvers.admin`) goes through here; assignments
(`resolvers.attributes.assignments`) check each unit's asset the same way. Three parts:

- the stored record a write would replace or delete, found by its key, must be in
  scope: a put over one outside it is 404 (ids are global, so this one answer says
  that an id is taken; it never says by which asset), a delete finds nothing (false);
- every record the input names (its asset, map, units, background) is looked up by
  the importer through the key's scope only (`storage.datasets.validation.load_existing`), so one
  outside it is "unknown", word for word as a missing one;
- so moving a record between assets needs scope on both.

`tests/resolvers/test_write_scope.py` runs every mutation of the schema with an admin key scoped
to another asset and fails for any mutation it has no case for.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from resolvers.auth.keys import Caller
from resolvers.context import RequestContext
from resolvers.errors import not_found
from storage import collections as c

# How to find the stored record an input record would replace.
TARGETS: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    c.UNIT_MAPS: lambda record: {"_id": record["id"]},
    c.ASSET_REFERENCES: lambda record: {"_id": record["id"]},
    c.UNIT_REFERENCES: lambda record: {"unit_id": record["unit_id"], "key": record["key"]},
    c.LOCATIONS: lambda record: {"_id": record["id"]},
}


async def check_target(
    context: RequestContext, caller: Caller, section: str, record: dict[str, Any]
) -> None:
    """404 when the record this write would replace belongs to an asset out of scope."""
    if caller.assets is None:
        return
    stored = await context.store[section].find_one(TARGETS[section](record), {"asset_id": 1})
    if stored is not None and not caller.may_see(stored.get("asset_id")):
        raise not_found()


def in_scope(caller: Caller, query: dict[str, Any]) -> dict[str, Any]:
    """A delete's filter, narrowed to the key's assets: out of scope is not there."""
    return {**query, **caller.scope_filter()}
