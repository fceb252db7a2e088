"""`floorgate keys ...`: create, list, update (a key's own rate limit) and disable API
keys, against the database the other commands use (`rest/cli/main.py`)."""

from __future__ import annotations

import argparse
import math
import sys
from typing import Any

from rest.cli.common import settings_of, with_store
from storage.database import Store
from storage.embedded.runtime import database_uri


def add_limit_options(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--rate-limit",
        type=float,
        metavar="PER_SECOND",
        help="the key's own rate limit, requests per second (default: the "
        "server's, FLOORGATE_RATE_LIMIT_PER_SECOND, 200)",
    )
    command.add_argument(
        "--burst",
        type=int,
        metavar="N",
        help="the key's own bucket size (default: two seconds of --rate-limit)",
    )


KEY_COLUMNS = ("ID", "NAME", "STATE", "RATE LIMIT", "ASSETS", "PERMISSIONS")


def limit_text(document: dict[str, Any] | None) -> str:
    if document is None:
        return "default"
    return f"{document['per_second']:g}/s, burst {document['burst']}"


def key_table(keys: list[dict[str, Any]]) -> list[str]:
    """`keys list`: a header and one aligned row per key (the last column unpadded)."""
    rows = [KEY_COLUMNS] + [
        (
            key["_id"],
            key["name"],
            "disabled" if key.get("disabled") else "enabled",
            limit_text(key.get("rate_limit")),
            "all assets" if key.get("assets") is None else ",".join(key["assets"]) or "(none)",
            ",".join(key.get("permissions", [])) or "-",
        )
        for key in keys
    ]
    widths = [max(len(row[i]) for row in rows) for i in range(len(KEY_COLUMNS) - 1)]
    return [
        "  ".join([*(cell.ljust(w) for cell, w in zip(row, widths, strict=False)), row[-1]])
        for row in rows
    ]


def key_limit(args: argparse.Namespace) -> tuple[float, int] | None:
    """`--rate-limit` and `--burst` as a key's own limit; the burst defaults to two
    seconds' worth, as the default limit's (200/s, 400)."""
    if args.rate_limit is None:
        return None
    burst = args.burst if args.burst is not None else max(1, math.ceil(2 * args.rate_limit))
    return args.rate_limit, burst


def cmd_keys(args: argparse.Namespace) -> int:
    from resolvers.auth.keys import (
        create_key,
        disable_key,
        list_keys,
        set_key_limit,
        unknown_assets,
    )
    from resolvers.errors import ApiError

    settings = settings_of(args)
    if getattr(args, "burst", None) is not None and args.rate_limit is None:
        print(
            f"floorgate keys {args.keys_command}: --burst goes with --rate-limit", file=sys.stderr
        )
        return 2
    with database_uri(settings) as uri:
        if args.keys_command == "create":
            assets = None if args.all_assets else (args.asset or [])

            async def create(store: Store) -> Any:
                unknown = await unknown_assets(store, assets) if assets else []
                if unknown:
                    return unknown
                return await create_key(
                    store, args.name, args.permission or [], assets, key_limit(args)
                )

            try:
                created = with_store(settings, uri, create)
            except ApiError as error:
                for messages in (error.fields or {}).values():
                    print(f"floorgate keys create: {'; '.join(messages)}", file=sys.stderr)
                return 2
            if isinstance(created, list):
                names = ", ".join(repr(asset) for asset in created)
                print(
                    f"floorgate keys create: no asset {names} in the database (import it "
                    "first, or check the id; `--all-assets` for every asset); no key was "
                    "created.",
                    file=sys.stderr,
                )
                return 2
            print(f"Created key {created.key_id} ({args.name}). It is shown only once:")
            print(created.secret)
        elif args.keys_command == "list":
            print("\n".join(key_table(with_store(settings, uri, list_keys))))
        elif args.keys_command == "update":
            if args.rate_limit is None and not args.default_rate_limit:
                print(
                    "floorgate keys update: give --rate-limit (and --burst) or "
                    "--default-rate-limit",
                    file=sys.stderr,
                )
                return 2
            limit = key_limit(args)
            try:
                found = with_store(
                    settings, uri, lambda store: set_key_limit(store, args.key_id, limit)
                )
            except ApiError as error:
                for messages in (error.fields or {}).values():
                    print(f"floorgate keys update: {'; '.join(messages)}", file=sys.stderr)
                return 2
            if not found:
                print(f"No key with id {args.key_id}.", file=sys.stderr)
                return 1
            shown = "the default" if limit is None else f"{limit[0]:g}/s, burst {limit[1]}"
            print(
                f"Key {args.key_id} now has the rate limit {shown} (every worker within "
                "a few seconds)."
            )
        else:
            if not with_store(settings, uri, lambda store: disable_key(store, args.key_id)):
                print(f"No key with id {args.key_id}.", file=sys.stderr)
                return 1
            print(f"Disabled key {args.key_id}.")
    return 0
