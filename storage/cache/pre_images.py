"""The pre-images the read cache's scopes need (`storage.cache.scopes`, issue 67): a
scoped collection keeps each changed document as it was, so that the change stream can
say which asset an update or a delete was of.

Turned on at each start with the indexes (`changeStreamPreAndPostImages`, MongoDB 6.0 or
newer). The database keeps a pre-image as long as the oplog keeps its change, in
`config.system.preimages`; an insert writes none. Where the database refuses (an older
server, a user without `collMod`), the process goes on: a change whose document is not
shown moves every scope of its collection, as every change did before.
"""

from __future__ import annotations

import logging

from pymongo.errors import OperationFailure

from storage.collections import Database

log = logging.getLogger("floorgate.cache")

NAMESPACE_NOT_FOUND = 26  # the server's code: collMod of a collection not created yet
NAMESPACE_EXISTS = 48  # another process created it meanwhile
OPTION = "changeStreamPreAndPostImages"


async def keep_pre_images(db: Database, names: list[str]) -> bool:
    """Turn pre-images on for each collection of `names` (created when missing); False,
    logged once, when the database refuses."""
    for name in names:
        try:
            await _keep(db, name)
        except OperationFailure as error:
            log.warning(
                "the database keeps no pre-images (%s %s): a write to one asset moves the "
                "read cache of every asset",
                type(error).__name__,
                error.code,
            )
            return False
    return True


async def _keep(db: Database, name: str) -> None:
    enabled = {OPTION: {"enabled": True}}
    try:
        await db.command({"collMod": name, **enabled})
    except OperationFailure as error:
        if error.code != NAMESPACE_NOT_FOUND:
            raise
        try:
            await db.command({"create": name, **enabled})
        except OperationFailure as again:
            if again.code != NAMESPACE_EXISTS:
                raise
            await db.command({"collMod": name, **enabled})
