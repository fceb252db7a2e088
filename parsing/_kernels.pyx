# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Compiled twins of the per-point loops of parsing/geometry/numbers.py and of the path-data
reader and flattening of parsing/geometry/path_data.py (same results, in C).

Those modules use these when this extension is built and keep their pure-Python loops
otherwise; tests/parsing/test_kernels.py holds both to the same output.
"""

from cpython.unicode cimport PyUnicode_FromStringAndSize
from libc.math cimport isfinite, rint, signbit
from libc.stdlib cimport free, malloc

cdef double LIMIT = 1e12
# Below this many thousandths a value prints exactly as an integer of thousandths.
cdef long long EXACT = 100000000000000


class OutOfRange(Exception):
    """A coordinate is not finite, or beyond the limit (numbers.py turns it into SvgError)."""


cdef inline double _round3(double value) except? -1.0:
    cdef double scaled = value * 1000.0
    if not isfinite(scaled):
        raise OutOfRange()
    cdef double rounded = rint(scaled) / 1000.0  # rint: half to even, as Python's round
    if rounded > LIMIT or rounded < -LIMIT:
        raise OutOfRange()
    if rounded == 0.0:
        return 0.0  # not -0.0: Python's round() gives the int 0
    return rounded


def translate_round(list flat, double dx, double dy):
    """`[round3(x + dx), round3(y + dy), ...]`; OutOfRange as numbers.translate_round."""
    cdef Py_ssize_t i, n = len(flat)
    if n % 2:
        raise IndexError("list index out of range")
    cdef list out = [None] * n
    for i in range(0, n, 2):
        out[i] = _round3(<double>flat[i] + dx)
        out[i + 1] = _round3(<double>flat[i + 1] + dy)
    return out


def transform_round(list flat, tuple m):
    """`round3` of each point mapped by the affine matrix `m`."""
    cdef double a = m[0], b = m[1], c = m[2], d = m[3], e = m[4], f = m[5]
    cdef double x, y
    cdef Py_ssize_t i, n = len(flat)
    if n % 2:
        raise IndexError("list index out of range")
    cdef list out = [None] * n
    for i in range(0, n, 2):
        x = flat[i]
        y = flat[i + 1]
        out[i] = _round3(a * x + c * y + e)
        out[i + 1] = _round3(b * x + d * y + f)
    return out


cdef inline Py_ssize_t _write(char *buffer, double value):
    """Write a 3-decimal `value` as "%.15g" would; -1 when it is not one (or too large)."""
    cdef double scaled = rint(value * 1000.0)
    if not (-<double>EXACT < scaled < <double>EXACT) or scaled / 1000.0 != value:
        return -1
    if value == 0.0 and signbit(value):
        return -1
    cdef long long k = <long long>scaled
    cdef Py_ssize_t length = 0
    cdef char digits[24]
    cdef int count = 0, start
    if k < 0:
        buffer[0] = b'-'
        length = 1
        k = -k
    cdef long long whole = k // 1000
    cdef int fraction = <int>(k % 1000)
    if whole == 0:
        digits[0] = b'0'
        count = 1
    while whole:
        digits[count] = <char>(48 + whole % 10)
        whole //= 10
        count += 1
    while count:
        count -= 1
        buffer[length] = digits[count]
        length += 1
    if fraction:
        buffer[length] = b'.'
        buffer[length + 1] = <char>(48 + fraction // 100)
        buffer[length + 2] = <char>(48 + fraction // 10 % 10)
        buffer[length + 3] = <char>(48 + fraction % 10)
        length += 4
        while buffer[length - 1] == b'0':
            length -= 1
    return length


def format_points(list flat):
    """`x,y x,y ...` of rounded coordinates, as numbers.format_points writes them; None
    when a value is not a 3-decimal number within 1e11 (the caller formats those)."""
    cdef Py_ssize_t i, n = len(flat), length = 0, written
    if n % 2:
        return None
    cdef char *buffer = <char *>malloc(n * 24 + 1)
    if buffer == NULL:
        raise MemoryError()
    try:
        for i in range(n):
            if i:
                buffer[length] = b' ' if i % 2 == 0 else b','
                length += 1
            written = _write(buffer + length, <double>flat[i])
            if written < 0:
                return None
            length += written
        return PyUnicode_FromStringAndSize(buffer, length)
    finally:
        free(buffer)


# ---------------------------------------------------------------- path data

from cpython.object cimport PyObject
from cpython.unicode cimport PyUnicode_AsUTF8AndSize
from libc.string cimport memcpy


cdef extern from "Python.h":
    double PyOS_string_to_double(
        const char *text, char **end, PyObject *overflow_exception
    ) except? -1.0

# Segment kinds, as in parsing/geometry/path_data.py.
DEF LINE = 0
DEF CUBIC = 1
DEF QUAD = 2
DEF ARC = 3
DEF MAX_NUMBERS = 4096  # a longer command group goes to the Python reader


cdef inline bint _separator(char ch) noexcept:
    return ch == b' ' or ch == b',' or ch == b'\t' or ch == b'\n' or ch == b'\r' or ch == b'\x0c'


cdef inline bint _digit(char ch) noexcept:
    return b'0' <= ch <= b'9'


cdef inline bint _command(char ch) noexcept:
    return ch in b"MmZzLlHhVvCcSsQqTtAa"


cdef Py_ssize_t _number(const char *text, Py_ssize_t i, Py_ssize_t end, double *value) except -2:
    """Read svgelements' number at `i` (`[-+]?[0-9]*\\.?[0-9]+([eE][-+]?[0-9]+)?`);
    the position after it, or -1 for anything the regex and float() would not read alike
    (the Python reader then decides)."""
    cdef Py_ssize_t start = i
    cdef char buffer[64]
    if i < end and (text[i] == b'-' or text[i] == b'+'):
        i += 1
    cdef Py_ssize_t whole = i
    while i < end and _digit(text[i]):
        i += 1
    if i < end and text[i] == b'.':
        if i + 1 < end and _digit(text[i + 1]):
            i += 1
            while i < end and _digit(text[i]):
                i += 1
        else:
            return -1  # "12." or "-.": the regex would leave a "." behind
    if i == whole:
        return -1  # no digits
    if i < end and (text[i] == b'e' or text[i] == b'E'):
        if i + 1 < end and _digit(text[i + 1]):
            i += 2
        elif i + 2 < end and (text[i + 1] == b'-' or text[i + 1] == b'+') and _digit(text[i + 2]):
            i += 3
        else:
            return -1  # an "e" that is not an exponent
        while i < end and _digit(text[i]):
            i += 1
    if i - start >= 63:
        return -1
    memcpy(buffer, text + start, i - start)
    buffer[i - start] = 0
    value[0] = PyOS_string_to_double(buffer, NULL, NULL)  # what float() computes
    return i


def parse_path(str d, arc_centre):
    """path_data._parse_path_fast for the path data tools write (same tuples, same floats);
    None whenever it is unsure, and the Python reader decides. `arc_centre` is
    path_data.arc_centre (one implementation of the arc maths)."""
    if not d.isascii():
        return None
    cdef Py_ssize_t length
    cdef const char *text = PyUnicode_AsUTF8AndSize(d, &length)
    cdef Py_ssize_t i = 0, j, count, k, end
    cdef double values[MAX_NUMBERS]
    cdef double x = 0.0, y = 0.0, start_x = 0.0, start_y = 0.0
    cdef double x1, y1, x2, y2, x3, y3
    cdef double control_x = 0.0, control_y = 0.0
    cdef char control_kind = 0  # b'C', b'Q' or 0
    cdef char command, upper, kind
    cdef bint relative, cubic, written
    cdef int arity
    cdef list subpaths = []
    cdef list segments = None
    while i < length and _separator(text[i]):
        i += 1
    if i == length or (text[i] != b'M' and text[i] != b'm'):
        return None
    while i < length:
        command = text[i]
        i += 1
        end = i
        while end < length and not _command(text[end]):
            end += 1
        upper = command & ~0x20  # ASCII upper case
        relative = command != upper
        if upper == b'A':
            if segments is None:
                segments = []
                subpaths.append((x, y, segments, False))
                start_x, start_y = x, y
            if i == end:
                return None
            while True:
                count = 0
                while count < 7:
                    while i < end and _separator(text[i]):
                        i += 1
                    if i == end:
                        return None
                    if count == 3 or count == 4:
                        if text[i] != b'0' and text[i] != b'1':
                            return None
                        values[count] = text[i] - 48
                        i += 1
                    else:
                        i = _number(text, i, end, &values[count])
                        if i < 0:
                            return None
                    count += 1
                while i < end and _separator(text[i]):
                    i += 1
                x2, y2 = values[5], values[6]
                if relative:
                    x2 += x
                    y2 += y
                try:
                    centre = arc_centre(
                        x, y, values[0], values[1], values[2], values[3] == 1.0,
                        values[4] == 1.0, x2, y2,
                    )
                except (ValueError, ArithmeticError):  # as the Python reader: it decides
                    return None
                if centre is None:
                    segments.append((LINE, x2, y2))
                elif centre:
                    segments.append((ARC, *centre, x2, y2))
                x, y = x2, y2
                if i == end:
                    break
            control_kind = 0
            continue
        count = 0
        while True:
            while i < end and _separator(text[i]):
                i += 1
            if i == end:
                break
            if count == MAX_NUMBERS:
                return None
            i = _number(text, i, end, &values[count])
            if i < 0:
                return None
            count += 1
        if upper == b'Z':
            if count:
                return None
            if segments is not None:
                subpaths[len(subpaths) - 1] = (start_x, start_y, segments, True)
            segments = None
            x, y, control_kind = start_x, start_y, 0
            continue
        if upper == b'M':
            if count < 2 or count % 2:
                return None
            if relative and subpaths:
                x += values[0]
                y += values[1]
            else:
                x, y = values[0], values[1]
            segments = []
            subpaths.append((x, y, segments, False))
            start_x, start_y = x, y
            control_kind = 0
            for k in range(2, count, 2):
                if relative:
                    x += values[k]
                    y += values[k + 1]
                else:
                    x, y = values[k], values[k + 1]
                segments.append((LINE, x, y))
            continue
        if upper == b'L' or upper == b'T':
            arity = 2
        elif upper == b'H' or upper == b'V':
            arity = 1
        elif upper == b'C':
            arity = 6
        else:  # S, Q
            arity = 4
        if not count or count % arity:
            return None
        if segments is None:
            segments = []
            subpaths.append((x, y, segments, False))
            start_x, start_y = x, y
        if upper == b'L':
            for k in range(0, count, 2):
                if relative:
                    x += values[k]
                    y += values[k + 1]
                else:
                    x, y = values[k], values[k + 1]
                segments.append((LINE, x, y))
            control_kind = 0
        elif upper == b'H':
            for k in range(count):
                x = x + values[k] if relative else values[k]
                segments.append((LINE, x, y))
            control_kind = 0
        elif upper == b'V':
            for k in range(count):
                y = y + values[k] if relative else values[k]
                segments.append((LINE, x, y))
            control_kind = 0
        else:  # C, S, Q, T
            cubic = upper == b'C' or upper == b'S'
            written = upper == b'C' or upper == b'Q'  # S/T mirror the last control point
            kind = b'C' if cubic else b'Q'
            for k in range(0, count, arity):
                j = k
                if written:
                    x1, y1 = values[j], values[j + 1]
                    if relative:
                        x1 += x
                        y1 += y
                    j += 2
                elif control_kind == kind:
                    x1, y1 = 2 * x - control_x, 2 * y - control_y
                else:
                    x1, y1 = x, y
                x2, y2 = values[j], values[j + 1]
                if relative:
                    x2 += x
                    y2 += y
                control_kind = kind
                if cubic:
                    x3, y3 = values[j + 2], values[j + 3]
                    if relative:
                        x3 += x
                        y3 += y
                    segments.append((CUBIC, x1, y1, x2, y2, x3, y3))
                    x, y, control_x, control_y = x3, y3, x2, y2
                else:
                    segments.append((QUAD, x1, y1, x2, y2))
                    x, y, control_x, control_y = x2, y2, x1, y1
    return subpaths


# ---------------------------------------------------------------- flattening

from libc.math cimport acos, cos, sin, sqrt, fabs, INFINITY

cdef double TOLERANCE = 0.25  # path_data.TOLERANCE
cdef double TAU = 6.283185307179586  # path_data.TAU (2 * math.pi)


cdef int _arc_points(
    list out, double a, double b, double c, double d, double e, double f,
    double cx, double cy, double rx, double ry, double cos_phi, double sin_phi,
    double theta1, double dtheta, object budget, Py_ssize_t made,
) except -1:
    """path_data.arc_points (without `full`): the inner points of an arc, same numbers."""
    cdef double ux = rx * cos_phi, uy = rx * sin_phi
    cdef double vx = -ry * sin_phi, vy = ry * cos_phi
    cdef double canvas_ux = a * ux + c * uy, canvas_uy = b * ux + d * uy
    cdef double canvas_vx = a * vx + c * vy, canvas_vy = b * vx + d * vy
    cdef double ox = a * cx + c * cy + e, oy = b * cx + d * cy + f
    # transform.max_scale of (canvas_ux, canvas_uy, canvas_vx, canvas_vy)
    cdef double total = (
        canvas_ux * canvas_ux + canvas_uy * canvas_uy + canvas_vx * canvas_vx
        + canvas_vy * canvas_vy
    )
    cdef double det = canvas_ux * canvas_vy - canvas_uy * canvas_vx
    cdef double inner = total * total - 4 * det * det
    cdef double outer = (total + sqrt(inner if inner > 0.0 else 0.0)) / 2
    cdef double radius = sqrt(outer if outer > 0.0 else 0.0)
    cdef double ratio = TOLERANCE / radius if radius > 0 else 2.0
    cdef double step = 2 * acos(1 - ratio) if ratio < 2 else TAU
    cdef double wanted = fabs(dtheta) / step if step > 0 else INFINITY
    cdef Py_ssize_t n = budget.segments(wanted, made + len(out) // 2)
    cdef Py_ssize_t i
    cdef double t, cos_t, sin_t
    for i in range(1, n):
        t = theta1 + dtheta * <double>i / <double>n
        cos_t = cos(t)
        sin_t = sin(t)
        out.append(ox + canvas_ux * cos_t + canvas_vx * sin_t)
        out.append(oy + canvas_uy * cos_t + canvas_vy * sin_t)
    return 0


def flatten(list subpaths, tuple m, budget, hypot):
    """path_data.flatten, same points and budget checks; `hypot` is math.hypot (its
    rounding, not the C library's)."""
    cdef double a = m[0], b = m[1], c = m[2], d = m[3], e = m[4], f = m[5]
    cdef double px, py, x, y, x1, y1, x2, y2, q1x, q1y, q2x, q2y, q3x, q3y
    cdef double bend, other, t, s, w0, w1, w2, w3
    cdef Py_ssize_t made = 0, n, i
    cdef int kind
    cdef list result = []
    cdef list out
    cdef tuple seg
    for start_x, start_y, segments, closed in subpaths:
        x = start_x
        y = start_y
        px = a * x + c * y + e
        py = b * x + d * y + f
        out = [px, py]
        for seg in segments:
            kind = seg[0]
            if kind == LINE:
                x = seg[1]
                y = seg[2]
                px = a * x + c * y + e
                py = b * x + d * y + f
                out.append(px)
                out.append(py)
                continue
            if kind == CUBIC:
                x1 = seg[1]
                y1 = seg[2]
                x2 = seg[3]
                y2 = seg[4]
                x = seg[5]
                y = seg[6]
                q1x = a * x1 + c * y1 + e
                q1y = b * x1 + d * y1 + f
                q2x = a * x2 + c * y2 + e
                q2y = b * x2 + d * y2 + f
                q3x = a * x + c * y + e
                q3y = b * x + d * y + f
                bend = hypot(px - 2 * q1x + q2x, py - 2 * q1y + q2y)
                other = hypot(q1x - 2 * q2x + q3x, q1y - 2 * q2y + q3y)
                if other > bend:  # max(): the first of equals (and of NaNs)
                    bend = other
                n = budget.segments(sqrt(0.75 * bend / TOLERANCE), made + len(out) // 2)
                for i in range(1, n):
                    t = <double>i / <double>n
                    s = 1 - t
                    w0 = s * s * s
                    w1 = 3 * s * s * t
                    w2 = 3 * s * t * t
                    w3 = t * t * t
                    out.append(w0 * px + w1 * q1x + w2 * q2x + w3 * q3x)
                    out.append(w0 * py + w1 * q1y + w2 * q2y + w3 * q3y)
                px = q3x
                py = q3y
            elif kind == QUAD:
                x1 = seg[1]
                y1 = seg[2]
                x = seg[3]
                y = seg[4]
                q1x = a * x1 + c * y1 + e
                q1y = b * x1 + d * y1 + f
                q2x = a * x + c * y + e
                q2y = b * x + d * y + f
                bend = hypot(px - 2 * q1x + q2x, py - 2 * q1y + q2y)
                n = budget.segments(sqrt(0.25 * bend / TOLERANCE), made + len(out) // 2)
                for i in range(1, n):
                    t = <double>i / <double>n
                    s = 1 - t
                    w0 = s * s
                    w1 = 2 * s * t
                    w2 = t * t
                    out.append(w0 * px + w1 * q1x + w2 * q2x)
                    out.append(w0 * py + w1 * q1y + w2 * q2y)
                px = q2x
                py = q2y
            else:  # ARC: cx, cy, rx, ry, cos_phi, sin_phi, theta1, dtheta, x, y
                _arc_points(
                    out, a, b, c, d, e, f, seg[1], seg[2], seg[3], seg[4], seg[5], seg[6],
                    seg[7], seg[8], budget, made,
                )
                x = seg[9]
                y = seg[10]
                px = a * x + c * y + e
                py = b * x + d * y + f
            out.append(px)
            out.append(py)
        made += len(out) // 2
        result.append((out, closed))
    return result
