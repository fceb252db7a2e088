"""The compiled loops (parsing/_kernels.pyx) against their pure-Python twins in
parsing/geometry/numbers.py: same numbers, same text, same errors, on the same inputs."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from parsing.errors import SvgError
from parsing.geometry import numbers
from parsing.geometry import path_data as paths
from parsing.geometry.path_data import _parse_path_fast, arc_centre
from tests.parsing.test_path_data import EXAMPLES, number, path_data

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
    from parsing.parsed_map import document_bytes
    from parsing.svg import parse_unit_map
    from tests.parsing.test_golden import SOURCES

    data = SOURCES[name]()
    compiled = document_bytes(parse_unit_map(data))
    monkeypatch.setattr(numbers, "_kernels", None)
    monkeypatch.setattr(paths, "_kernels", None)
    assert document_bytes(parse_unit_map(data)) == compiled


def _same_path(d: str) -> None:
    compiled = kernels.parse_path(d, arc_centre)
    if compiled is not None:  # None: the Python reader decides
        assert repr(compiled) == repr(_parse_path_fast(d)), d  # repr: -0.0, NaN


@given(path_data())
@EXAMPLES
def test_path_reader(d: str) -> None:
    _same_path(d)


@given(
    st.lists(
        st.one_of(
            st.sampled_from(list("MmLlHhVvCcSsQqTtAaZz,. -+eE01\x0b")),
            number,
            st.floats(allow_nan=True, allow_infinity=True).map(repr),
        ),
        max_size=30,
    ).map(lambda parts: "M0 0" + "".join(parts))
)
@EXAMPLES
def test_path_reader_on_odd_path_data(d: str) -> None:
    _same_path(d)


def test_path_reader_takes_what_tools_write() -> None:
    for d in (
        "M0.64,-26L160.64,-26C171.64,-26 180.64,-17 180.64,-6L180.64,134Z",
        "m0,0 h160 v140 l-40,0 a25,16.667 0 0 1 -50,0 q1,2 3,4 t5,6 s1,2 3,4 z",
        "M10 10 0110 20",
        "M1e2-3.5.5 2Z",
    ):
        assert kernels.parse_path(d, arc_centre) is not None, d
        _same_path(d)


# ---------------------------------------------------------------- flattening

matrices = st.tuples(*[st.floats(min_value=-50, max_value=50, allow_nan=False)] * 4).map(
    lambda linear: (*linear, 0.0, 0.0)
) | st.sampled_from([(1.0, 0.0, 0.0, 1.0, 0.0, 0.0), (0.0, 1.0, -1.0, 0.0, 3.5, -2.0)])


def _flat_outcome(function: object, subpaths: list, m: tuple, limit: int) -> object:
    budget = paths.PointBudget(limit)
    try:
        return ("ok", repr(function(subpaths, m, budget)))  # type: ignore[operator]
    except SvgError as error:
        return ("error", error.message)


@given(path_data(), matrices, st.sampled_from([10**7, 50, 5]))
@EXAMPLES
def test_flatten(d: str, m: tuple, limit: int) -> None:
    """Same points (repr: -0.0, NaN) and the same budget refusals as the Python loop."""
    subpaths = _parse_path_fast(d)
    if subpaths is None:
        return
    compiled = _flat_outcome(kernels_flatten, subpaths, m, limit)
    assert compiled == _flat_outcome(paths.flatten_py, subpaths, m, limit), d


def kernels_flatten(subpaths: list, m: tuple, budget: paths.PointBudget) -> object:
    return kernels.flatten(subpaths, m, budget, math.hypot)


def test_flatten_of_curves_and_arcs() -> None:
    d = "M0.64,-26L160.64,-26C171.64,-26 180.64,-17 180.64,-6 A20,13.33 0 0 1 220,134 q5,9 3,4z"
    subpaths = _parse_path_fast(d)
    assert subpaths is not None
    for m in ((1.0, 0.0, 0.0, 1.0, 0.0, 0.0), (0.0, 3.0, -3.0, 0.0, 12.25, 7.0)):
        compiled = _flat_outcome(kernels_flatten, subpaths, m, 10**7)
        assert compiled[0] == "ok"
        assert compiled == _flat_outcome(paths.flatten_py, subpaths, m, 10**7)
