"""The `floorgate` command: serve, demo, import, gc, check, keys."""

from __future__ import annotations

import argparse
import contextlib
import errno
import gc
import importlib
import os
import shutil
import signal
import socket
import ssl
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from resolvers.auth.permissions import ALL_PERMISSIONS
from rest.cli.common import (
    ALLOW_SHRINK_HELP,
    end_with_environment,
    import_refusals,
    one_line,
    settings_of,
    with_store,
)
from rest.cli.imdf import add_import_imdf
from rest.cli.maintenance import cmd_check, cmd_gc, duration
from rest.cli.osm import add_import_osm
from rest.cli.venue_import import (
    PROBLEM_CHARS as PROBLEM_CHARS,  # the tests' bound of a refusal line
)
from rest.ops.stop_signals import Terminated, sigterm_unwinds
from storage.collections import ASSETS, Document
from storage.database import UNAVAILABLE_ERRORS, Store
from storage.embedded.runtime import database_uri
from storage.limits import GC_GRACE, IMPORT_WAIT_SECONDS
from storage.settings import Settings, SettingsError

# Each command imports what only it needs (the importer, the demo, the SVG parser,
# cryptography for certificates) in its handler: `floorgate serve` must not pay for
# them at start, nor `floorgate keys` for uvicorn (issue 15, cold start).

DEMO_KEY_FILE = "demo-key"
ANNOUNCE_WAIT_SECONDS = 120  # the ready line waits this long for the server's socket
# While `floorgate serve` starts: young collections as usual, no full ones (they walked
# every module and type again and again, about 30 ms of each start); the app freezes
# what start-up made and sets the serving thresholds (`rest.app.settle_heap`).
START_UP_GC_THRESHOLDS = (700, 10, 1_000_000)


def serve(settings: Settings, uri: str, workers: int = 1) -> None:
    """Run uvicorn over TLS (or behind a TLS proxy); workers read settings from the environment."""
    import uvicorn

    from rest.ops.logs import log_config
    from rest.ops.metrics_listener import metrics_listener
    from rest.ops.server import forwarding_options, uvicorn_options

    # Workers (uvicorn's processes) read their settings from the environment: all of them,
    # the command line's and the database started here included.
    os.environ.update(replace(settings, mongodb_uri=uri).environment())
    options: dict[str, Any] = uvicorn_options(settings) | forwarding_options(settings)
    if not settings.behind_proxy:
        options["ssl_certfile"] = str(settings.tls_cert)
        options["ssl_keyfile"] = str(settings.tls_key)
    shared = workers > 1 or settings.metrics_port is not None
    with sigterm_unwinds(), _metrics_folder(shared) as folder, metrics_listener(settings, folder):
        uvicorn.run(
            "rest.app:app_from_env",
            factory=True,
            host=settings.host,
            port=settings.port,
            workers=workers,
            log_level="info",
            log_config=log_config(settings.access_log, json=settings.log_format == "json"),
            server_header=False,
            **options,
        )


@contextlib.contextmanager
def _metrics_folder(shared: bool) -> Iterator[Path | None]:
    """For more than one worker, or a metrics port (`FLOORGATE_METRICS_PORT`), a folder of
    this run (private to its user) where each worker writes its `/metrics` figures for the
    others and the metrics port (`rest.ops.metrics_folder`); removed when the run ends. If
    none can be made, each worker answers for itself, as one does."""
    from rest.ops.server import METRICS_FOLDER

    if not shared:
        yield None
        return
    try:
        folder = tempfile.mkdtemp(prefix="floorgate-metrics-")
    except OSError as error:
        print(
            f"floorgate serve: /metrics will show one worker's figures per scrape: {error}",
            file=sys.stderr,
        )
        yield None
        return
    os.environ[METRICS_FOLDER] = folder
    try:
        yield Path(folder)
    finally:
        os.environ.pop(METRICS_FOLDER, None)
        shutil.rmtree(folder, ignore_errors=True)


def _tls_loads(cert: Path, key: Path) -> bool:
    """The usual case, cheaply: the certificate and key load together. Only when they do
    not is `rest.ops.tls` imported (with cryptography, about 50 ms) to say why."""
    try:
        ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER).load_cert_chain(cert, key, password=lambda: b"")
    except OSError:  # ssl.SSLError too
        return False
    return True


def _import_app_meanwhile() -> None:
    """Import the app (most of a start) in a thread while this one starts the embedded
    database server, which is all waiting. uvicorn then finds `rest.app` imported. A
    failure is left for uvicorn's own import to report."""

    def run() -> None:
        with contextlib.suppress(Exception):
            importlib.import_module("rest.app")

    threading.Thread(target=run, name="import-app", daemon=True).start()


def _ping_meanwhile(uri: str, timeout_ms: int) -> Callable[[], None]:
    """Ask the database for a ping in a thread; the function returned waits for the
    answer and raises what the ping raised (an unreachable database is one line,
    `main`). Sent while this thread imports the app, it costs a start nothing; no index
    command is sent before the server listens (a worker ensures them after its start)."""
    failed: list[BaseException] = []

    def ping() -> None:
        from pymongo import MongoClient

        client: MongoClient[Document] = MongoClient(
            uri, serverSelectionTimeoutMS=timeout_ms, connectTimeoutMS=timeout_ms
        )
        try:
            client.admin.command("ping")
        except Exception as error:  # for the caller to raise
            failed.append(error)
        finally:
            client.close()

    thread = threading.Thread(target=ping, name="ping-database", daemon=True)
    thread.start()

    def reachable() -> None:
        thread.join()
        if failed:
            raise failed[0]

    return reachable


def cmd_serve(args: argparse.Namespace) -> int:
    gc.set_threshold(*START_UP_GC_THRESHOLDS)
    from rest.ops.server import implementations

    settings = settings_of(args)
    try:
        implementations(settings)
    except ValueError as problem:
        print(f"floorgate serve: {problem}", file=sys.stderr)
        return 2
    if not settings.behind_proxy and not (settings.tls_cert and settings.tls_key):
        print(
            "floorgate serve: HTTP is not served. Give --cert and --key "
            "(or FLOORGATE_TLS_CERT/FLOORGATE_TLS_KEY), or --behind-proxy when TLS ends "
            "at a trusted proxy.",
            file=sys.stderr,
        )
        return 2
    cert, key = settings.tls_cert, settings.tls_key
    if not settings.behind_proxy and cert and key and not _tls_loads(cert, key):
        from rest.ops.tls import tls_problem

        tls_error = tls_problem(cert, key)
        if tls_error is not None:  # before the database starts, once, not in every worker
            print(f"floorgate serve: {tls_error}", file=sys.stderr)
            return 2
    if port_taken(settings.host, settings.port):
        print(port_taken_message("serve", settings), file=sys.stderr)
        return 2
    port_problem = _metrics_port_problem(settings)
    if port_problem is not None:
        print(f"floorgate serve: {port_problem}", file=sys.stderr)
        return 2
    if args.workers == 1 and not settings.mongodb_uri:  # an embedded server starts first
        _import_app_meanwhile()
    with database_uri(settings) as uri:  # indexes: in the background (`rest.app`)
        reachable = _ping_meanwhile(uri, settings.db_timeout_ms)
        if args.workers == 1:
            importlib.import_module("rest.app")  # while the database answers the ping
        reachable()
        serve(settings, uri, args.workers)
    return 0


def _metrics_port_problem(settings: Settings) -> str | None:
    """What stops the metrics port (`FLOORGATE_METRICS_PORT`), before anything starts."""
    from rest.ops.metrics_listener import listener_problem

    problem = listener_problem(settings)
    port = settings.metrics_port
    if problem is None and port is not None and port_taken(settings.metrics_host, port):
        problem = f"FLOORGATE_METRICS_PORT: port {port} on {settings.metrics_host} is in use"
    return problem


async def _demo_key(store: Store, settings: Settings) -> str:
    """The local demo key with every permission; kept in the data folder and reused."""
    from resolvers.auth.keys import create_key, lookup_caller

    path = settings.data_dir / DEMO_KEY_FILE
    if path.exists():
        secret = path.read_text(encoding="utf-8").strip()
        if secret and await lookup_caller(store, secret) is not None:
            return secret
    created = await create_key(store, "demo", list(ALL_PERMISSIONS), None)
    path.write_text(created.secret + "\n", encoding="utf-8")
    path.chmod(0o600)
    return created.secret


async def _load_demo(store: Store, settings: Settings, seed: int, reset: bool = False) -> str:
    from storage.demo.install import install_demo

    if reset:  # everything goes, keys too: the demo key is made anew
        await store.client.drop_database(settings.database_name)
        await store.ensure_indexes()
        (settings.data_dir / DEMO_KEY_FILE).unlink(missing_ok=True)
        print(f"Dropped the database {settings.database_name!r}.")
    if await store[ASSETS].count_documents({}, limit=1) == 0:
        report = await install_demo(store, settings.data_dir, seed)
        print("Loaded the demo property:")
        for line in report.lines():
            print(f"  {line}")
    else:
        print("The database has data already; the demo property was not reloaded.")
    return await _demo_key(store, settings)


def port_taken(host: str, port: int) -> bool:
    """Whether another process listens on `host:port` (bound as uvicorn binds it), so
    that is said before the database starts, not after the ready line."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as error:
            return error.errno == errno.EADDRINUSE
    return False


def port_taken_message(command: str, settings: Settings) -> str:
    how = (
        "FLOORGATE_PORT=8444 make run, or floorgate demo --port 8444"
        if command == "demo"
        else "--port 8444, or FLOORGATE_PORT=8444"
    )
    return (
        f"floorgate {command}: port {settings.port} on {settings.host} is in use (another "
        f"floorgate, or another server). Choose another port: {how}."
    )


def announce_when_listening(settings: Settings, ca_file: Path, lines: list[str]) -> None:
    """Print `lines` once the server completes a TLS handshake on its port (uvicorn.run
    blocks, so a thread waits for it): the ready line never comes before the socket."""
    host = "127.0.0.1" if settings.host in ("0.0.0.0", "") else settings.host
    host = "::1" if host == "::" else host

    def wait_then_print() -> None:
        context = ssl.create_default_context(cafile=str(ca_file))
        deadline = time.monotonic() + ANNOUNCE_WAIT_SECONDS
        while time.monotonic() < deadline:
            try:
                with (
                    socket.create_connection((host, settings.port), timeout=1) as raw,
                    context.wrap_socket(raw, server_hostname="localhost"),
                ):
                    break
            except OSError:  # not listening yet (ssl.SSLError is one too)
                time.sleep(0.05)
        else:
            return  # the server's own log says why it did not start
        print("\n".join(lines), flush=True)

    threading.Thread(target=wait_then_print, name="announce", daemon=True).start()


def cmd_demo(args: argparse.Namespace) -> int:
    from rest.ops.tls import ensure_local_certificates

    settings = settings_of(args)
    if not args.no_serve and port_taken(settings.host, settings.port):
        print(port_taken_message("demo", settings), file=sys.stderr)
        return 2
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    certs = ensure_local_certificates(settings.data_dir)
    settings = replace(settings, tls_cert=certs.cert, tls_key=certs.key)
    with database_uri(settings) as uri:
        secret = with_store(
            settings, uri, lambda store: _load_demo(store, settings, args.seed, args.reset)
        )
        base = f"https://localhost:{settings.port}"
        lines = [
            "",
            "The demo is loaded. Try:" if args.no_serve else "floorgate is ready. Try:",
            f'  curl --cacert {certs.ca_cert} -H "API-Key: {secret}" {base}/v1/assets',
            f"  GraphiQL: {base}/graphql  (trust {certs.ca_cert}; set the API-Key header)",
            f"  Links: {base}/  (stop with Ctrl-C; the data stays in {settings.data_dir})",
            "",
        ]
        if args.no_serve:
            print("\n".join(lines))
            return 0
        print(f"\nStarting floorgate on {base} ...", flush=True)
        announce_when_listening(settings, certs.ca_cert, lines)
        serve(settings, uri, 1)
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    from storage.datasets.fields import DatasetError, format_problems
    from storage.imports.importer import import_dataset
    from storage.imports.leases import describe

    settings = settings_of(args)

    def waiting(asset_id: str, holder: dict[str, Any]) -> None:
        print(
            f"Waiting for another import of asset {asset_id!r} ({describe(holder)}) ...",
            file=sys.stderr,
            flush=True,
        )

    with database_uri(settings) as uri:
        try:
            path, limits = Path(args.path), settings.svg_limits
            report = with_store(
                settings,
                uri,
                lambda store: import_dataset(
                    store,
                    path,
                    limits=limits,
                    require_transaction=not args.no_transaction,
                    wait=args.wait,
                    waiting=waiting,
                    max_documents=settings.import_max_documents,
                    allow_shrink=args.allow_shrink,
                ),
            )
        except DatasetError as error:
            print(f"Nothing was imported: {len(error.problems)} problem(s).", file=sys.stderr)
            print(format_problems(error.problems), file=sys.stderr)
            return 1
        except import_refusals() as error:
            print(f"Nothing was imported: {error}", file=sys.stderr)
            return 1
    print(f"Imported {args.path}:")
    for line in report.lines():
        print(f"  {line}")
    return 0


def parser() -> argparse.ArgumentParser:
    from rest.cli.keys import add_limit_options, cmd_keys  # its imports, for `keys` only

    main = argparse.ArgumentParser(prog="floorgate", description=__doc__)
    main.add_argument("--data-dir", help="data folder (default .floorgate, FLOORGATE_DATA_DIR)")
    commands = main.add_subparsers(dest="command", required=True)

    serve_cmd = commands.add_parser(
        "serve",
        help="serve the API over HTTPS",
        description="Serve the API over HTTPS (or plain HTTP behind a TLS proxy). Every "
        "option also has a setting in the environment (below); an option given here wins.",
    )
    serve_cmd.add_argument(
        "--host", help=f"address to listen on (default {Settings.host}; FLOORGATE_HOST)"
    )
    serve_cmd.add_argument(
        "--port", type=int, help=f"port to listen on (default {Settings.port}; FLOORGATE_PORT)"
    )
    serve_cmd.add_argument(
        "--cert", help="PEM certificate chain (FLOORGATE_TLS_CERT); required unless --behind-proxy"
    )
    serve_cmd.add_argument(
        "--key", help="PEM private key (FLOORGATE_TLS_KEY); required unless --behind-proxy"
    )
    serve_cmd.add_argument(
        "--behind-proxy",
        action="store_true",
        help="TLS ends at a trusted proxy that sends X-Forwarded-Proto (default: off)",
    )
    serve_cmd.add_argument(
        "--proxy-address",
        action="append",
        help="address or network (10.0.0.0/8) of trusted proxies, or * for any peer "
        "(repeatable; default 127.0.0.1; FLOORGATE_PROXY_ADDRESSES)",
    )
    serve_cmd.add_argument(
        "--public-url",
        help="public base URL of links, e.g. "
        "https://api.example.com (default https://localhost:PORT; "
        "FLOORGATE_PUBLIC_URL)",
    )
    serve_cmd.add_argument("--workers", type=int, default=1, help="worker processes (default 1)")
    serve_cmd.set_defaults(handler=cmd_serve)
    end_with_environment(main, serve_cmd)

    demo = commands.add_parser("demo", help="load the demo property and serve it on localhost")
    demo.add_argument(
        "--port", type=int, help=f"port to serve on (default {Settings.port}; FLOORGATE_PORT)"
    )
    demo.add_argument(
        "--seed", type=int, default=7, help="seed of the demo's generated data (default 7)"
    )
    demo.add_argument("--no-serve", action="store_true", help="load and print, do not serve")
    demo.add_argument(
        "--reset",
        action="store_true",
        help="drop the database first (every key with it) and load the demo "
        "anew, with a new demo key (default: keep what is there)",
    )
    demo.set_defaults(handler=cmd_demo)
    end_with_environment(main, demo)

    importer = commands.add_parser("import", help="import a JSON dataset (all or nothing)")
    importer.add_argument(
        "path", help="the dataset's JSON file (docs/dataset.md); drawings are found relative to it"
    )
    importer.add_argument(
        "--wait",
        type=float,
        default=IMPORT_WAIT_SECONDS,
        metavar="SECONDS",
        help="how long to wait for another import of the same asset "
        f"(default {IMPORT_WAIT_SECONDS:g})",
    )
    importer.add_argument(
        "--no-transaction",
        action="store_true",
        help="on a standalone mongod (no transactions): write anyway, "
        "in the idempotent order; readers may see a half-written import",
    )
    importer.add_argument("--allow-shrink", action="store_true", help=ALLOW_SHRINK_HELP)
    importer.set_defaults(handler=cmd_import)

    add_import_imdf(commands)
    add_import_osm(commands)

    gc = commands.add_parser(
        "gc",
        help="remove stored files that no document names and GridFS chunks without a file; "
        "finish what stopped staged imports left",
        description="Remove stored files that no map names, and GridFS chunks whose files "
        "document is missing. An import stores a map's files before the documents that "
        "name them, so a file is removed only once it is older than --older-than "
        "(default 1h); keep it longer than your longest import. Also finish the switches "
        "of staged imports whose import has stopped (cancel an announced one, roll an "
        "applying one forward) and remove staged batches of no switch older than "
        "--older-than; print what was done.",
    )
    gc.add_argument(
        "--older-than",
        type=duration,
        default=GC_GRACE,
        metavar="AGE",
        help="grace period for unnamed files and staged batches, e.g. 30m, 1h, 2d (default 1h)",
    )
    gc.add_argument(
        "--dry-run", action="store_true", help="report what would be done, change nothing"
    )
    gc.add_argument(
        "--verbose",
        "-v",
        action="store_true",
        help="print every file's name and every staged import's token",
    )
    gc.set_defaults(handler=cmd_gc)

    check = commands.add_parser(
        "check",
        help="report dangling references, and switches and staged batches that staged "
        "imports left, one line each (exit status 1 when any); with --venue, a venue's "
        "health report instead (docs/imdf.md, The health report)",
    )
    check.add_argument(
        "--venue",
        metavar="ASSET",
        help="the health report of this asset: level pairs, unreachable places, places "
        "listed twice, repaired geometry, failing tiles, route accuracy; one finding a line, "
        "worst first (exit status 1 when any finding is an error)",
    )
    check.add_argument("--json", action="store_true", help="with --venue: the whole report as JSON")
    check.set_defaults(handler=cmd_check)

    keys = commands.add_parser("keys", help="manage API keys")
    key_commands = keys.add_subparsers(dest="keys_command", required=True)
    create = key_commands.add_parser("create", help="create a key (shown once)")
    create.add_argument("--name", required=True, help="a name to recognise the key by")
    create.add_argument(
        "--permission",
        action="append",
        choices=ALL_PERMISSIONS,
        help="a permission beyond reading (repeatable; default none)",
    )
    scope = create.add_mutually_exclusive_group(required=True)
    scope.add_argument(
        "--asset", action="append", help="an asset the key may see (repeatable; it must exist)"
    )
    scope.add_argument(
        "--all-assets", action="store_true", help="every asset, also those imported later"
    )
    add_limit_options(create)
    key_commands.add_parser("list", help="list keys (never their secrets)")
    update = key_commands.add_parser("update", help="change a key's rate limit")
    update.add_argument("key_id", help="the key's id, as keys list shows it")
    add_limit_options(update)
    update.add_argument(
        "--default-rate-limit",
        action="store_true",
        help="drop the key's own limit: the server's default applies",
    )
    disable = key_commands.add_parser("disable", help="disable a key")
    disable.add_argument("key_id", help="the key's id, as keys list shows it")
    keys.set_defaults(handler=cmd_keys)
    from rest.cli.persisted import add_persisted_parser  # its imports, for its command only

    add_persisted_parser(commands)
    return main


def _short_reason(error: BaseException) -> str:
    """pymongo's first words (address and cause), without its timeouts and topology dump."""
    text = (str(error).splitlines() or [""])[0]
    for tail in (", Timeout:", " (configured timeouts:", ", Topology Description:"):
        text = text.split(tail, 1)[0]
    return one_line(text.strip() or type(error).__name__, 200)


def _hang_up(signum: int, frame: object) -> None:
    """A closed terminal ends floorgate as Ctrl-C does, so it leaves the database child
    (a session of its own: storage/embedded/server.py) as it should."""
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if hasattr(signal, "SIGHUP") and threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGHUP, _hang_up)
    try:
        return int(args.handler(args))
    except Terminated:  # everything was left cleanly: end as SIGTERM would have
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.raise_signal(signal.SIGTERM)
        return 128 + signal.SIGTERM
    except UNAVAILABLE_ERRORS as error:  # an operator's problem to fix, not a program's bug
        command = " ".join(filter(None, (args.command, getattr(args, "keys_command", None))))
        print(
            f"floorgate {command}: the database is unreachable: {_short_reason(error)}",
            file=sys.stderr,
        )
        return 1
    except SettingsError as problem:  # a FLOORGATE_* value that cannot be used
        print(f"floorgate {args.command}: {problem}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
