# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Compiled twins of the per-point loops of parsing/numbers.py (same results, in C).

numbers.py uses these when this extension is built and keeps its pure-Python loops
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
