"""`floorgate persisted-queries add/list/remove` (rest/cli/persisted.py) against the test
database server: each added file's hash printed, safelisted, listed, removed; files that
do not parse or are too large are refused before anything is stored."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from pymongo import MongoClient

from rest.cli.main import main
from storage.collections import PERSISTED_QUERIES
from storage.persisted_queries import document_hash

DATABASE = "floorgate_cli_persisted"
UNITS = "query Units { units(perPage: 2) { data { id } } }\n"
ASSETS = "query Assets { assets { data { id name } } }\n"


@pytest.fixture
def database(db_server, tmp_path, monkeypatch) -> Iterator[object]:
    """The command's settings: the test server, a database of its own, emptied."""
    for name in list(os.environ):
        if name.startswith("FLOORGATE_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("FLOORGATE_MONGODB_URI", db_server.uri)
    monkeypatch.setenv("FLOORGATE_DATABASE", DATABASE)
    monkeypatch.setenv("FLOORGATE_DATA_DIR", str(tmp_path / "data"))
    client: MongoClient = MongoClient(db_server.uri)
    client.drop_database(DATABASE)
    yield client[DATABASE][PERSISTED_QUERIES]
    client.drop_database(DATABASE)
    client.close()


def write(folder: Path, name: str, text: str) -> str:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_add_prints_each_hash_list_shows_them_remove_drops_them(database, tmp_path, capsys):
    units, assets = write(tmp_path, "units.graphql", UNITS), write(tmp_path, "a.graphql", ASSETS)
    assert main(["persisted-queries", "add", units, assets]) == 0
    out = capsys.readouterr().out
    assert out == f"{document_hash(UNITS)}  {units}\n{document_hash(ASSETS)}  {assets}\n"
    rows = {row["_id"]: row for row in database.find()}
    assert set(rows) == {document_hash(UNITS), document_hash(ASSETS)}
    assert rows[document_hash(UNITS)]["document"] == UNITS
    assert all(row["safelisted"] for row in rows.values())
    assert main(["persisted-queries", "add", units]) == 0  # again: nothing changes
    capsys.readouterr()
    assert database.count_documents({}) == 2

    assert main(["persisted-queries", "list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["HASH", "KIND", "BYTES", "REGISTERED", "LAST", "USED"]
    assert sorted(line.split()[0] for line in lines[1:]) == sorted(rows)
    assert all(line.split()[1] == "safelisted" for line in lines[1:])
    assert {line.split()[2] for line in lines[1:]} == {
        str(len(UNITS) + 64),
        str(len(ASSETS) + 64),
    }

    assert main(["persisted-queries", "remove", document_hash(UNITS)]) == 0
    assert capsys.readouterr().out.startswith(f"Removed {document_hash(UNITS)}")
    assert [row["_id"] for row in database.find()] == [document_hash(ASSETS)]
    assert main(["persisted-queries", "remove", document_hash(UNITS)]) == 1
    assert capsys.readouterr().err == f"No persisted query {document_hash(UNITS)}.\n"


def test_an_automatic_document_added_becomes_safelisted(database, tmp_path, capsys):
    database.insert_one(
        {"_id": document_hash(UNITS), "document": UNITS, "bytes": 1, "safelisted": False}
    )
    assert main(["persisted-queries", "add", write(tmp_path, "u.graphql", UNITS)]) == 0
    assert database.find_one({"_id": document_hash(UNITS)})["safelisted"] is True


def test_files_that_do_not_parse_or_are_too_large_add_nothing(
    database, tmp_path, capsys, monkeypatch
):
    good = write(tmp_path, "good.graphql", UNITS)
    broken = write(tmp_path, "broken.graphql", "query Broken {")
    assert main(["persisted-queries", "add", good, broken]) == 2
    err = capsys.readouterr().err
    assert err == (
        f"floorgate persisted-queries add: {broken}: Syntax Error: Expected Name, found <EOF>.; "
        "nothing was added.\n"
    )
    monkeypatch.setenv("FLOORGATE_GRAPHQL_MAX_DOCUMENT_BYTES", "20")
    assert main(["persisted-queries", "add", good]) == 2
    assert capsys.readouterr().err == (
        f"floorgate persisted-queries add: {good}: GraphQL document too large: at most 20 "
        "bytes; nothing was added.\n"
    )
    missing = str(tmp_path / "missing.graphql")
    assert main(["persisted-queries", "add", missing]) == 2
    assert "cannot be read as UTF-8 text" in capsys.readouterr().err
    assert database.count_documents({}) == 0


def test_a_store_full_of_safelisted_documents_refuses_more(database, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("FLOORGATE_PERSISTED_QUERIES_MAX_COUNT", "1")
    units, assets = write(tmp_path, "u.graphql", UNITS), write(tmp_path, "a.graphql", ASSETS)
    assert main(["persisted-queries", "add", units, assets]) == 1
    captured = capsys.readouterr()
    assert captured.out == f"{document_hash(UNITS)}  {units}\n"
    assert captured.err == (
        f"floorgate persisted-queries add: {assets}: the store is full of safelisted documents "
        "(at most 1 documents, 33554432 bytes: FLOORGATE_PERSISTED_QUERIES_MAX_COUNT, "
        "_MAX_BYTES); not added.\n"
    )
    assert database.count_documents({}) == 1
