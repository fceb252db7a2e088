"""Issue 67: the scoped collections keep pre-images, so the change stream can say which
asset an update or a delete was of (on the real embedded database)."""

from __future__ import annotations

import logging

from storage.cache.pre_images import OPTION, keep_pre_images
from storage.collections import COLLECTIONS, UNITS
from tests._dbserver import fresh_store


async def options(store) -> dict[str, dict]:
    cursor = await store.db.list_collections()
    return {each["name"]: each.get("options", {}) for each in await cursor.to_list()}


async def test_every_scoped_collection_keeps_pre_images_and_no_other(db_server):
    async with fresh_store(db_server) as store:  # ensure_indexes, as every start does
        found = await options(store)
        assert await keep_pre_images(store.db, [UNITS]) is True  # again: idempotent
    scoped = {each.name for each in COLLECTIONS if each.scoped}
    assert {name for name, kept in found.items() if kept.get(OPTION)} == scoped
    assert all(found[name][OPTION] == {"enabled": True} for name in scoped)
    assert {"units", "locations", "unit_maps", "assets"} <= scoped


async def test_a_refusal_is_logged_once_and_changes_nothing(db_server, caplog):
    async with fresh_store(db_server) as store:
        with caplog.at_level(logging.WARNING, "floorgate.cache"):
            assert await keep_pre_images(store.db, ["a$bad", "later"]) is False
        assert [r.getMessage() for r in caplog.records] == [
            "the database keeps no pre-images (OperationFailure 73): a write to one asset "
            "moves the read cache of every asset"
        ]
        assert "later" not in await options(store)  # it stopped at the first
