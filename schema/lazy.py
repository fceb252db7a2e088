"""The schema of one process, built once, in a thread of its own, when first needed.

Importing strawberry and graphql-core and building the schema is most of a start's CPU
(docs/performance-history.md, "Cold start"). The REST routes planned ahead of time
(`schema.execution.running.planned`) answer without it, so a process serves its first
requests while it is built: on the first request that needs it (`/graphql`, a route not
planned, the OpenAPI document, the SDL), or in an idle moment after start (`rest.app`). The thread
holds the interpreter only between switches (`rest.app.SWITCH_INTERVAL_SECONDS`), so the
event loop keeps answering meanwhile.
"""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import Future
from typing import TYPE_CHECKING

from storage.settings import Settings

if TYPE_CHECKING:
    from schema.build import Schema

# One build at a time in a process: strawberry's converter is not known to be safe when
# two schemas are made at once (tests make several apps).
BUILDING = threading.Lock()


class LazySchema:
    """The schema `build_schema(settings)` makes, made once."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._made: Future[Schema] | None = None
        self._lock = threading.Lock()

    @property
    def built(self) -> Schema | None:
        """The schema if it is built, without waiting."""
        made = self._made
        if made is None or not made.done() or made.exception() is not None:
            return None
        return made.result()

    def start(self) -> Future[Schema]:
        """Begin building in a thread (once); the future of the schema."""
        with self._lock:
            if self._made is None:
                self._made = Future()
                threading.Thread(target=self._build, name="build-schema", daemon=True).start()
            return self._made

    async def get(self) -> Schema:
        """The schema, built in its thread if it is not yet (the loop goes on meanwhile)."""
        built = self.built
        if built is not None:
            return built
        return await asyncio.wrap_future(self.start())

    def now(self) -> Schema:
        """The schema, waiting for it (tools and tests, never on the event loop)."""
        return self.start().result()

    def _build(self) -> None:
        made = self._made
        assert made is not None
        # Running: no longer cancellable, so a request cancelled while it waits (its time
        # budget) cannot cancel the build for every later one.
        made.set_running_or_notify_cancel()
        try:
            with BUILDING:
                from schema.build import build_schema

                made.set_result(build_schema(self.settings))
        except BaseException as error:  # the waiters get it; a later `get` raises it again
            made.set_exception(error)
