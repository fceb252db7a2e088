"""Issue 67, point 1: which property a read and a change are about, and a cache whose
versions move per property (pure: no database)."""

from __future__ import annotations

import bson

from storage.cache.change_journal import ChangeJournal
from storage.cache.change_watch import WriteListener, apply_change
from storage.cache.read_cache import MAX_SCOPES, ReadCache, ReadLog
from storage.cache.scopes import EVERYTHING, Touched, of_change, of_documents, of_query
from tests.storage.test_read_cache import Loads, command, live_cache

A, B = ("asset_id", "A"), ("asset_id", "B")


def change(kind: str, coll: str = "units", **fields: object) -> dict[str, object]:
    return {"operationType": kind, "ns": {"db": "d", "coll": coll}, **fields}


def test_a_query_is_scoped_by_the_narrowest_value_it_names():
    assert of_query({"asset_id": "A"}) == A
    assert of_query({"asset_id": "A", "unit_map_id": "M"}) == ("unit_map_id", "M")
    assert of_query({"_id": "u1", "asset_id": "A"}) == ("_id", "u1")
    # across properties: no scope
    assert of_query({"asset_id": {"$in": ["A", "B"]}}) is None
    assert of_query({"$or": [{"asset_id": "A"}]}) is None
    assert of_query({"_id": 7}) is None
    assert of_query({}) is None
    assert of_query(None) is None


def test_a_change_names_the_document_before_and_after():
    inserted = change("insert", documentKey={"_id": "u1"}, fullDocument={"asset_id": "A"})
    assert of_change(inserted) == Touched(frozenset({("_id", "u1"), A}))
    moved = change(
        "update",
        documentKey={"_id": "u1"},
        fullDocumentBeforeChange={"asset_id": "A"},
        updateDescription={"updatedFields": {"asset_id": "B"}},
    )
    assert of_change(moved) == Touched(frozenset({("_id", "u1"), A, B}))
    replaced = change(
        "replace",
        documentKey={"_id": "l1"},
        fullDocumentBeforeChange={"asset_id": "A", "unit_map_id": "M"},
        fullDocument={"asset_id": "A"},
    )
    assert of_change(replaced).scopes == {("_id", "l1"), A, ("unit_map_id", "M")}
    deleted = change(
        "delete", documentKey={"_id": "u1"}, fullDocumentBeforeChange={"asset_id": "A"}
    )
    assert of_change(deleted).scopes == {("_id", "u1"), A}
    # an asset's own document names its asset; a map's its map
    asset = change("delete", "assets", documentKey={"_id": "A"}, fullDocumentBeforeChange={})
    assert of_change(asset).scopes == {("_id", "A"), A}


def test_a_change_without_the_document_as_it_was_moves_everything():
    assert of_change(change("update", documentKey={"_id": "u1"})) is EVERYTHING
    assert of_change(change("delete", documentKey={"_id": "u1"})) is EVERYTHING
    assert of_change(change("insert", documentKey={"_id": "u1"})) is EVERYTHING
    assert of_change(change("drop")) is EVERYTHING
    assert of_change({"operationType": "insert"}) is EVERYTHING


def test_an_insert_names_the_scopes_of_what_it_sends():
    touched = of_documents("units", [{"_id": "u1", "asset_id": "A"}, {"_id": "u2"}])
    assert touched.scopes == {("_id", "u1"), A, ("_id", "u2")}


async def test_a_change_of_one_asset_leaves_the_others_reads_in_place():
    cache = live_cache()
    load = Loads("a1", "a2")
    other = Loads("b1")
    across = Loads("all1", "all2")
    assert await cache.read(lambda: b"a", "units", load, A) == "a1"
    assert await cache.read(lambda: b"b", "units", other, B) == "b1"
    assert await cache.read(lambda: b"*", "units", across) == "all1"
    update = change("update", documentKey={"_id": "u1"}, fullDocumentBeforeChange={"asset_id": "A"})
    assert apply_change(cache, update)
    assert await cache.read(lambda: b"a", "units", load, A) == "a2"  # moved
    assert await cache.read(lambda: b"b", "units", other, B) == "b1"  # kept
    assert await cache.read(lambda: b"*", "units", across) == "all2"  # across: moved
    assert (load.calls, other.calls, across.calls) == (2, 1, 2)
    # a change whose asset is not known moves every scope of its collection only
    assert apply_change(cache, change("delete", documentKey={"_id": "u9"}))
    assert await cache.read(lambda: b"b", "units", other, B) == "b1" and other.calls == 2
    floors = Loads("f")
    await cache.read(lambda: b"f", "floors", floors, B)
    assert apply_change(cache, change("delete", documentKey={"_id": "u8"}))
    await cache.read(lambda: b"f", "floors", floors, B)
    assert floors.calls == 1


def test_a_kept_answer_holds_while_the_scopes_it_read_do():
    cache = live_cache()
    log = ReadLog(b"answer")
    log.note("units", cache.version("units", B), B)
    log.note("floors", cache.version("floors", B), B)
    cache.keep_answer(log, b"{}", "etag", 1)
    cache.bump("units", Touched(frozenset({A})))
    assert cache.answer(b"answer") is not None
    cache.bump("floors", Touched(frozenset({B})))
    assert cache.answer(b"answer") is None


def test_past_its_bound_the_scopes_are_forgotten_and_every_scoped_read_goes_stale():
    cache = live_cache()
    before, across = cache.version("units", A), cache.version("units")
    cache.bump("floors", Touched(frozenset(("_id", f"f{n}") for n in range(MAX_SCOPES))))
    assert cache.version("units", A) == before and len(cache._scoped) == MAX_SCOPES
    cache.bump("floors", Touched(frozenset({("_id", "one more")})))
    assert len(cache._scoped) == 1
    assert cache.version("units", A) != before  # forgotten: not known unchanged
    assert cache.version("units") == across  # reads across properties are not scoped


def test_the_echo_of_an_insert_moves_nothing_again_and_another_asset_is_not_echoed():
    cache = ReadCache(1 << 20)
    cache.live = True
    listener = WriteListener(cache)
    acked = bson.Timestamp(1_800_000_000, 5)
    documents = [{"_id": "u1", "asset_id": "A"}]
    listener.started(command(1, "insert", insert="units", documents=documents))
    listener.succeeded(SimpleReply(1, acked))
    a, b = cache.version("units", A), cache.version("units", B)
    assert b == cache.version("units", B)
    echo = change("insert", documentKey={"_id": "u1"}, fullDocument=documents[0], clusterTime=acked)
    assert apply_change(cache, echo)
    assert cache.version("units", A) == a and cache.stream_echoes == 1
    # another process's insert into B at the same time: not an echo of ours
    theirs = change(
        "insert", documentKey={"_id": "u2"}, fullDocument={"asset_id": "B"}, clusterTime=acked
    )
    assert apply_change(cache, theirs)
    assert cache.version("units", B) != b and cache.version("units", A) == a
    # an update of ours moves every scope of its collection: its command names no asset
    listener.started(command(2, "update", update="units"))
    listener.succeeded(SimpleReply(2, acked))
    assert cache.version("units", A) != a


def test_the_journal_counts_an_assets_changes_and_those_of_no_known_asset():
    journal = ChangeJournal()
    journal.follow(["units"])
    at = bson.Timestamp(1, 1)
    journal.note("units", at, "a1", scopes=frozenset({A}))
    journal.note("units", at, "b1", scopes=frozenset({B}))
    journal.note("units", at, "x", scopes=None)
    assert journal.since(0, ["units"], A) == {"units": {"a1", "x"}}
    assert journal.since(0, ["units"], B) == {"units": {"b1", "x"}}
    assert journal.since(0, ["units"]) == {"units": {"a1", "b1", "x"}}


class SimpleReply:
    def __init__(self, request_id: int, at: bson.Timestamp) -> None:
        self.request_id, self.reply = request_id, {"operationTime": at}
