"""Files in GridFS, addressed by a path-like filename (for example
`maps/<id>/<hash>.source.svg`).

A put replaces the earlier file of that name, so a name keeps one version; a write is
skipped only when the name holds exactly one complete version of the same bytes
(`is_stored`), so what a killed upload left is stored again, and reads take the newest
complete version (`get_file`).
A map's files get content-addressed names (`content_name`): a name never changes its
bytes, so they are served as immutable and cached for a year, and an address cannot
be guessed from a map id (the uploaded drawing is not public).
(Databases written before that hold `maps/<id>/source.svg`; a re-import replaces it.)
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, unquote

from gridfs.errors import CorruptGridFile, NoFile

from storage.collections import FILES_BUCKET, UNIT_MAPS
from storage.database import Store
from storage.limits import IN_CHUNK
from storage.transactions import Session

# The fields of a map that name its stored files.
FILE_FIELDS = ("source_file", "parsed_file", "graph_file", "geojson_file")
LEGACY_SOURCE = "source.svg"  # where databases older than content addresses keep it


@dataclass(frozen=True)
class StoredFile:
    filename: str
    content_type: str
    data: bytes
    etag: str
    uploaded: str
    immutable: bool = False


def digest(data: bytes) -> str:
    """The ETag of stored bytes (also the content part of content-addressed names)."""
    return hashlib.sha256(data).hexdigest()[:32]


def map_file_name(map_id: str, leaf: str) -> str:
    """The GridFS name of a map's file; the id is percent-encoded so any id is one segment."""
    return f"maps/{quote(map_id, safe='')}/{leaf}"


def content_name(map_id: str, data: bytes, suffix: str) -> str:
    """A content-addressed name for a map's derived file: new bytes, new name."""
    return map_file_name(map_id, f"{digest(data)[:20]}{suffix}")


def download_name(filename: str) -> str:
    """A file's name for a download (`Content-Disposition`): its map id and kind, e.g.
    `m1.source.svg` for `maps/m1/<hash>.source.svg`, without the hash nobody needs."""
    parts = filename.split("/")
    leaf = parts[-1]
    if len(parts) != 3 or parts[0] != "maps":
        return leaf
    kind = re.sub(r"^[0-9a-f]{20}\.", "", leaf)
    return f"{unquote(parts[1])}.{kind}"


def file_url(files_url: str, filename: str) -> str:
    """The public address of a stored file under `{cdn_url}`."""
    return f"{files_url}/{filename}"


async def put_file(
    store: Store, filename: str, data: bytes, content_type: str, *, immutable: bool = False
) -> None:
    """Store `data` under `filename`, then drop every other version of that name
    (older ones, and those a killed upload left), so a name ends with one version."""
    metadata = {"content_type": content_type, "etag": digest(data), "immutable": immutable}
    new_id = await store.files.upload_from_stream(filename, data, metadata=metadata)
    async for old in store.files.find({"filename": filename, "_id": {"$ne": new_id}}):
        await store.files.delete(old._id)


def _versions(store: Store, filename: str) -> Any:
    """The stored versions of a name, newest first (ties broken by `_id`, so always the
    same one wins)."""
    return store.files.find({"filename": filename}).sort([("uploadDate", -1), ("_id", -1)])


async def get_file(store: Store, filename: str) -> StoredFile | None:
    """The newest complete version of a name; a version whose chunks are missing (a
    killed upload or delete left it) is passed over."""
    async for stream in _versions(store, filename):
        try:
            data = await stream.read()
        except (CorruptGridFile, NoFile):
            continue
        metadata = stream.metadata or {}
        uploaded = stream.upload_date
        return StoredFile(
            filename=filename,
            content_type=metadata.get("content_type", "application/octet-stream"),
            data=data,
            etag=metadata.get("etag") or digest(data),
            uploaded=uploaded.isoformat() if uploaded else "",
            immutable=bool(metadata.get("immutable")),
        )
    return None


async def is_stored(store: Store, filename: str, data: bytes) -> bool:
    """True when the name holds exactly one version, complete, whose ETag is that of
    `data`: only then may a write be skipped. Two versions, missing chunks or another
    ETag mean a killed upload; `put_file` then stores the name again and drops the rest.
    Compares metadata and counts chunks, so the bytes are never downloaded."""
    versions = [version async for version in _versions(store, filename).limit(2)]
    if len(versions) != 1 or (versions[0].metadata or {}).get("etag") != digest(data):
        return False
    version = versions[0]
    expected = -(-version.length // version.chunk_size) if version.chunk_size else 0
    chunks = store[f"{FILES_BUCKET}.chunks"]
    return await chunks.count_documents({"files_id": version._id}) == expected


def chunks(values: Iterable[Any], size: int) -> list[list[Any]]:
    """`values` in a stable order, in lists of at most `size` (for `$in`)."""
    ordered = sorted(values, key=repr)
    return [ordered[i : i + size] for i in range(0, len(ordered), size)]


async def delete_files(store: Store, names: Iterable[str]) -> int:
    """Delete every stored version of these names; returns how many were deleted (a
    version another process deleted meanwhile is gone all the same)."""
    deleted = 0
    for chunk in chunks(names, IN_CHUNK):
        async for stored in store.files.find({"filename": {"$in": chunk}}):
            try:
                await store.files.delete(stored._id)
            except NoFile:
                continue
            deleted += 1
    return deleted


async def named_files(
    store: Store, map_ids: Iterable[str], session: Session = None
) -> dict[str, set[str]]:
    """The files each of these maps names (as `session` sees them)."""
    named: dict[str, set[str]] = {map_id: set() for map_id in map_ids}
    projection = dict.fromkeys(FILE_FIELDS, 1)
    for chunk in chunks(named, IN_CHUNK):
        cursor = store[UNIT_MAPS].find({"_id": {"$in": chunk}}, projection, session=session)
        async for doc in cursor:
            named[doc["_id"]] = {doc[f] for f in FILE_FIELDS if isinstance(doc.get(f), str)}
    return named


async def drop_replaced_files(store: Store, before: dict[str, set[str]]) -> int:
    """After a commit: delete the files these maps named before it and name no more, and
    a map's drawing at the guessable name of databases older than content addresses.

    Only those: a file nobody names yet may be another writer's, stored before the
    documents that will name it (`floorgate gc` removes the ones left behind)."""
    after = await named_files(store, before)
    gone = {name for map_id, names in before.items() for name in names - after[map_id]}
    gone.update(
        legacy
        for map_id in before
        if (legacy := map_file_name(map_id, LEGACY_SOURCE)) not in after[map_id]
    )
    return await delete_files(store, gone)
