"""Types of the compiled loops in parsing/_kernels.pyx, for the type checker (a built
extension has no annotations it can read). Their pure-Python twins, in
parsing/geometry/numbers.py and path_data.py, are the reference."""

from collections.abc import Callable
from typing import Protocol

class OutOfRange(Exception): ...

Matrix = tuple[float, float, float, float, float, float]
# path_data's Segment and Subpath: (kind, numbers...) and (start x, start y, segments, closed)
Segment = tuple[float, ...]
Subpath = tuple[float, float, list[Segment], bool]

class _Budget(Protocol):  # path_data.PointBudget
    def segments(self, wanted: float, already: int) -> int: ...

def translate_round(flat: list[float], dx: float, dy: float) -> list[float]: ...
def transform_round(flat: list[float], m: Matrix) -> list[float]: ...
def format_points(flat: list[float]) -> str | None: ...
def parse_path(
    d: str, arc_centre: Callable[..., tuple[float, ...] | None]
) -> list[Subpath] | None: ...
def flatten(
    subpaths: list[Subpath],
    m: Matrix,
    budget: _Budget,
    hypot: Callable[[float, float], float],
) -> list[tuple[list[float], bool]]: ...
