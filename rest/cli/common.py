"""What every `floorgate` command shares: its settings from the command line and the
environment (and their `--help`), and a database store of its own for the length of its
work."""

from __future__ import annotations

import argparse
import asyncio
import os
import textwrap
from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from storage.database import Store, connect
from storage.settings import Settings
from storage.settings_doc import HELP_WIDTH, environment_help


def with_store(settings: Settings, uri: str, work: Callable[[Store], Awaitable[Any]]) -> Any:
    """Run `work` on a store of its own. Without the read cache: a command reads once, and
    a change stream opened and closed within a second could hang the close (seen: about
    one `floorgate demo --no-serve` in six)."""

    async def run() -> Any:
        store = connect(uri, replace(settings, read_cache_mb=0))
        try:
            await store.ensure_indexes()
            return await work(store)
        finally:
            await store.close()

    return asyncio.run(run())


def end_with_environment(main: argparse.ArgumentParser, command: argparse.ArgumentParser) -> None:
    """End the command's `--help` with every environment setting, from the settings
    table, saying which option of the command (or of `floorgate`) wins over which. The
    list keeps its own lines, so the description is wrapped here, once."""
    options = {*main._option_string_actions, *command._option_string_actions}
    command.epilog = environment_help(options)
    command.description = textwrap.fill(command.description or "", HELP_WIDTH) or None
    command.formatter_class = argparse.RawDescriptionHelpFormatter


def settings_of(args: argparse.Namespace) -> Settings:
    overrides: dict[str, Any] = {}
    if getattr(args, "data_dir", None):
        overrides["data_dir"] = Path(args.data_dir)
    for name in ("host", "port"):
        if getattr(args, name, None) is not None:
            overrides[name] = getattr(args, name)
    if getattr(args, "cert", None):
        overrides["tls_cert"] = Path(args.cert)
    if getattr(args, "key", None):
        overrides["tls_key"] = Path(args.key)
    if getattr(args, "behind_proxy", False):
        overrides["behind_proxy"] = True
    if getattr(args, "proxy_address", None):
        overrides["proxy_addresses"] = tuple(args.proxy_address)
    if getattr(args, "public_url", None):
        overrides["public_url"] = args.public_url.rstrip("/")
    settings = Settings.from_env(**overrides)
    if "public_url" not in overrides and not os.environ.get("FLOORGATE_PUBLIC_URL"):
        # Without a public URL, links point at this server on localhost.
        settings = Settings.from_env(**overrides, public_url=f"https://localhost:{settings.port}")
    return settings


def one_line(text: str, limit: int) -> str:
    """`text` on one line of at most `limit` characters: an error that quotes its input
    must not print all of it."""
    line = " ".join(text.splitlines())
    return line if len(line) <= limit else line[: limit - 3] + "..."


ALLOW_SHRINK_HELP = (
    "import even when a stored map would be left with no units or fewer than half of "
    "them (refused without it: docs/dataset.md)"
)


def import_refusals() -> tuple[type[Exception], ...]:
    """What ends an import with nothing of it written (or, for an asset of a larger
    import, nothing of that asset), said in one line: a server without transactions,
    another import holding the asset, a transaction the database refuses as too large, a
    staged import's switch cancelled while it waited, stored maps it would take below
    half their units (`--allow-shrink`). Imported when an import runs, not at every
    start."""
    from storage.imports.leases import LeaseBusy
    from storage.imports.shrink import MapsShrink
    from storage.imports.switches import SwitchCancelled
    from storage.transactions import NoTransactions, TransactionTooLarge

    return NoTransactions, LeaseBusy, TransactionTooLarge, SwitchCancelled, MapsShrink
