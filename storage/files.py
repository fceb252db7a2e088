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

from storage.collections import FILES_BUCKET
from storage.database import Store
from storage.limits import IN_CHUNK


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
    """Delete every stored version of these names; returns how many were deleted."""
    deleted = 0
    for chunk in chunks(names, IN_CHUNK):
        async for stored in store.files.find({"filename": {"$in": chunk}}):
            await store.files.delete(stored._id)
            deleted += 1
    return deleted
