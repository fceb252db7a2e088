"""A small PNG reader (stdlib only: zlib and the five row filters) and the colour
measures the viewer's browser tests take of a screenshot: how much of it is dark and
how many distinct colours it shows."""

from __future__ import annotations

import math
import struct
import zlib
from collections import Counter
from dataclasses import dataclass

SIGNATURE = b"\x89PNG\r\n\x1a\n"
CHANNELS = {0: 1, 2: 3, 4: 2, 6: 4}  # colour type -> samples per pixel (no palettes)


@dataclass(frozen=True)
class Image:
    width: int
    height: int
    pixels: list[tuple[int, int, int]]  # RGB, row by row (alpha dropped)


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == SIGNATURE and data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


def _paeth(a: int, b: int, c: int) -> int:
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def _unfilter(kind: int, row: bytearray, prior: bytearray, step: int) -> None:
    """Undo one scanline's filter in place (`prior`: the row above, unfiltered)."""
    if kind == 0:
        return
    if kind == 2:
        row[:] = bytes((r + p) & 0xFF for r, p in zip(row, prior, strict=True))
        return
    for i in range(len(row)):
        left = row[i - step] if i >= step else 0
        if kind == 1:
            row[i] = (row[i] + left) & 0xFF
        elif kind == 3:
            row[i] = (row[i] + (left + prior[i]) // 2) & 0xFF
        elif kind == 4:
            upper_left = prior[i - step] if i >= step else 0
            row[i] = (row[i] + _paeth(left, prior[i], upper_left)) & 0xFF
        else:
            raise ValueError(f"unknown PNG filter {kind}")


def read_png(data: bytes) -> Image:
    """The pixels of an 8-bit grey, RGB or RGBA PNG that is not interlaced (what
    Chromium's screenshots are)."""
    if data[:8] != SIGNATURE:
        raise ValueError("not a PNG")
    at, header, chunks = 8, b"", []
    while at < len(data):
        (length,) = struct.unpack(">I", data[at : at + 4])
        kind, body = data[at + 4 : at + 8], data[at + 8 : at + 8 + length]
        at += 12 + length
        if kind == b"IHDR":
            header = body
        elif kind == b"IDAT":
            chunks.append(body)
        elif kind == b"IEND":
            break
    width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", header)
    if depth != 8 or colour not in CHANNELS or interlace:
        raise ValueError(f"unsupported PNG: depth {depth}, colour type {colour}, {interlace=}")
    step = CHANNELS[colour]
    raw = zlib.decompress(b"".join(chunks))
    stride = width * step
    prior = bytearray(stride)
    pixels: list[tuple[int, int, int]] = []
    for y in range(height):
        start = y * (stride + 1)
        row = bytearray(raw[start + 1 : start + 1 + stride])
        _unfilter(raw[start], row, prior, step)
        prior = row
        if step >= 3:
            pixels.extend(zip(row[0::step], row[1::step], row[2::step], strict=True))
        else:
            pixels.extend((g, g, g) for g in row[0::step])
    return Image(width, height, pixels)


def luminance(pixel: tuple[int, int, int]) -> float:
    """Rec. 709 luma of sRGB values, 0-255."""
    r, g, b = pixel
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def dark_share(image: Image, below: float = 40.0) -> float:
    """The share of pixels darker than `below`."""
    return sum(1 for p in image.pixels if luminance(p) < below) / len(image.pixels)


def colour_clusters(
    image: Image, min_share: float = 0.005, min_distance: float = 24.0
) -> list[tuple[tuple[int, int, int], float]]:
    """Distinct colours covering at least `min_share` of the image each: pixels binned
    by 8 levels a channel, bins taken most common first, a bin joining the first
    cluster within `min_distance` (RGB) of it, else starting one. (colour, share)."""
    bins = Counter((r >> 3, g >> 3, b >> 3) for r, g, b in image.pixels)
    clusters: list[list[float]] = []  # r, g, b, count
    for (r, g, b), count in bins.most_common():
        colour = (r * 8 + 4, g * 8 + 4, b * 8 + 4)
        for cluster in clusters:
            if math.dist(colour, cluster[:3]) <= min_distance:
                cluster[3] += count
                break
        else:
            clusters.append([*colour, count])
    total = len(image.pixels)
    return [
        ((int(c[0]), int(c[1]), int(c[2])), c[3] / total)
        for c in clusters
        if c[3] / total >= min_share
    ]
