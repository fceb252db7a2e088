"""The fast path-data reader against svgelements (the oracle): on any path data it
accepts, the same subpaths, segments and flattened points as `parse_path_svgelements`;
on well-formed path data as tools write it, it must accept (or it would not be fast)."""

from __future__ import annotations

import contextlib
import os

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from parsing.errors import SvgError
from parsing.geometry.path_data import (
    PointBudget,
    _parse_path_fast,
    flatten,
    parse_path,
    parse_path_svgelements,
)
from tests.examples import examples

# FLOORGATE_FUZZ_EXAMPLES for a longer hunt; unset, 500 under `make explore` and a quarter
# of them in `make test` (tests/examples.py).
EXAMPLES = settings(
    max_examples=int(os.environ.get("FLOORGATE_FUZZ_EXAMPLES", examples(500))),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
MATRIX = (1.5, 0.25, -0.5, 2.0, 10.0, -20.0)

# Numbers as SVG writes them: signs, leading/trailing digits, exponents.
number = st.one_of(
    st.integers(-2000, 2000).map(str),
    st.floats(-2000, 2000, allow_nan=False, allow_infinity=False).map(lambda v: f"{v:.3f}"),
    st.floats(-2000, 2000, allow_nan=False, allow_infinity=False).map(lambda v: f"{v:.2g}"),
    st.sampled_from([".5", "-.5", "+3", "0", "-0", "1e2", "2.5E-1", "007", "+.25e+1"]),
)
separator = st.sampled_from(["", " ", ",", " , ", "\n", "\t", "  ", ", "])
flag = st.sampled_from(["0", "1"])
ARITY = {"M": 2, "L": 2, "T": 2, "H": 1, "V": 1, "C": 6, "S": 4, "Q": 4, "Z": 0}


def _join(parts: list[str], seps: list[str]) -> str:
    """Numbers with the drawn separators; two numbers with no separator between them
    only where the grammar keeps them apart (the second starts with a sign)."""
    out = ""
    for index, part in enumerate(parts):
        sep = seps[index % len(seps)]
        if out and not sep and out[-1] not in "MmLlHhVvCcSsQqTtAaZz" and part[0] not in "-+":
            sep = " "
        out += sep + part
    return out


@st.composite
def path_data(draw: st.DrawFn) -> str:
    parts: list[str] = [draw(st.sampled_from("Mm"))]
    parts += [draw(number), draw(number)]
    for _ in range(draw(st.integers(0, 12))):
        command = draw(st.sampled_from("MmLlTtHhVvCcSsQqAaZz"))
        parts.append(command)
        upper = command.upper()
        repeats = 0 if upper == "Z" else draw(st.integers(1, 3))
        for _ in range(repeats):
            if upper == "A":
                parts += [draw(number), draw(number), draw(number)]
                if draw(st.booleans()):  # compact flags: `0110` is flags 0 and 1, then 10
                    parts.append(draw(flag) + draw(flag) + draw(number).lstrip("+-"))
                else:
                    parts += [draw(flag), draw(flag), draw(number)]
                parts.append(draw(number))
            else:
                parts += [draw(number) for _ in range(ARITY[upper])]
    seps = draw(st.lists(separator, min_size=1, max_size=5))
    text = _join(parts, seps)
    return draw(st.sampled_from(["", " ", "\n"])) + text + draw(st.sampled_from(["", " ", ","]))


def _flattened(subpaths: list) -> object:
    """The flattened polylines, or the error flattening gives (degenerate arcs)."""
    try:
        return flatten(subpaths, MATRIX, PointBudget(10**7))
    except SvgError as error:
        return error.message


def _same(d: str) -> None:
    fast = _parse_path_fast(d)
    try:
        expected = parse_path_svgelements(d)
    except SvgError:
        assert fast is None, d
        return
    if fast is None:
        return
    # repr: NaN equals NaN, and -0.0 differs from 0.0
    assert repr(fast) == repr(expected), d
    assert repr(_flattened(fast)) == repr(_flattened(expected)), d


@given(path_data())
@EXAMPLES
@example("M0 0a10 10 0 0110 10")
@example("m5,5 10,0 0,10 -10,0z l3 3")
@example("M0 0 C1 2 3 4 5 6 7 8 9 10 11 12 S1 1 2 2 T4 4 q1 1 2 2 t3 3 z m1 1")
@example("M0-1.5.5-2e1 h1 2 3 v-1-2")
def test_fast_reader_gives_what_svgelements_gives(d: str) -> None:
    _same(d)


@given(path_data())
@EXAMPLES
def test_fast_reader_accepts_well_formed_path_data(d: str) -> None:
    if d.lstrip(" \n,")[:1] in "Mm":
        with contextlib.suppress(SvgError):
            parse_path_svgelements(d)  # only data svgelements reads without error
            assert _parse_path_fast(d) is not None, d


@given(
    st.lists(
        st.one_of(
            st.sampled_from(list("MmLlHhVvCcSsQqTtAaZz,. -+eE01")),
            number,
            st.floats(allow_nan=True, allow_infinity=True).map(repr),
        ),
        max_size=30,
    ).map(lambda parts: "M0 0" + "".join(parts))
)
@EXAMPLES
def test_fast_reader_on_odd_path_data(d: str) -> None:
    _same(d)


def test_compact_arc_flags_and_implicit_repeats() -> None:
    for d in (
        "M0 0a10 10 0 0110 10",
        "m5,5 10,0 0,10 -10,0z l3 3",
        "M0 0 C1 2 3 4 5 6 7 8 9 10 11 12 S1 1 2 2 T4 4 q1 1 2 2 t3 3 z m1 1",
        "M0-1.5.5-2e1 h1 2 3 v-1-2",
    ):
        assert _parse_path_fast(d) is not None, d
        assert parse_path(d) == parse_path_svgelements(d)
