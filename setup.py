"""Builds parsing/_kernels.pyx, the compiled per-point loops of the SVG parser
(docs/svg-parsing.md, Speed). Everything else is in pyproject.toml.

The extension is optional: parsing/numbers.py falls back to its pure-Python loops
(same results) when it is missing, e.g. built with FLOORGATE_PURE_PYTHON=1.
"""

from __future__ import annotations

import os

from setuptools import Extension, setup


def extensions() -> list[Extension]:
    if os.environ.get("FLOORGATE_PURE_PYTHON") == "1":
        return []
    from Cython.Build import cythonize

    return cythonize([Extension("parsing._kernels", ["parsing/_kernels.pyx"])], quiet=True)


setup(ext_modules=extensions())
