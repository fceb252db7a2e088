"""A database of its own on the session's embedded server, for storage tests."""

from __future__ import annotations

import uuid

from storage.database import Store, connect
from storage.embedded import EmbeddedServer
from storage.settings import Settings


def fresh_store(server: EmbeddedServer) -> Store:
    """A store on a new database, so tests never see each other's documents."""
    settings = Settings(database_name=f"t_{uuid.uuid4().hex[:12]}")
    return connect(server.uri, settings)
