"""Issue 67, point 3: the ends of pages kept per list and version (pure: no database)."""

from __future__ import annotations

from storage.cache.page_bounds import BOUND_BYTES, LIST_BYTES, PageBounds, Start


def test_a_page_starts_after_the_nearest_end_kept_for_the_same_version():
    bounds = PageBounds()
    assert bounds.start(b"units", (1, 1), 3, 10) == Start(None, 20)  # nothing kept: offset
    bounds.keep(b"units", (1, 1), 1, "u010")
    bounds.keep(b"units", (1, 1), 2, "u020")
    assert bounds.start(b"units", (1, 1), 3, 10) == Start("u020", 0)
    assert bounds.start(b"units", (1, 1), 5, 10) == Start("u020", 20)  # two pages between
    assert bounds.start(b"units", (1, 1), 2, 10) == Start("u010", 0)
    assert bounds.start(b"units", (1, 1), 1, 10) == Start(None, 0)
    assert bounds.start(b"units", (1, 2), 3, 10) == Start(None, 20)  # the data changed
    assert bounds.start(b"floors", (1, 1), 3, 10) == Start(None, 20)  # another list
    assert bounds.hits == 3


def test_a_new_version_forgets_the_old_ends_and_ids_not_strings_are_not_kept():
    bounds = PageBounds()
    bounds.keep(b"units", (1, 1), 1, "u010")
    bounds.keep(b"units", (1, 2), 2, "u020")
    assert (bounds.bounds, bounds.start(b"units", (1, 2), 2, 10)) == (1, Start(None, 10))
    bounds.keep(b"units", (1, 2), 3, 30)  # a number: "after" it would find no string
    assert bounds.bounds == 1
    assert bounds.bytes == LIST_BYTES + BOUND_BYTES + 4


def test_past_its_bounds_the_least_recently_used_lists_go():
    bounds = PageBounds(max_bounds=4)
    for name in (b"a", b"b"):
        bounds.keep(name, 0, 1, "x")
        bounds.keep(name, 0, 2, "y")
    assert bounds.start(b"a", 0, 3, 10).after == "y"  # used: b is now the oldest
    bounds.keep(b"c", 0, 1, "z")
    assert bounds.start(b"b", 0, 3, 10) == Start(None, 20)
    assert bounds.start(b"a", 0, 3, 10).after == "y"
    assert bounds.bounds == 3
    by_bytes = PageBounds(max_bytes=LIST_BYTES + BOUND_BYTES + 1000)
    by_bytes.keep(b"a", 0, 1, "é" * 400)  # 800 bytes of UTF-8
    by_bytes.keep(b"b", 0, 1, "é" * 400)
    assert (by_bytes.bounds, by_bytes.start(b"a", 0, 2, 1)) == (1, Start(None, 1))
