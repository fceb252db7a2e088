"""Files in GridFS, addressed by a path-like filename (for example `maps/<id>/source.svg`).

A put replaces the earlier file of that name, so a name always has one version.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from urllib.parse import quote

from gridfs.errors import NoFile

from storage.database import Store


@dataclass(frozen=True)
class StoredFile:
    filename: str
    content_type: str
    data: bytes
    etag: str
    uploaded: str


def map_file_name(map_id: str, leaf: str) -> str:
    """The GridFS name of a map's file; the id is percent-encoded so any id is one segment."""
    return f"maps/{quote(map_id, safe='')}/{leaf}"


def file_url(files_url: str, filename: str) -> str:
    """The public address of a stored file under `{cdn_url}`."""
    return f"{files_url}/{filename}"


async def put_file(store: Store, filename: str, data: bytes, content_type: str) -> None:
    """Store `data` under `filename`, then drop older versions of that name."""
    etag = hashlib.sha256(data).hexdigest()[:32]
    new_id = await store.files.upload_from_stream(
        filename, data, metadata={"content_type": content_type, "etag": etag}
    )
    async for old in store.files.find({"filename": filename, "_id": {"$ne": new_id}}):
        await store.files.delete(old._id)


async def get_file(store: Store, filename: str) -> StoredFile | None:
    try:
        stream = await store.files.open_download_stream_by_name(filename)
    except NoFile:
        return None
    data = await stream.read()
    metadata = stream.metadata or {}
    uploaded = stream.upload_date
    return StoredFile(
        filename=filename,
        content_type=metadata.get("content_type", "application/octet-stream"),
        data=data,
        etag=metadata.get("etag") or hashlib.sha256(data).hexdigest()[:32],
        uploaded=uploaded.isoformat() if uploaded else "",
    )
