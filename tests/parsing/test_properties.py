"""Properties over generated input (hypothesis): determinism, transform maths against
numpy, and fuzzing (no exception but SvgError, whatever the input)."""

from __future__ import annotations

import contextlib
import math
import os

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from parsing.errors import SvgError
from parsing.geometry.numbers import format_number
from parsing.geometry.path_data import parse_path
from parsing.geometry.transform import parse_transform
from parsing.limits import SvgLimits
from parsing.parsed_map import document_bytes
from parsing.svg import parse_unit_map
from tests.examples import examples

SVG = "http://www.w3.org/2000/svg"
# FLOORGATE_FUZZ_EXAMPLES=5000 for a longer hunt; unset, 300 under `make explore` and a
# quarter of them in `make test` (tests/examples.py).
FUZZ = settings(
    max_examples=int(os.environ.get("FLOORGATE_FUZZ_EXAMPLES", examples(300))),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
SMALL_LIMITS = SvgLimits(max_bytes=200_000, max_elements=2_000, max_depth=40, max_points=50_000)


# ---------------------------------------------------------------- transforms vs numpy

finite = st.floats(min_value=-100, max_value=100, allow_nan=False, allow_infinity=False)
factor = st.floats(min_value=-5, max_value=5, allow_nan=False, allow_infinity=False)
angle = st.floats(min_value=-720, max_value=720, allow_nan=False, allow_infinity=False)
skew = st.floats(min_value=-80, max_value=80, allow_nan=False, allow_infinity=False)


def _matrix(a: float, b: float, c: float, d: float, e: float, f: float) -> np.ndarray:
    return np.array([[a, c, e], [b, d, f], [0.0, 0.0, 1.0]])


def _rotation(degrees: float, cx: float = 0.0, cy: float = 0.0) -> np.ndarray:
    r = math.radians(degrees)
    rotate = _matrix(math.cos(r), math.sin(r), -math.sin(r), math.cos(r), 0, 0)
    return _matrix(1, 0, 0, 1, cx, cy) @ rotate @ _matrix(1, 0, 0, 1, -cx, -cy)


one_transform = st.one_of(
    st.tuples(finite, finite, finite, finite, finite, finite).map(
        lambda v: (f"matrix({' '.join(map(repr, v))})", _matrix(*v))
    ),
    finite.map(lambda x: (f"translate({x!r})", _matrix(1, 0, 0, 1, x, 0))),
    st.tuples(finite, finite).map(
        lambda v: (f"translate({v[0]!r},{v[1]!r})", _matrix(1, 0, 0, 1, v[0], v[1]))
    ),
    factor.map(lambda s: (f"scale({s!r})", _matrix(s, 0, 0, s, 0, 0))),
    st.tuples(factor, factor).map(
        lambda v: (f"scale({v[0]!r} {v[1]!r})", _matrix(v[0], 0, 0, v[1], 0, 0))
    ),
    angle.map(lambda a: (f"rotate({a!r})", _rotation(a))),
    st.tuples(angle, finite, finite).map(
        lambda v: (f"rotate({v[0]!r}, {v[1]!r}, {v[2]!r})", _rotation(*v))
    ),
    skew.map(lambda a: (f"skewX({a!r})", _matrix(1, 0, math.tan(math.radians(a)), 1, 0, 0))),
    skew.map(lambda a: (f"skewY({a!r})", _matrix(1, math.tan(math.radians(a)), 0, 1, 0, 0))),
)


@given(st.lists(one_transform, min_size=0, max_size=4), st.sampled_from([" ", ",", "\n "]))
@settings(max_examples=examples(500), deadline=None)
def test_transform_list_equals_numpy_product(
    transforms: list[tuple[str, np.ndarray]], separator: str
) -> None:
    text = separator.join(text for text, _ in transforms)
    expected = np.eye(3)
    for _, matrix in transforms:
        expected = expected @ matrix
    a, b, c, d, e, f = parse_transform(text)
    assert np.allclose(_matrix(a, b, c, d, e, f), expected, rtol=1e-12, atol=1e-9)


@given(
    st.tuples(finite, finite, st.floats(0, 50), st.floats(0, 50)),
    angle,
    factor,
    factor,
    st.tuples(finite, finite),
)
@settings(max_examples=examples(300), deadline=None)
def test_rect_under_random_rotate_and_scale_matches_numpy(
    rect: tuple[float, float, float, float],
    degrees: float,
    sx: float,
    sy: float,
    offset: tuple[float, float],
) -> None:
    x, y, width, height = rect
    transform = f"translate({offset[0]!r} {offset[1]!r}) rotate({degrees!r}) scale({sx!r} {sy!r})"
    parsed = parse_unit_map(
        f'<svg xmlns="{SVG}" width="1" height="1"><g data-layer="units">'
        f'<rect data-unit-id="u" x="{x!r}" y="{y!r}" width="{width!r}" height="{height!r}" '
        f'transform="{transform}"/></g></svg>'
    )
    corners = np.array(
        [[x, y, 1], [x + width, y, 1], [x + width, y + height, 1], [x, y + height, 1]]
    ).T
    matrix = _matrix(1, 0, 0, 1, *offset) @ _rotation(degrees) @ _matrix(sx, 0, 0, sy, 0, 0)
    expected = (matrix @ corners)[:2].T
    got = np.array(parsed.units[0].points)
    assert np.abs(got - expected).max() <= 0.0005 + 1e-9
    # and the document says the same numbers
    shape = parsed.document["elements"][0]["elements"][0]["elements"][0]["shape"]
    as_text = " ".join(f"{format_number(px)},{format_number(py)}" for px, py in got)
    assert shape["points"] == as_text


# ---------------------------------------------------------------- numbers


@given(st.floats(min_value=-1e11, max_value=1e11, allow_nan=False))
def test_number_format(value: float) -> None:
    text = format_number(value)
    assert text != "-0"
    if "." in text:
        decimals = text.split(".")[1]
        assert 1 <= len(decimals) <= 3 and not decimals.endswith("0")
    assert abs(float(text) - value) <= 0.0005 + abs(value) * 1e-15


# ---------------------------------------------------------------- determinism


def _attributes(draw: st.DrawFn) -> str:
    names = draw(
        st.lists(
            st.sampled_from(
                [
                    "id",
                    "x",
                    "y",
                    "width",
                    "height",
                    "rx",
                    "r",
                    "cx",
                    "cy",
                    "points",
                    "d",
                    "transform",
                    "style",
                    "fill",
                    "class",
                    "data-unit-id",
                    "data-target-id",
                    "data-layer",
                    "data-level",
                    "data-tag-floor",
                    "data-connector",
                    "data-connector-id",
                    "x1",
                    "y2",
                    "href",
                    "data-access",
                    "viewBox",
                ]
            ),
            max_size=6,
            unique=True,
        )
    )
    values = st.one_of(
        st.sampled_from(
            [
                "0",
                "1",
                "10",
                "-5",
                "2.5",
                "units",
                "hit-areas",
                "paths",
                "level-1",
                "#a",
                "#b",
                "a",
                "b",
                "stairs",
                "elevator",
                "M0 0 L10 10 Z",
                "m0 0 a5 5 0 0 1 10 0 z",
                "0,0 10,0 10,10",
                "rotate(30) scale(2)",
                "fill:#fff;stroke:red",
                "translate(5",
                "0 0 10 10",
                "",
            ]
        ),
        st.text(st.characters(blacklist_categories=("Cs", "Cc")), max_size=8),
    )
    parts = []
    for name in names:
        value = draw(values).replace("&", "&amp;").replace("<", "&lt;").replace('"', "&quot;")
        parts.append(f'{name}="{value}"')
    return " ".join(parts)


@st.composite
def svg_documents(draw: st.DrawFn, depth: int = 0) -> str:
    tags = [
        "g",
        "rect",
        "circle",
        "ellipse",
        "line",
        "polyline",
        "polygon",
        "path",
        "text",
        "image",
        "use",
        "symbol",
        "defs",
        "title",
        "foo",
    ]

    def element(level: int) -> str:
        tag = draw(st.sampled_from(tags))
        children = ""
        if level < 4 and tag in ("g", "symbol", "defs", "text"):
            count = draw(st.integers(0, 3))
            children = "".join(element(level + 1) for _ in range(count))
        return f"<{tag} {_attributes(draw)}>{children}</{tag}>"

    body = "".join(element(0) for _ in range(draw(st.integers(0, 4))))
    return f'<svg xmlns="{SVG}" width="100" height="100">{body}</svg>'


def _outcome(data: str | bytes) -> tuple[str, bytes]:
    try:
        return ("ok", document_bytes(parse_unit_map(data, SMALL_LIMITS)))
    except SvgError as error:
        return ("error", str(error).encode())


@given(svg_documents())
@FUZZ
def test_same_input_same_output(document: str) -> None:
    assert _outcome(document) == _outcome(document)
    assert _outcome(document) == _outcome(document.encode())


# ---------------------------------------------------------------- fuzzing


@given(st.binary(max_size=2000))
@FUZZ
def test_random_bytes_only_svg_error(data: bytes) -> None:
    _outcome(data)


@given(st.text(max_size=500))
@FUZZ
def test_random_text_only_svg_error(text: str) -> None:
    _outcome(text)
    _outcome(f'<svg xmlns="{SVG}" width="1" height="1">{text}</svg>')


@given(svg_documents())
@FUZZ
def test_generated_documents_only_svg_error(document: str) -> None:
    _outcome(document)


@given(
    st.lists(
        st.one_of(
            st.sampled_from(list("MmLlHhVvCcSsQqTtAaZz,. -+eE")),
            st.floats(allow_nan=True, allow_infinity=True).map(repr),
            st.integers(-(10**30), 10**30).map(str),
        ),
        max_size=40,
    ).map(" ".join)
)
@FUZZ
def test_random_path_data_only_svg_error(d: str) -> None:
    with contextlib.suppress(SvgError):
        parse_path(d)
    document = (
        f'<svg xmlns="{SVG}" width="1" height="1"><g data-layer="units">'
        f'<path data-unit-id="u" d="{d}"/></g><g data-layer="paths"><path d="{d}"/></g></svg>'
    )
    _outcome(document)


@given(
    st.lists(
        st.sampled_from(
            [*"0123456789.,-+eE ()", "matrix", "translate", "scale", "rotate", "skewX", "inf"]
        ),
        max_size=40,
    ).map("".join)
)
@FUZZ
def test_random_transforms_only_svg_error(text: str) -> None:
    _outcome(
        f'<svg xmlns="{SVG}" width="1" height="1"><g data-layer="units">'
        f'<rect data-unit-id="u" width="1" height="1" transform="{text}"/></g></svg>'
    )


# Numbers as drawings have them (3 decimals): no 1e-205 steps that vanish when added
# to a start point, which would make the two ways of reading differ only in degeneracy.
drawn = finite.map(lambda v: round(v, 3))
relative_tail = st.lists(
    st.one_of(
        st.tuples(st.sampled_from(["l", "t"]), drawn, drawn).map(
            lambda t: f"{t[0]}{t[1]!r},{t[2]!r}"
        ),
        st.tuples(st.sampled_from(["h", "v"]), drawn).map(lambda t: f"{t[0]}{t[1]!r}"),
        st.tuples(drawn, drawn, drawn, drawn, drawn, drawn).map(
            lambda v: "c" + " ".join(map(repr, v))
        ),
        st.tuples(drawn, drawn, drawn, drawn).map(lambda v: "q" + " ".join(map(repr, v))),
        st.tuples(
            st.floats(1, 50), st.floats(1, 50), angle, st.booleans(), st.booleans(), drawn, drawn
        ).map(lambda v: f"a{v[0]!r} {v[1]!r} {v[2]!r} {int(v[3])} {int(v[4])} {v[5]!r} {v[6]!r}"),
        st.just("z"),
    ),
    min_size=1,
    max_size=6,
).map(" ".join)


@given(st.tuples(drawn, drawn), relative_tail, st.sampled_from(["m", "M"]))
@settings(max_examples=examples(300), deadline=None)
def test_relative_path_drawn_from_anywhere_is_the_same_shape(
    start: tuple[float, float], tail: str, command: str
) -> None:
    """Parsing `m x,y <relative>` from the origin and moving it (the cache's shortcut)
    gives what parsing it as written gives (a leading comma turns the shortcut off)."""

    def outline(d: str) -> tuple:
        parsed = parse_unit_map(
            f'<svg xmlns="{SVG}" width="1" height="1"><g data-layer="paths">'
            f'<path d="{d}"/></g></svg>'
        )
        return tuple(walk.points for walk in parsed.walk_lines)

    d = f"{command}{start[0]!r},{start[1]!r} {tail}"
    shortcut, as_written = outline(d), outline("," + d)
    assert len(shortcut) == len(as_written)
    for ours, theirs in zip(shortcut, as_written, strict=True):
        assert len(ours) == len(theirs)
        assert np.abs(np.array(ours) - np.array(theirs)).max() <= 0.0011
