"""Builds parsing/_kernels.pyx, the compiled per-point loops and path-data reader of
the SVG parser (docs/svg-parsing.md, Speed). Everything else is in pyproject.toml.

The extension is optional: parsing/geometry/numbers.py and parsing/geometry/path_data.py
fall back to their pure-Python code (same results, tests/parsing/test_kernels.py) when it
is missing, e.g. when built with FLOORGATE_PURE_PYTHON=1.
"""

from __future__ import annotations

import os
import sys

from setuptools import Extension, setup


def extensions() -> list[Extension]:
    if os.environ.get("FLOORGATE_PURE_PYTHON") == "1":
        return []
    from Cython.Build import cythonize

    # No fused multiply-add (aarch64 compilers contract a*x + b by default): the C
    # arithmetic must round exactly as Python's does.
    flags = [] if sys.platform == "win32" else ["-ffp-contract=off"]
    kernels = Extension("parsing._kernels", ["parsing/_kernels.pyx"], extra_compile_args=flags)
    built = cythonize([kernels], quiet=True)
    for extension in built:
        extension.optional = True  # no compiler: the install succeeds, on the Python loops
    return built


setup(ext_modules=extensions())
