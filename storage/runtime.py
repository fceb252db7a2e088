"""Which database a command talks to: FLOORGATE_MONGODB_URI, else the embedded server.

The process that starts the embedded server writes its address to
`<data_dir>/db.uri`; other commands on the same data folder (for example
`floorgate keys create` while `make run` serves) connect to that server instead
of starting a second one on the same files.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

from pymongo import MongoClient
from pymongo.errors import PyMongoError

from storage.embedded import EmbeddedServer
from storage.settings import Settings


def _uri_file(data_dir: Path) -> Path:
    return data_dir / "db.uri"


def running_embedded_uri(data_dir: Path) -> str | None:
    """The address of an embedded server already serving this data folder, if it answers."""
    try:
        uri = _uri_file(data_dir).read_text(encoding="utf-8").strip()
    except OSError:
        return None
    try:
        with MongoClient(uri, serverSelectionTimeoutMS=500) as client:
            client.admin.command("ping")
    except PyMongoError:
        return None
    return uri


@contextlib.contextmanager
def database_uri(settings: Settings) -> Iterator[str]:
    """Yield a usable MongoDB URI; start (and later stop) the embedded server if needed."""
    if settings.mongodb_uri:
        yield settings.mongodb_uri
        return
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    existing = running_embedded_uri(settings.data_dir)
    if existing is not None:
        yield existing
        return
    server = EmbeddedServer(settings.data_dir)
    server.start()
    uri_file = _uri_file(settings.data_dir)
    uri_file.write_text(server.uri + "\n", encoding="utf-8")
    try:
        yield server.uri
    finally:
        uri_file.unlink(missing_ok=True)
        server.stop()
