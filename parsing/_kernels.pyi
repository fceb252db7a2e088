"""Types of the compiled loops in parsing/_kernels.pyx, for the type checker (a built
extension has no annotations it can read). Their pure-Python twins, in
parsing/geometry/numbers.py and path_data.py, are the reference."""

from collections.abc import Callable
from typing import Any

class OutOfRange(Exception): ...

Matrix = tuple[float, float, float, float, float, float]

def translate_round(flat: list[float], dx: float, dy: float) -> list[float]: ...
def transform_round(flat: list[float], m: Matrix) -> list[float]: ...
def format_points(flat: list[float]) -> str | None: ...
def parse_path(
    d: str, arc_centre: Callable[..., Any]
) -> list[tuple[float, float, list[Any], bool]] | None: ...
def flatten(
    subpaths: list[tuple[float, float, list[Any], bool]],
    m: Matrix,
    budget: Any,
    hypot: Callable[[float, float], float],
) -> list[tuple[list[float], bool]]: ...
