"""How many examples a property test draws: all of them under `make explore`, fewer in `make test`.

`make test` draws a fixed, derandomized set (the "repeatable" profile, tests/conftest.py);
where the examples are expensive, a test asks `examples(n)` for its `max_examples`, so
`make test` runs a quarter of them (at least 10) while `make explore`
(HYPOTHESIS_PROFILE=explore) still draws the full count, new ones each run. The cases that
matter (edge cases, each kind) are pinned with `@example(...)` beside it.
"""

import os


def examples(n: int) -> int:
    """`n` under `make explore`, a quarter of it (at least 10, at most `n`) otherwise."""
    if os.environ.get("HYPOTHESIS_PROFILE") == "explore":
        return n
    return min(n, max(10, n // 4))
