"""Which maps' GeoJSON the tiles read (resolvers/tiles/sources.py `drawing_maps`): a map
whose every floor a map of more levels draws too is left unread."""

from __future__ import annotations

from typing import Any

from resolvers.tiles.sources import drawing_maps


def a_map(map_id: str, *floors: str | None) -> dict[str, Any]:
    return {"id": map_id, "levels": [{"uid": f"L{n}", "floor_id": f} for n, f in enumerate(floors)]}


def test_the_level_maps_of_a_stack_are_left_unread():
    stack = a_map("stack", "b1", "g", "m")
    levels = [a_map(f"level-{floor}", floor) for floor in ("b1", "g", "m")]
    assert [m["id"] for m in drawing_maps([*levels, stack])] == ["stack"]


def test_a_floor_only_one_map_draws_keeps_that_map():
    stack = a_map("stack", "b1", "g")
    annex = a_map("annex", "g", "annex-1")  # annex-1 is drawn nowhere else
    assert [m["id"] for m in drawing_maps([annex, stack])] == ["annex", "stack"]


def test_maps_of_as_many_levels_and_untagged_levels_are_kept():
    first, second = a_map("one", "g"), a_map("two", "g")  # a tie: the tiles choose by id
    untagged = a_map("plan", None)  # owns its untagged features
    ids = [m["id"] for m in drawing_maps([first, second, untagged, a_map("none")])]
    assert ids == ["one", "two", "plan", "none"]
