"""Pure, deterministic results (a converted venue, the database an import writes) computed
once per test run and shared by the run's pytest-xdist workers through pickles in the
folder they share (the run's
pytest temp folder; tests/conftest.py names it at session start). The key is a hash of
the input bytes and of the code that computes it (every file of `parsing/`, `routing/`
and `storage/`), so a pickle written by other code or from other input is never read:
it is simply not found. One worker computes while the others wait on its file lock
(an flock), then read. Outside xdist (no shared folder) nothing is kept on disk."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import fcntl
import hashlib
import os
import pickle
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from functools import cache
from pathlib import Path
from typing import BinaryIO, TypeVar, cast

import orjson
from bson.codec_options import CodecOptions
from bson.raw_bson import RawBSONDocument

from parsing.imdf.read import read_archive
from parsing.imdf.venue import ImdfOptions
from storage.database import Store
from storage.imdf.dataset import ImdfDataset, venue_dataset

ROOT = Path(__file__).resolve().parents[2]
CODE = ("parsing", "routing", "storage")
T = TypeVar("T")

# The run's shared folder, set once per worker by tests/conftest.py under xdist.
FOLDER: list[Path] = []


def _folder() -> Path | None:
    """The shared folder, unless FLOORGATE_RUN_CACHE=off (each worker computes all)."""
    if not FOLDER or os.environ.get("FLOORGATE_RUN_CACHE") == "off":
        return None
    return FOLDER[0]


@cache
def code_version() -> str:
    """A hash of every source and compiled file the conversion's code is made of."""
    digest = hashlib.sha256()
    for package in CODE:
        for path in sorted((ROOT / package).rglob("*")):
            if path.suffix in {".py", ".pyx", ".so"} and "__pycache__" not in path.parts:
                digest.update(str(path.relative_to(ROOT)).encode())
                digest.update(path.read_bytes())
    return digest.hexdigest()


def shared(name: str, inputs: bytes, compute: Callable[[], T]) -> T:
    """`compute()`, or what a worker of this run already computed for the same `name`,
    `inputs` and code version."""
    folder = _folder()
    if folder is None:
        return compute()
    target = _target(folder, name, inputs)
    with _locked(target) as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if target.is_file():
            found: T = pickle.loads(target.read_bytes())
            return found
        result = compute()
        _write(target, result)
        return result


def shared_venue_dataset(files: dict[str, bytes], options: ImdfOptions) -> ImdfDataset:
    """`venue_dataset(read_archive(files), options)`, converted once per run under xdist
    for every module that converts the same archive with the same options (keyed by the
    archive's files and the options); each call given its own copy."""
    archive = b"".join(b"%s\0%d\0%s" % (n.encode(), len(d), d) for n, d in sorted(files.items()))
    setting = orjson.dumps(dataclasses.asdict(options), default=sorted, option=orjson.OPT_SORT_KEYS)
    return shared("venue", archive + setting, lambda: venue_dataset(read_archive(files), options))


async def shared_database(
    name: str, inputs: bytes, store: Store, build: Callable[[], Awaitable[object]]
) -> None:
    """Fill the store's (empty, indexed) database by `build()`, or with a copy of every
    document a worker of this run wrote by the same `build` (same `name`, `inputs` and
    code): the same documents, inserted as they were read, instead of the work again."""
    folder = _folder()
    if folder is None:
        await build()
        return
    target = _target(folder, name, inputs)
    async with _locked_async(target):
        if target.is_file():
            collections: dict[str, list[bytes]] = pickle.loads(target.read_bytes())
            for collection, documents in collections.items():
                if not documents:
                    continue
                raw = [RawBSONDocument(document) for document in documents]
                await store.db[collection].insert_many(raw, ordered=False)
            return
        await build()
        collections = {}
        raw_options = CodecOptions(document_class=RawBSONDocument)
        for collection in sorted(await store.db.list_collection_names()):
            if collection.startswith("system."):
                continue
            handle = store.db.get_collection(collection, codec_options=raw_options)
            found = await handle.find({}).sort("_id").to_list(None)
            raws = [cast(RawBSONDocument, document).raw for document in found]  # as read
            collections[collection] = [bytes(raw) for raw in raws]
        _write(target, collections)


def _target(folder: Path, name: str, inputs: bytes) -> Path:
    key = hashlib.sha256(inputs + code_version().encode()).hexdigest()[:32]
    (folder / "run-cache").mkdir(parents=True, exist_ok=True)
    return folder / "run-cache" / f"{name}-{key}.pickle"


@contextlib.contextmanager
def _locked(target: Path) -> Iterator[BinaryIO]:
    with target.with_suffix(".lock").open("wb") as lock:
        yield lock


@contextlib.asynccontextmanager
async def _locked_async(target: Path) -> AsyncIterator[None]:
    """The lock, waited for without holding the worker's event loop."""
    with _locked(target) as lock:
        while True:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                await asyncio.sleep(0.05)
        yield


def _write(target: Path, value: object) -> None:
    partial = target.with_suffix(".partial")
    partial.write_bytes(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))
    partial.replace(target)  # whole or absent, never half written
