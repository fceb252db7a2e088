"""The compiled loops (parsing/_kernels.pyx) against their pure-Python twins in
parsing/numbers.py: same numbers, same text, same errors, on the same inputs."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from parsing import numbers
from parsing.errors import SvgError

kernels = pytest.importorskip("parsing._kernels", reason="built without the extension")

coordinate = st.floats(min_value=-2e12, max_value=2e12, allow_nan=False) | st.sampled_from(
    [0.0, -0.0, 0.0005, -0.0005, 0.0015, 2.5e-4, -1e-4, 1e11, -99999999999.9995, 1e12]
)
special = st.sampled_from([math.inf, -math.inf, math.nan, 1e300])
flat_lists = st.lists(coordinate, max_size=20).map(lambda v: v[: len(v) // 2 * 2])


def _outcome(function: object, *args: object) -> object:
    try:
        return ("ok", function(*args))  # type: ignore[operator]
    except SvgError as error:
        return ("error", error.message)


def _same(left: object, right: object) -> bool:
    """Equal, and equal in sign for zeros (repr tells -0.0 from 0.0)."""
    return repr(left) == repr(right)


@given(flat_lists, coordinate, coordinate)
def test_translate_round(flat: list[float], dx: float, dy: float) -> None:
    compiled = _outcome(numbers.translate_round, flat, dx, dy)
    assert _same(compiled, _outcome(numbers.translate_round_py, flat, dx, dy))


@given(flat_lists, st.tuples(*[coordinate] * 6))
def test_transform_round(flat: list[float], m: tuple[float, ...]) -> None:
    compiled = _outcome(numbers.transform_round, flat, m)
    assert _same(compiled, _outcome(numbers.transform_round_py, flat, m))


@given(flat_lists, special)
def test_errors_agree(flat: list[float], bad: float) -> None:
    values = [*flat, bad, 1.0]
    assert _outcome(numbers.translate_round, values, 0.0, 0.0) == _outcome(
        numbers.translate_round_py, values, 0.0, 0.0
    )
    m = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)
    assert _outcome(numbers.transform_round, values, m) == _outcome(
        numbers.transform_round_py, values, m
    )


@given(flat_lists)
def test_format_points(flat: list[float]) -> None:
    rounded = [numbers.round3(value) for value in flat]
    assert numbers.format_points(rounded) == numbers.format_points_py(rounded)
    # Unrounded or negative-zero values are declined by the kernel, then formatted alike.
    assert numbers.format_points(flat) == numbers.format_points_py(flat)


@pytest.mark.parametrize("name", ["transforms", "elements", "example", "demo-stack"])
def test_documents_without_the_kernels(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A whole document parsed with and without the extension: the same bytes."""
    from parsing.svg import document_bytes, parse_unit_map
    from tests.parsing.test_golden import SOURCES

    data = SOURCES[name]()
    compiled = document_bytes(parse_unit_map(data))
    monkeypatch.setattr(numbers, "_kernels", None)
    assert document_bytes(parse_unit_map(data)) == compiled
