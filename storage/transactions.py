"""Multi-document transactions: whether the deployment has them, and running work in one.

Replica sets, sharded clusters and the embedded server have transactions; a standalone
mongod has none. A transaction that meets a transient error (a write conflict with
another transaction, a failover) runs again, for up to two minutes, and a commit whose
result is unknown is sent again; the work must therefore be safe to run again from the
start, against what the database holds then. A lost database is not retried: the
caller answers 503 (or the import fails) at once, and nothing was committed.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import random
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

from pymongo.asynchronous.client_session import AsyncClientSession
from pymongo.errors import DuplicateKeyError, PyMongoError

from storage.database import UNAVAILABLE_ERRORS, Store

Session = AsyncClientSession | None  # None: no transaction (a standalone server)
T = TypeVar("T")
DUPLICATE_KEY_ATTEMPTS = 20
RETRY_SECONDS = 120.0  # how long write conflicts are retried (the driver's figure)


class NoTransactions(RuntimeError):
    """The deployment cannot run multi-document transactions (a standalone mongod)."""

    def __init__(self) -> None:
        super().__init__(
            "this MongoDB deployment has no transactions (a standalone mongod): readers "
            "could see a half-written import. Run it on a replica set (one member is "
            "enough) or pass --no-transaction to write in the idempotent order."
        )


class TransactionTooLarge(RuntimeError):
    """The database refused one transaction as too large or too long-lived."""

    def __init__(self, error: PyMongoError) -> None:
        super().__init__(
            "it does not fit in one transaction (the database said: "
            f'{str(error).split(", full error", 1)[0]}). docs/dataset.md, "All or nothing", '
            "gives the largest import measured to fit and how to make room"
        )


# TransactionTooLarge (old servers), TransactionExceededLifetimeLimitSeconds, and
# TransactionTooLargeForCache: retrying the same transaction would hit the same wall.
TOO_LARGE_CODES = frozenset({257, 290, 388})


async def has_transactions(store: Store) -> bool:
    """True for a replica set member, a mongos or the embedded server (which reports a
    replica set name); asked once per store."""
    if store.transactions is None:
        hello = await store.client.admin.command("hello")
        store.transactions = bool(hello.get("setName")) or hello.get("msg") == "isdbgrid"
    return store.transactions


async def in_transaction(
    store: Store,
    work: Callable[[Session], Awaitable[T]],
    session: AsyncClientSession | None = None,
) -> T:
    """Run `work(session)` in one transaction and return what it returns. With `session`,
    that session runs it (its id can then be named elsewhere, `storage.imports.leases`).
    Every write of several documents comes here: the unique indexes it relies on are
    ensured first (once per process, `Store.indexed`)."""
    await store.indexed()
    if session is not None:
        return await _run(work, session)
    async with store.client.start_session() as own:
        return await _run(work, own)


async def _run(work: Callable[[Session], Awaitable[T]], session: AsyncClientSession) -> T:
    """Like the driver's `with_transaction`, but a database that went away fails at once
    (the driver would retry that for two minutes) and a unique-index race lost to a
    concurrent writer is run again: it then sees, and replaces, the winner's document."""
    deadline = time.monotonic() + RETRY_SECONDS
    for attempt in itertools.count():
        await session.start_transaction()
        try:
            result = await work(session)
        except BaseException as error:
            await _abort(session)
            if isinstance(error, PyMongoError) and _code(error) in TOO_LARGE_CODES:
                raise TransactionTooLarge(error) from error
            if _again(error, deadline, attempt):
                await asyncio.sleep(_backoff(attempt))
                continue
            raise
        try:
            await _commit(session, deadline)
        except PyMongoError as error:
            if _again(error, deadline, attempt):
                await asyncio.sleep(_backoff(attempt))
                continue
            raise
        return result
    raise AssertionError("unreachable")


async def _commit(session: AsyncClientSession, deadline: float) -> None:
    """Commit; a commit whose result is unknown (not a lost connection) is sent again."""
    while True:
        try:
            await session.commit_transaction()
            return
        except PyMongoError as error:
            unknown = error.has_error_label("UnknownTransactionCommitResult")
            if not unknown or _gone(error) or time.monotonic() >= deadline:
                raise


async def _abort(session: AsyncClientSession) -> None:
    if session.in_transaction:
        with contextlib.suppress(PyMongoError):
            await session.abort_transaction()


def _code(error: PyMongoError) -> int | None:
    return getattr(error, "code", None)


def _gone(error: BaseException) -> bool:
    return isinstance(error, UNAVAILABLE_ERRORS)


def _again(error: BaseException, deadline: float, attempt: int) -> bool:
    """Whether the whole transaction runs again: after a write conflict or another
    transient error (not a lost database), or a lost unique-index race."""
    if isinstance(error, DuplicateKeyError):
        return attempt < DUPLICATE_KEY_ATTEMPTS - 1
    if not isinstance(error, PyMongoError) or _gone(error):
        return False
    return error.has_error_label("TransientTransactionError") and time.monotonic() < deadline


def _backoff(attempt: int) -> float:
    return random.uniform(0, min(1.0, 0.01 * 2**attempt))


async def atomically(store: Store, work: Callable[[Session], Awaitable[T]]) -> T:
    """`work` in a transaction where the deployment has them, else `work(None)`: for
    the API's writes, which a standalone server still serves (in their idempotent order)."""
    await store.indexed()
    if await has_transactions(store):
        return await in_transaction(store, work)
    return await work(None)
