"""An IMDF venue read from disk for import: a folder or a zip of GeoJSON files, or one
JSON document, within bounds (a zip bomb is refused, not inflated). The bytes go to the
pure reader (`parsing/imdf/read.py`); the venue is made of them by
`parsing/imdf/venue.py` (docs/imdf.md, "Input forms").
"""

from __future__ import annotations

import copy
import zipfile
from pathlib import Path

from parsing.imdf.read import (
    Archive,
    ImdfError,
    feature_type_of,
    is_manifest,
    read_archive,
    read_document,
    require_geometry,
    shown,
)

# Bounds on what an archive may unpack to: a zip bomb is refused, not inflated.
MAX_ARCHIVE_FILES = 1_000
MAX_ARCHIVE_BYTES = 512 * 1024 * 1024
# A zip member is inflated this much at a time, counted against its header and the bound.
ZIP_READ_CHUNK = 1024 * 1024


def read_venue(path: Path) -> Archive:
    """The venue at `path` in any input form (docs/imdf.md, "Input forms"): a folder or a
    zip of GeoJSON files, or one JSON document. A folder or zip whose only JSON file is
    not named after a feature type is read as such a document. Every form is refused
    alike for a level, unit or opening without a geometry."""
    archive = _read_form(path)
    require_geometry(archive, str(path))
    return archive


def _read_form(path: Path) -> Archive:
    if path.is_file() and not (path.suffix.lower() == ".zip" or zipfile.is_zipfile(path)):
        _check_bounds(1, path.stat().st_size, path)
        return read_document(_read_within(path, MAX_ARCHIVE_BYTES), str(path))
    files = read_files(path)
    where = "folder" if path.is_dir() else "zip"
    named = [n for n in files if feature_type_of(n) is not None]
    others = [n for n in files if not is_manifest(n)]
    if not named and len(others) == 1:
        archive = read_document(files[others[0]], f"{path}: {shown(others[0])}")
        archive.form = f"{archive.form}, the only JSON file of a {where}"
        return archive
    return read_archive(files, f"{where} of IMDF GeoJSON files", str(path))


def read_files(path: Path) -> dict[str, bytes]:
    """The archive's JSON files by name: a folder (recursively) or a zip, within bounds."""
    if path.is_dir():
        found = sorted(
            p for p in path.rglob("*") if p.is_file() and p.suffix.lower() in (".json", ".geojson")
        )
        _check_bounds(len(found), sum(p.stat().st_size for p in found), path)
        files, budget = {}, MAX_ARCHIVE_BYTES
        for p in found:
            files[str(p.relative_to(path))] = data = _read_within(p, budget)
            budget -= len(data)
        return files
    if not path.is_file():
        raise ImdfError(f"{path}: no such file or folder")
    try:
        with zipfile.ZipFile(path) as archive:
            infos = [
                i
                for i in archive.infolist()
                if not i.is_dir() and i.filename.lower().endswith((".json", ".geojson"))
            ]
            _check_bounds(len(infos), sum(i.file_size for i in infos), path)
            files, budget = {}, MAX_ARCHIVE_BYTES
            for info in infos:
                files[info.filename] = data = _member(archive, info, budget, path)
                budget -= len(data)
            return files
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError) as error:
        raise ImdfError(f"{path}: not a readable zip archive ({error})") from None


def _member(archive: zipfile.ZipFile, info: zipfile.ZipInfo, budget: int, path: Path) -> bytes:
    """A zip member's bytes, inflated ZIP_READ_CHUNK at a time and counted as they come:
    refused once past the size its header declares or past `budget`, so that a member
    whose header lies is inflated at most a chunk beyond it, never whole.

    zipfile cuts a member at its declared size and then fails its CRC, which would hide
    the lie behind a CRC error: the member is opened as if declared two chunks larger,
    so the count sees it first. An honest member ends where its header says, and
    zipfile checks its CRC there. Only stored and deflated members are read: zipfile
    inflates bzip2 and LZMA a whole read of packed bytes at once, without a bound."""
    name = shown(info.filename)
    if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
        raise ImdfError(
            f"{path}: {name} is compressed with method {info.compress_type}; "
            "only stored and deflated members are read"
        )
    declared = info.file_size
    opened = copy.copy(info)
    opened.file_size = declared + 2 * ZIP_READ_CHUNK
    chunks: list[bytes] = []
    count = 0
    with archive.open(opened) as member:
        while chunk := member.read(ZIP_READ_CHUNK):
            count += len(chunk)
            if count > declared:
                raise ImdfError(f"{path}: {name} is larger than its header says")
            if count > budget:
                raise ImdfError(f"{path}: grew past {MAX_ARCHIVE_BYTES} bytes of JSON while read")
            chunks.append(chunk)
    return b"".join(chunks)


def _read_within(path: Path, budget: int) -> bytes:
    """The file's bytes, refused past `budget` (it may have grown since its size was
    checked) or when it cannot be read."""
    try:
        with path.open("rb") as file:
            data = file.read(budget + 1)
    except OSError as error:
        raise ImdfError(f"{path}: cannot be read ({error.strerror})") from None
    if len(data) > budget:
        raise ImdfError(f"{path}: grew past {MAX_ARCHIVE_BYTES} bytes of JSON while read")
    return data


def _check_bounds(count: int, size: int, path: Path) -> None:
    if count > MAX_ARCHIVE_FILES:
        raise ImdfError(f"{path}: {count} JSON files, at most {MAX_ARCHIVE_FILES}")
    if size > MAX_ARCHIVE_BYTES:
        raise ImdfError(f"{path}: {size} bytes of JSON, at most {MAX_ARCHIVE_BYTES}")
