"""The parsed document: the conventions' example byte for byte, uids, roles, levels,
attributes and `style=`, `use`, what is skipped, the canvas size and the scale."""

from __future__ import annotations

import re

import orjson
import pytest

from parsing.errors import SvgError
from parsing.parsed_map import ParsedMap, document_bytes
from parsing.svg import parse_unit_map

SVG = "http://www.w3.org/2000/svg"

# docs/unit-map-svg.md, "The parsed document", verbatim but for one line break (whitespace
# between JSON tokens means nothing; the bytes compared are orjson's compact form).
CONVENTIONS_EXAMPLE = """
{"version": "1.2", "type": "application/vnd.map+json", "width": 1200, "height": 800,
 "elements": [
  {"type": "Level", "uid": "L2", "name": "Level 2", "tags": {"building": "b1", "floor": "f-2"},
   "elements": [
    {"type": "HitAreaLayer", "uid": "e3", "elements": [
      {"type": "HitArea", "uid": "e4", "target": {"id": "u-101", "type": "Unit"},
       "shape": {"type": "Polygon", "fill": "#eeeeee", "points": "10,10 110,10 110,90 10,90"}}]},
    {"type": "UnitLayer", "uid": "e5", "elements": [
      {"type": "Unit", "uid": "e6", "id": "u-101",
       "shape": {"type": "Rect", "fill": "#ffffff", "points": "10,10 110,10 110,90 10,90"}}]},
    {"type": "Layer", "uid": "walls", "name": "walls", "elements": [
      {"type": "Line", "uid": "e8", "x1": "0", "y1": "0", "x2": "1200", "y2": "0",
       "stroke": "#000", "stroke-width": "4"}]}]}]}
"""
EXAMPLE_SVG = (
    f'<svg xmlns="{SVG}" width="1200" height="800">'
    '<g id="L2" data-level="Level 2" data-tag-building="b1" data-tag-floor="f-2">'
    '<g data-layer="hit-areas"><polygon data-target-id="u-101" fill="#eeeeee" '
    'points="10,10 110,10 110,90 10,90"/></g>'
    '<g data-layer="units"><rect data-unit-id="u-101" fill="#ffffff" x="10" y="10" '
    'width="100" height="80"/></g>'
    '<g id="walls"><line x1="0" y1="0" x2="1200" y2="0" stroke="#000" stroke-width="4"/></g>'
    "</g></svg>"
)


def svg(body: str, attributes: str = 'width="100" height="100"') -> str:
    return (
        f'<svg xmlns="{SVG}" xmlns:xlink="http://www.w3.org/1999/xlink" {attributes}>{body}</svg>'
    )


def elements(parsed: ParsedMap) -> list[dict]:
    """The elements of the first level."""
    return parsed.document["elements"][0]["elements"]


def test_conventions_example_byte_for_byte() -> None:
    expected = orjson.dumps(orjson.loads(CONVENTIONS_EXAMPLE))
    assert document_bytes(parse_unit_map(EXAMPLE_SVG)) == expected
    assert document_bytes(parse_unit_map(EXAMPLE_SVG.encode())) == expected


def test_same_input_same_bytes() -> None:
    assert document_bytes(parse_unit_map(EXAMPLE_SVG)) == document_bytes(
        parse_unit_map(EXAMPLE_SVG)
    )


# ---------------------------------------------------------------- uids


def test_uids_ids_repeats_and_positions() -> None:
    parsed = parse_unit_map(
        svg(
            "<title>t</title>"  # 2
            '<g id="a">'  # 3
            '<rect id="x" width="1" height="1"/>'  # 4
            '<rect id="x" width="1" height="1"/>'  # 5
            "<defs><rect id='x'/><circle/></defs>"  # 6, 7, 8
            '<rect id="x" width="1" height="1"/>'  # 9
            '<rect width="1" height="1"/>'  # 10
            "</g>"
        )
    )
    layer = elements(parsed)[0]
    assert layer["uid"] == "a"
    # the repeat inside <defs> is skipped but takes its "~3"
    assert [child["uid"] for child in layer["elements"]] == ["x", "x~2", "x~4", "e10"]


def test_a_generated_name_that_an_element_has_as_id() -> None:
    """First in document order keeps the name; the later one gets the next free ~k."""
    parsed = parse_unit_map(
        svg('<g id="g"><rect width="1" height="1"/><rect id="e3" width="1" height="1"/></g>')
    )
    assert [child["uid"] for child in elements(parsed)[0]["elements"]] == ["e3", "e3~2"]


def test_empty_id_is_no_id() -> None:
    parsed = parse_unit_map(svg('<rect id="" width="1" height="1"/>'))
    assert elements(parsed)[0]["uid"] == "e2"


def test_use_content_uids() -> None:
    parsed = parse_unit_map(
        svg(
            '<defs><g id="tpl"><rect id="top" width="1" height="1"/><circle r="1"/></g></defs>'
            '<use id="a" href="#tpl"/><use href="#tpl" x="5"/>'
        )
    )
    first, second = elements(parsed)
    assert first["uid"] == "a"
    assert [child["uid"] for child in first["elements"]] == ["a/top", "a/e3"]
    assert second["uid"] == "e7"
    assert [child["uid"] for child in second["elements"]] == ["e7/top", "e7/e3"]


def test_use_content_uid_never_takes_an_existing_uid() -> None:
    parsed = parse_unit_map(
        svg(
            '<defs><g id="tpl"><rect id="r" width="1" height="1"/></g></defs>'
            '<rect id="a/r" width="1" height="1"/><use id="a" href="#tpl"/>'
        )
    )
    drawn = elements(parsed)[1]
    assert drawn["elements"][0]["uid"] == "a/r~2"


# ---------------------------------------------------------------- roles and levels


def test_level_from_data_level_with_tags_and_index() -> None:
    parsed = parse_unit_map(
        svg(
            '<g id="L" data-level="Floor 3" data-tag-building="b2" data-tag-floor="f-3" '
            'data-level-index="3"/>'
            '<g data-level="" data-level-index="x"/>'
        )
    )
    first, second = parsed.levels
    assert (first.uid, first.name, first.tags, first.index, first.line) == (
        "L",
        "Floor 3",
        {"building": "b2", "floor": "f-3"},
        3,
        1,
    )
    assert (second.uid, second.name, second.index) == ("e3", "e3", None)
    assert parsed.document["elements"][0] == {
        "type": "Level",
        "uid": "L",
        "name": "Floor 3",
        "tags": {"building": "b2", "floor": "f-3"},
        "elements": [],
    }


@pytest.mark.parametrize(
    ("text", "height"),
    [
        ("2", 2),
        (" -1 ", -1),  # a basement; blanks around it, as data-level-index allows
        ("+1000", 1000),
        ("-1000", -1000),
        ("1001", None),  # beyond MAX_LEVEL_HEIGHT floors: no height
        ("1.5", None),
        ("x", None),
        ("", None),
        (None, None),
    ],
)
def test_level_height_is_a_whole_number_of_floors(text: str | None, height: int | None) -> None:
    """`data-level-height` (docs/svg-parsing.md, "Level heights"): the level's height in
    floors, read like `data-level-index` within 1000 floors of 0; not in the document."""
    attribute = "" if text is None else f' data-level-height="{text}"'
    parsed = parse_unit_map(svg(f'<g id="L" data-level="L" data-level-index="4"{attribute}/>'))
    [level] = parsed.levels
    assert (level.index, level.height) == (4, height)
    assert parsed.document["elements"][0] == {
        "type": "Level",
        "uid": "L",
        "name": "L",
        "tags": {},
        "elements": [],
    }


@pytest.mark.parametrize(
    "group",
    [
        '<g id="level-7"/>',
        '<g inkscape:label="level-7" id="layer3"/>',
        '<g data-name="level-7" id="level_x5F_7"/>',
        '<g id="level_x2D_7_1_"/>',
        '<g data-layer="level-7"/>',
    ],
)
def test_level_from_layer_name(group: str) -> None:
    parsed = parse_unit_map(
        svg(
            group,
            'width="9" height="9" xmlns:inkscape="http://www.inkscape.org/namespaces/inkscape"',
        )
    )
    assert [level.name for level in parsed.levels] == ["level-7"]


@pytest.mark.parametrize(
    ("group", "kind"),
    [
        ('<g data-layer="units">', "UnitLayer"),
        ('<g id="units">', "UnitLayer"),
        ('<g id="units_2_">', "UnitLayer"),
        ('<g data-name="hit-areas" id="hit_areas">', "HitAreaLayer"),
        ('<g id="hit_x2D_areas">', "HitAreaLayer"),
        ('<g id="Units">', "Layer"),  # the role match is exact
        ('<g id="units " >', "Layer"),
        ('<g data-layer="furniture" id="units">', "Layer"),  # data-layer names it first
    ],
)
def test_layer_roles_by_name(group: str, kind: str) -> None:
    shape = '<rect data-unit-id="u" data-target-id="u" width="1" height="1"/>'
    parsed = parse_unit_map(svg(f"{group}{shape}</g>"))
    assert elements(parsed)[0]["type"] == kind


def test_layer_names() -> None:
    parsed = parse_unit_map(
        svg(
            '<g data-layer="furniture" id="f"/><g id="Layer_x5F_1_1_"/><g/>'
            '<g data-name="Ground floor" id="Ground_floor"/>'
        )
    )
    assert [(layer["uid"], layer["name"]) for layer in elements(parsed)] == [
        ("f", "furniture"),
        ("Layer_x5F_1_1_", "Layer_1"),
        ("e4", "e4"),
        ("Ground_floor", "Ground floor"),
    ]


def test_no_level_markup_is_one_implicit_level() -> None:
    parsed = parse_unit_map(
        svg(
            '<title>Annex</title><g data-layer="units"><rect data-unit-id="u" width="2" '
            'height="2"/></g><g data-layer="paths"><line x2="5"/></g>',
            'id="root" width="9" height="9"',
        )
    )
    assert [
        (level.uid, level.name, level.tags, level.index, level.line) for level in parsed.levels
    ] == [("root", "Annex", {}, None, None)]
    level = parsed.document["elements"][0]
    assert (level["type"], level["uid"], level["name"], level["tags"]) == (
        "Level",
        "root",
        "Annex",
        {},
    )
    assert parsed.units[0].level_uid == "root"
    assert parsed.walk_lines[0].level_uid == "root"


def test_implicit_level_without_title_is_named_by_its_uid() -> None:
    parsed = parse_unit_map(svg('<rect width="1" height="1"/>'))
    assert (parsed.levels[0].uid, parsed.levels[0].name) == ("e1", "e1")


def test_content_outside_levels_stays_at_the_top() -> None:
    parsed = parse_unit_map(
        svg(
            '<text x="1" y="2">Key</text><g id="L1" data-level="One"/>'
            '<g data-layer="units"><rect data-unit-id="stray" width="1" height="1"/></g>'
        )
    )
    assert [element["type"] for element in parsed.document["elements"]] == [
        "Text",
        "Level",
        "UnitLayer",
    ]
    assert parsed.units[0].level_uid is None


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            '<g data-level="A"><g data-level="B"/></g>',
            "a level cannot be inside another level (e2)",
        ),
        ('<g data-layer="units"><g id="level-2"/></g>', "a level cannot be inside a units layer"),
        (
            '<g data-layer="units"><rect width="1" height="1"/></g>',
            "needs data-unit-id (or a name)",
        ),
        ('<g data-layer="hit-areas"><rect width="1" height="1"/></g>', "needs data-target-id"),
        ('<g data-layer="units"><path data-unit-id="u" d=""/></g>', "needs an outline with points"),
    ],
)
def test_role_mistakes(body: str, message: str) -> None:
    with pytest.raises(SvgError, match=re.escape(message)) as caught:
        parse_unit_map(svg(body))
    assert caught.value.line == 1


def test_groups_inside_a_units_layer_only_gather() -> None:
    parsed = parse_unit_map(
        svg(
            '<g data-layer="units"><g transform="translate(10 0)" id="wing">'
            '<rect data-unit-id="u-1" width="2" height="2"/><g><rect id="u-2" width="1" '
            'height="1"/></g></g><text>label</text></g>'
        )
    )
    layer = elements(parsed)[0]
    assert [(child["type"], child.get("id")) for child in layer["elements"]] == [
        ("Unit", "u-1"),
        ("Unit", "u-2"),
        ("Text", None),
    ]
    assert parsed.units[0].points == ((10.0, 0.0), (12.0, 0.0), (12.0, 2.0), (10.0, 2.0))


def test_unit_and_hit_area_ids_from_object_names() -> None:
    parsed = parse_unit_map(
        svg(
            '<g id="units"><rect inkscape:label="u-1" id="rect9" width="1" height="1"/>'
            '<rect data-name="u 2" id="u_2" width="1" height="1"/>'
            '<rect id="u_x2D_3_1_" width="1" height="1"/>'
            '<rect data-unit-id="u-4" id="x" width="1" height="1"/></g>'
            '<g id="hit-areas"><rect id="u_x2D_3_2_" width="1" height="1" '
            'data-target-type="Amenity"/></g>',
            'width="9" height="9" xmlns:inkscape="http://www.inkscape.org/namespaces/inkscape"',
        )
    )
    assert [unit.id for unit in parsed.units] == ["u-1", "u 2", "u-3", "u-4"]
    hit = elements(parsed)[1]["elements"][0]
    assert hit["target"] == {"id": "u-3", "type": "Amenity"}


# ---------------------------------------------------------------- attributes


def test_shape_keeps_styling_only() -> None:
    parsed = parse_unit_map(
        svg(
            '<g data-layer="units"><rect id="r" data-unit-id="u" x="1" y="2" width="3" '
            'height="4" rx="0" transform="translate(1 1)" fill="#fff" class="c" opacity=".5" '
            'data-extra="x" stroke-miterlimit="4" sodipodi:nodetypes="cccc"/></g>',
            'width="9" height="9" xmlns:sodipodi="http://sodipodi.sourceforge.net/DTD/sodipodi-0.dtd"',
        )
    )
    assert elements(parsed)[0]["elements"][0] == {
        "type": "Unit",
        "uid": "r",
        "id": "u",
        "shape": {
            "type": "Rect",
            "fill": "#fff",
            "class": "c",
            "opacity": ".5",
            "stroke-miterlimit": "4",
            "points": "2,3 5,3 5,7 2,7",
        },
    }


def test_graphics_keep_attributes_as_written() -> None:
    parsed = parse_unit_map(
        svg(
            '<g id="l"><path id="p" d="M0 0 L1 1" transform="scale(2)" data-access="no-wheelchair" '
            'xml:space="preserve" stroke="#000"/><text x="1" y="2"> A\n <tspan>B</tspan>  </text>'
            '<rect type="weird" uid="no" text="t" width="1" height="1"/></g>'
        )
    )
    path, text, rect = elements(parsed)[0]["elements"]
    assert path == {
        "type": "Path",
        "uid": "p",
        "d": "M0 0 L1 1",
        "transform": "scale(2)",
        "data-access": "no-wheelchair",
        "stroke": "#000",
    }
    assert text == {"type": "Text", "uid": "e4", "x": "1", "y": "2", "text": "A B"}
    assert rect == {"type": "Rect", "uid": "e6", "width": "1", "height": "1"}


def test_style_wins_over_presentation_attributes() -> None:
    parsed = parse_unit_map(
        svg(
            '<g id="l"><rect fill="#000" style="fill:#fff;stroke:#111" width="1" height="1"/>'
            '<rect style="fill:#fff;stroke:#111" fill="#000" width="1" height="1"/>'
            '<rect fill="#fff" stroke="#111" width="1" height="1"/></g>'
        )
    )
    first, second, third = elements(parsed)[0]["elements"]
    assert first == {
        "type": "Rect",
        "uid": "e3",
        "fill": "#fff",
        "stroke": "#111",
        "width": "1",
        "height": "1",
    }
    assert second == {
        "type": "Rect",
        "uid": "e4",
        "fill": "#fff",
        "stroke": "#111",
        "width": "1",
        "height": "1",
    }
    assert third == {
        "type": "Rect",
        "uid": "e5",
        "fill": "#fff",
        "stroke": "#111",
        "width": "1",
        "height": "1",
    }


def test_style_declarations_parsed_like_css() -> None:
    parsed = parse_unit_map(
        svg(
            '<g id="l"><rect width="1" height="1" style="/* c */ FILL : red !important;'
            "-inkscape-font-specification:'Sans';x:5;transform:rotate(9);;"
            "font-family:'A;B', serif;mask:url(data:x;y)\"/></g>".replace('"', "'", 0)
        )
    )
    rect = elements(parsed)[0]["elements"][0]
    assert rect == {
        "type": "Rect",
        "uid": "e3",
        "width": "1",
        "height": "1",
        "fill": "red",
        "font-family": "'A;B', serif",
        "mask": "url(data:x;y)",
    }


def test_unknown_and_foreign_elements_are_skipped_but_counted() -> None:
    parsed = parse_unit_map(
        svg(
            "<metadata><rdf/></metadata><style>.a{}</style><desc/><script>x</script>"
            '<sodipodi:namedview id="nv"/><switch><rect/></switch><a><rect/></a>'
            '<symbol id="s"><rect/></symbol><svg><rect/></svg><rect width="1" height="1"/>',
            'width="9" height="9" xmlns:sodipodi="http://sodipodi.sourceforge.net/DTD/sodipodi-0.dtd"',
        )
    )
    assert elements(parsed) == [{"type": "Rect", "uid": "e16", "width": "1", "height": "1"}]


# ---------------------------------------------------------------- use


def test_use_of_a_shape_in_a_units_layer() -> None:
    parsed = parse_unit_map(
        svg(
            '<defs><rect id="studio" width="4" height="3" fill="#fff"/></defs>'
            '<g data-layer="units"><use href="#studio" x="10" y="20" data-unit-id="u-1" '
            'fill="#000" stroke="#333"/><use id="u-2" xlink:href="#studio" '
            'transform="rotate(90)"/></g>'
        )
    )
    first, second = parsed.units
    assert (first.id, first.uid) == ("u-1", "e5")
    assert first.points == ((10.0, 20.0), (14.0, 20.0), (14.0, 23.0), (10.0, 23.0))
    # the template's own fill wins (inheritance), the use's stroke fills in
    assert elements(parsed)[0]["elements"][0]["shape"] == {
        "type": "Rect",
        "fill": "#fff",
        "stroke": "#333",
        "points": "10,20 14,20 14,23 10,23",
    }
    assert (second.id, second.points) == ("u-2", ((0.0, 0.0), (0.0, 4.0), (-3.0, 4.0), (-3.0, 0.0)))


def test_use_needs_its_own_name_in_a_units_layer() -> None:
    """The template's id is shared by every instance: it is no unit id."""
    with pytest.raises(SvgError, match="needs data-unit-id"):
        parse_unit_map(
            svg(
                '<defs><rect id="studio" width="4" height="3"/></defs>'
                '<g data-layer="units"><use href="#studio"/></g>'
            )
        )


def test_use_of_a_graphic_prepends_its_placement() -> None:
    parsed = parse_unit_map(
        svg(
            '<defs><rect id="r" width="4" height="3" transform="scale(2)"/></defs>'
            '<use href="#r" x="1.5" y="-2" transform="rotate(5)"/><use href="#r"/>'
        )
    )
    first, second = elements(parsed)
    assert first["transform"] == "rotate(5) translate(1.5,-2) scale(2)"
    assert second["transform"] == "scale(2)"


def test_symbol_viewbox_maps_onto_the_use_viewport() -> None:
    parsed = parse_unit_map(
        svg(
            '<defs><symbol id="s" viewBox="0 0 10 20"><rect data-unit-id="u" width="10" '
            'height="20"/></symbol></defs><g data-layer="units"><use href="#s" x="100" '
            'width="40" height="40"/></g>'
        )
    )
    # meet: scale 2 (the smaller of 4 and 2), centred horizontally in the 40-wide viewport
    assert parsed.units[0].points == ((110.0, 0.0), (130.0, 0.0), (130.0, 40.0), (110.0, 40.0))


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ('<use href="#nowhere"/>', 'refers to "#nowhere", which is not in the SVG'),
        ("<use/>", "<use> has no href"),
        ('<g id="loop"><use href="#loop"/></g>', "refers, directly or not, to itself"),
        ('<use id="self" href="#self"/>', "refers, directly or not, to itself"),
        ('<use href="data:image/svg+xml,%3Csvg/%3E"/>', "may only refer to an element of this SVG"),
    ],
)
def test_use_mistakes(body: str, message: str) -> None:
    with pytest.raises(SvgError, match=message):
        parse_unit_map(svg(body))


# ---------------------------------------------------------------- canvas and scale


@pytest.mark.parametrize(
    ("attributes", "size"),
    [
        ('width="1200" height="800"', (1200, 800)),
        ('width="1200px" height="800.4px"', (1200, 800)),
        ('width="297mm" height="210mm" viewBox="0 0 1122 794"', (297, 210)),
        ('width="100%" height="auto" viewBox="0 0 640.5 480"', (641, 480)),
        ('viewBox="-50 -50 300,200"', (300, 200)),
        ('width="10" viewBox="0 0 300 200"', (10, 200)),
    ],
)
def test_canvas_size(attributes: str, size: tuple[int, int]) -> None:
    document = parse_unit_map(svg("", attributes)).document
    assert (document["width"], document["height"]) == size


@pytest.mark.parametrize(
    ("attributes", "message"),
    [
        ("", "needs width and height, or a viewBox"),
        ('width="10"', "needs width and height, or a viewBox"),
        ('width="wide" height="1"', "width is not a length"),
        ('width="-5" height="1"', "width is out of range"),
        ('viewBox="0 0 10"', "viewBox must be"),
        ('viewBox="0 0 -10 5"', "viewBox must be"),
        ('width="1" height="1" data-feet-per-unit="0"', "data-feet-per-unit must be positive"),
        ('width="1" height="1" data-feet-per-unit="a lot"', "data-feet-per-unit is not a number"),
    ],
)
def test_canvas_mistakes(attributes: str, message: str) -> None:
    with pytest.raises(SvgError, match=message) as caught:
        parse_unit_map(svg("", attributes))
    assert caught.value.line == 1


def test_feet_per_unit() -> None:
    assert parse_unit_map(svg("")).feet_per_unit == 1.0
    assert (
        parse_unit_map(svg("", 'width="1" height="1" data-feet-per-unit="0.25"')).feet_per_unit
        == 0.25
    )


def test_root_without_namespace_is_accepted() -> None:
    parsed = parse_unit_map(
        '<svg width="5" height="5"><g id="units"><rect id="u" width="1" height="1"/></g></svg>'
    )
    assert [unit.id for unit in parsed.units] == ["u"]


def test_str_and_bytes_agree_whatever_the_declaration_says() -> None:
    text = '<?xml version="1.0" encoding="ISO-8859-1"?>' + svg('<text x="0" y="0">Café</text>')
    from_str = parse_unit_map(text)
    from_latin1 = parse_unit_map(text.encode("latin-1"))
    assert elements(from_str)[0]["text"] == "Café"
    assert document_bytes(from_str) == document_bytes(from_latin1)
    utf16 = '<?xml version="1.0" encoding="UTF-16"?>' + svg('<text x="0" y="0">Café</text>')
    assert document_bytes(parse_unit_map(utf16.encode("utf-16"))) == document_bytes(from_str)


# ---------------------------------------------------------------- walk lines and connectors


def test_walk_lines() -> None:
    parsed = parse_unit_map(
        svg(
            '<g id="L" data-level="L"><g data-layer="paths" transform="translate(1 0)">'
            '<line x1="0" y1="0" x2="10" y2="0"/>'
            '<polyline points="0,0 0,5 5,5" data-access="no-wheelchair"/>'
            '<path d="M0 0 h4 v4 z M20 0 L30 0"/><path d="M7 7"/>'
            '<rect width="3" height="3"/><g><line x1="0" y1="1" x2="0" y2="2"/></g>'
            "</g></g>"
        )
    )
    assert [(walk.uid, walk.points, walk.access) for walk in parsed.walk_lines] == [
        ("e4", ((1.0, 0.0), (11.0, 0.0)), None),
        ("e5", ((1.0, 0.0), (1.0, 5.0), (6.0, 5.0)), "no-wheelchair"),
        ("e6", ((1.0, 0.0), (5.0, 0.0), (5.0, 4.0), (1.0, 0.0)), None),  # closed: back to start
        ("e6", ((21.0, 0.0), (31.0, 0.0)), None),
        ("e10", ((1.0, 1.0), (1.0, 2.0)), None),
    ]
    assert {walk.level_uid for walk in parsed.walk_lines} == {"L"}


def test_connectors() -> None:
    parsed = parse_unit_map(
        svg(
            '<defs><rect id="shaft" width="10" height="10"/></defs><g id="L" data-level="L">'
            '<rect x="10" y="20" width="30" height="40" data-connector="elevator" '
            'data-connector-id="A"/>'
            '<g transform="translate(100 0)" data-connector="stairs" data-connector-id="S">'
            '<line x1="0" y1="0" x2="10" y2="0"/><use href="#shaft" y="10"/></g>'
            '<text x="5" y="6" transform="translate(1 1)" data-connector="ramp" '
            'data-connector-id="R">ramp</text>'
            '<use href="#shaft" x="50" data-connector="escalator" data-connector-id="E"/></g>'
        )
    )
    assert [(c.uid, c.level_uid, c.kind, c.connector_id, c.centre) for c in parsed.connectors] == [
        ("e5", "L", "elevator", "A", (25.0, 40.0)),
        ("e6", "L", "stairs", "S", (105.0, 10.0)),
        ("e9", "L", "ramp", "R", (6.0, 7.0)),
        ("e10", "L", "escalator", "E", (55.0, 5.0)),
    ]


@pytest.mark.parametrize(
    ("marks", "message"),
    [
        ('data-connector="elevator"', "needs both data-connector and data-connector-id"),
        ('data-connector-id="A"', "needs both data-connector and data-connector-id"),
        (
            'data-connector="lift" data-connector-id="A"',
            'data-connector is "lift"; it must be one of',
        ),
    ],
)
def test_connector_mistakes(marks: str, message: str) -> None:
    with pytest.raises(SvgError, match=message):
        parse_unit_map(svg(f'<rect width="1" height="1" {marks}/>'))


def test_use_takes_the_first_element_with_the_id() -> None:
    parsed = parse_unit_map(
        svg(
            '<g id="L" data-level="L"><g data-layer="units">'
            '<rect id="t" data-unit-id="first" width="1" height="1"/>'
            '<use id="u" href="#t" x="10"/></g></g>'
            '<defs><rect id="t" width="5" height="5"/></defs>'
        )
    )
    assert [unit.points[1] for unit in parsed.units] == [(1.0, 0.0), (11.0, 0.0)]
    parsed = parse_unit_map(
        svg(
            '<defs><rect id="t" width="5" height="5"/></defs>'
            '<g data-layer="units"><use id="u" href="#t"/><rect id="t" width="1" height="1"/></g>'
        )
    )
    assert parsed.units[0].points[1] == (5.0, 0.0)


def test_use_of_a_use_keeps_both_placements() -> None:
    parsed = parse_unit_map(
        svg(
            '<defs><rect id="r" width="1" height="1"/><use id="inner" href="#r" x="5"/></defs>'
            '<g data-layer="units"><use id="outer" href="#inner" x="10" transform="scale(2)"/></g>'
            '<use href="#inner" y="3"/>'
        )
    )
    assert parsed.units[0].points[0] == (30.0, 0.0)  # scale(2) of (10 + 5, 0)
    assert parsed.units[0].id == "outer"
    drawn = elements(parsed)[1]
    assert drawn["transform"] == "translate(0,3) translate(5,0)"


@pytest.mark.parametrize(
    "xml",
    [
        "<text/>",
        "<text> a <tspan>b</tspan> c </text>",
        "<text><tspan>1</tspan><tspan x='0'>2</tspan>tail</text>",
        "<text>x<tspan>y<tspan>z</tspan>w</tspan>v</text>",
        "<text><![CDATA[<c>]]><tspan/>&amp;</text>",
    ],
)
def test_text_content_is_itertext(xml: str) -> None:
    """The text of a `<text>`: its descendants' text in order, as `itertext` gives it."""
    from lxml import etree

    from parsing.svg_elements import text_content

    el = etree.fromstring(xml)
    assert text_content(el) == "".join(el.itertext())
