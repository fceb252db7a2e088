"""`floorgate persisted-queries ...`: the safelist of GraphQL documents (docs/graphql.md,
"Persisted queries"). `add FILE...` stores each .graphql document under the SHA-256 of its
exact text and prints the hash; `list` shows every stored document, safelisted and
automatic; `remove HASH...` drops documents. In `FLOORGATE_PERSISTED_QUERIES=safelist`
mode only listed documents (and the REST table's) run."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from rest.cli.common import settings_of, with_store
from storage.database import Store
from storage.embedded.runtime import database_uri
from storage.limits import PERSISTED_QUERY_RECHECK_SECONDS
from storage.persisted_queries import Bounds, document_hash, listing, register, remove
from storage.settings import Settings

COMMAND = "floorgate persisted-queries"
COLUMNS = ("HASH", "KIND", "BYTES", "REGISTERED", "LAST USED")


def add_persisted_parser(commands: Any) -> None:
    """The command's parser, under `floorgate` (`rest/cli/main.py`)."""
    persisted = commands.add_parser(
        "persisted-queries",
        help="manage the safelist of persisted GraphQL documents (docs/graphql.md)",
    )
    actions = persisted.add_subparsers(dest="persisted_command", required=True)
    add = actions.add_parser(
        "add",
        help="put .graphql documents on the safelist; prints each one's SHA-256 hash "
        "(of the file's exact text: a client must send that text, or its hash)",
    )
    add.add_argument("files", nargs="+", metavar="FILE", help="a .graphql document")
    actions.add_parser("list", help="list stored documents, safelisted and automatic")
    drop = actions.add_parser("remove", help="remove stored documents by hash")
    drop.add_argument("hashes", nargs="+", metavar="HASH", help="a hash, as list shows it")
    persisted.set_defaults(handler=cmd_persisted)


def read_documents(paths: list[str], settings: Settings) -> list[tuple[str, str, str]] | str:
    """(file, hash, text) of every file, each within the document limits and parsed; or
    the first problem, in one line (nothing is stored then)."""
    from graphql import GraphQLError, parse

    limit = settings.graphql_max_document_bytes
    found: list[tuple[str, str, str]] = []
    for name in paths:
        try:
            text = Path(name).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            return f"{name}: cannot be read as UTF-8 text: {error}"
        if len(text.encode("utf-8")) > limit:
            return f"{name}: GraphQL document too large: at most {limit} bytes"
        try:
            parse(text, max_tokens=settings.graphql_max_tokens)
        except GraphQLError as error:
            return f"{name}: {' '.join(error.message.split())}"
        found.append((name, document_hash(text), text))
    return found


def table(rows: list[dict[str, Any]]) -> list[str]:
    """`list`: a header and one aligned row per stored document."""

    def when(moment: Any) -> str:
        return moment.strftime("%Y-%m-%dT%H:%M:%SZ") if moment is not None else "-"

    cells = [COLUMNS] + [
        (
            row["_id"],
            "safelisted" if row.get("safelisted") else "automatic",
            str(row.get("bytes", 0)),
            when(row.get("registered_at")),
            when(row.get("last_used")),
        )
        for row in rows
    ]
    widths = [max(len(cell[i]) for cell in cells) for i in range(len(COLUMNS) - 1)]
    return [
        "  ".join([*(c.ljust(w) for c, w in zip(cell, widths, strict=False)), cell[-1]])
        for cell in cells
    ]


def cmd_persisted(args: argparse.Namespace) -> int:
    settings = settings_of(args)
    bounds = Bounds(settings.persisted_queries_max_count, settings.persisted_queries_max_bytes)
    if args.persisted_command == "add":
        documents = read_documents(args.files, settings)
        if isinstance(documents, str):
            print(f"{COMMAND} add: {documents}; nothing was added.", file=sys.stderr)
            return 2

        async def add(store: Store) -> list[tuple[str, str, bool]]:
            return [
                (name, sha, await register(store, sha, text, bounds, safelisted=True))
                for name, sha, text in documents
            ]

        with database_uri(settings) as uri:
            added = with_store(settings, uri, add)
        full = False
        for name, sha, stored in added:
            if stored:
                print(f"{sha}  {name}")
            else:
                full = True
                print(
                    f"{COMMAND} add: {name}: the store is full of safelisted documents "
                    f"(at most {bounds.max_count} documents, {bounds.max_bytes} bytes: "
                    "FLOORGATE_PERSISTED_QUERIES_MAX_COUNT, _MAX_BYTES); not added.",
                    file=sys.stderr,
                )
        return 1 if full else 0
    with database_uri(settings) as uri:
        if args.persisted_command == "list":
            rows = with_store(settings, uri, listing)
            print("\n".join(table(rows)))
            return 0

        async def drop(store: Store) -> list[tuple[str, bool]]:
            return [(sha, await remove(store, sha)) for sha in args.hashes]

        dropped = with_store(settings, uri, drop)
    missing = False
    for sha, done in dropped:
        if done:
            print(
                f"Removed {sha} (from every server within {PERSISTED_QUERY_RECHECK_SECONDS:g} s)."
            )
        else:
            missing = True
            print(f"No persisted query {sha}.", file=sys.stderr)
    return 1 if missing else 0
