"""One walk over a unit-map SVG tree in document order (`MapReader`): it builds the
parsed document and, on the side, the levels, unit outlines, walk lines and connectors
in canvas coordinates (docs/svg-parsing.md)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from lxml import etree

from parsing.attributes import (
    INKSCAPE_LABEL,
    XLINK_HREF,
    object_name,
    parse_style,
)
from parsing.canvas import canvas_size, feet_per_unit, viewbox_matrix
from parsing.errors import Stop, Stopped, SvgError
from parsing.geometry.holes import holes_of
from parsing.geometry.numbers import (
    format_points,
    parse_length,
    round3,
)
from parsing.geometry.outline import Outliner
from parsing.geometry.path_data import PointBudget, Polyline
from parsing.geometry.transform import IDENTITY, Matrix, multiply, parse_transform, translation
from parsing.limits import SvgLimits
from parsing.parsed_map import MEDIA_TYPE, Connector, LevelInfo, ParsedMap, UnitShape, WalkLine
from parsing.safety import depth_limit, is_local_reference
from parsing.svg_elements import (
    CONNECTOR_KINDS,
    DOCUMENT_VERSION,
    HIT_AREAS,
    KINDS,
    LEVEL_PREFIX,
    NOT_GRAPHIC,
    NOT_GROUP_STYLE,
    NOT_SHAPE_STYLE,
    PATHS,
    SHAPES,
    TYPE_NAMES,
    UNITS,
    USE_OWN,
    WALKABLE,
    At,
    Via,
    external,
    level_height,
    level_index,
    merge,
    ring,
    text_content,
    title,
)
from parsing.uids import UidScope


class MapReader:
    """State of one parse: limits, uids, caches and what the walk collects."""

    def __init__(
        self, root: etree._Element, limits: SvgLimits, element_count: int, stop: Stop | None
    ) -> None:
        self.root = root
        self.stop = stop
        self.limits = limits
        self.max_depth = depth_limit(limits)
        self.element_count = element_count  # the document's, then those each `use` draws
        self.budget = PointBudget(limits.max_points)
        self.outliner = Outliner(self.budget)
        self.source = UidScope(set())
        self.levels: list[LevelInfo] = []
        self.units: list[UnitShape] = []
        self.walk_lines: list[WalkLine] = []
        self.connectors: list[Connector] = []
        self._transforms: dict[str, Matrix] = {}
        self._styles: dict[str, tuple[tuple[str, str], ...]] = {}
        self._styling: dict[tuple[str, ...], tuple[str, ...]] = {}  # attribute names -> style
        self._group_styling: dict[tuple[str, ...], tuple[str, ...]] = {}  # the same, groups
        self._drawn: dict[etree._Element, dict[str, str]] = {}  # written attributes of use targets
        # Elements by id for `use`: those of skipped subtrees (defs, symbols: where
        # templates live) as the walk passes them; all of them once a `use` needs another.
        self._by_id: dict[str, etree._Element] = {}
        self._by_id_complete = False
        self._expanding: list[etree._Element] = []  # `use` targets being drawn (cycles)
        self._sizes: dict[etree._Element, int] = {}

    # ---------------------------------------------------------------- the document

    def read(self) -> ParsedMap:
        root = self.root
        width, height = canvas_size(root)
        scale = feet_per_unit(root)
        attributes = self._written(root)
        root_uid = self.source.next(attributes.get("id"))
        href = attributes.get("href")
        if href is not None and not is_local_reference(href):
            raise external(root, href)
        transform = attributes.get("transform")
        m = self._transform(transform) if transform else IDENTITY
        elements: list[dict[str, Any]] = []
        at = At(elements, m, None, None, 2, self.source, None)
        for child in root:
            self._element(child, at)
        if not self.levels:
            elements = [self._implicit_level(root_uid, elements)]
        document = {
            "version": DOCUMENT_VERSION,
            "type": MEDIA_TYPE,
            "width": width,
            "height": height,
            "elements": elements,
        }
        return ParsedMap(
            document=document,
            feet_per_unit=scale,
            levels=tuple(self.levels),
            units=tuple(self.units),
            walk_lines=tuple(self.walk_lines),
            connectors=tuple(self.connectors),
        )

    def _implicit_level(self, uid: str, elements: list[dict[str, Any]]) -> dict[str, Any]:
        """No level markup: everything is one level, with the root's uid, named by the
        root's <title> (else its uid)."""
        name = title(self.root) or uid
        self.levels.append(LevelInfo(uid=uid, name=name, tags={}, index=None, line=None))
        self.units = [replace(unit, level_uid=uid) for unit in self.units]
        self.walk_lines = [replace(walk, level_uid=uid) for walk in self.walk_lines]
        self.connectors = [replace(connector, level_uid=uid) for connector in self.connectors]
        return {"type": "Level", "uid": uid, "name": name, "tags": {}, "elements": elements}

    # ---------------------------------------------------------------- the walk

    def _element(self, el: etree._Element, at: At) -> None:
        """Add what `el` becomes to `at.out`: nothing, one element, or a group's content."""
        if self.stop is not None and self.stop.is_set():
            raise Stopped
        kind = KINDS.get(el.tag)
        scope, via = at.scope, at.via
        if kind is None or (kind == "symbol" and via is None):
            self._skip(el, scope)  # unknown, foreign, or only drawn through a use
            return
        attributes: dict[str, str] | None
        if scope is self.source:
            attributes = dict(el.items())  # `_written`, its common case inline
            if "style" in attributes or "{" in "".join(attributes):
                attributes = self._written(el)
            uid = self.source.next(attributes.get("id"))
            href = attributes.get("href")
            if href is not None and not is_local_reference(href):
                raise external(el, href)
        else:  # drawn by a use: the same elements, many times
            attributes = self._drawn.get(el)
            if attributes is None:
                attributes = self._drawn[el] = self._written(el)
            if via is not None:
                uid = via.uid
                attributes = merge(via.attributes, attributes)
            else:
                uid = scope.next(attributes.get("id"))
        try:
            if at.depth > self.max_depth:
                raise SvgError(f"elements nest too deeply (more than {self.max_depth} levels)")
            if kind in SHAPES:
                self._shape(el, kind, uid, attributes, at)
                if len(el):
                    self._skip(el, scope, itself=False)
            elif kind == "g" or kind == "symbol":
                self._group(el, kind, uid, attributes, at)
            elif kind == "use":
                if len(el):
                    self._skip(el, scope, itself=False)
                self._use(el, uid, attributes, at)
            else:
                self._text_or_image(el, kind, uid, attributes, at)
                if len(el):
                    self._skip(el, scope, itself=False)
        except SvgError as error:
            if error.line is not None:
                raise
            line = (via.instance if via is not None else el).sourceline
            raise SvgError(f"<{kind}> {uid}: {error.message}", line) from None

    def _skip(self, el: etree._Element, scope: UidScope, itself: bool = True) -> None:
        """A subtree that draws nothing still counts: positions, ids, references
        (`itself` False: only what is inside `el`)."""
        source = scope is self.source
        if itself:
            if not isinstance(el.tag, str):
                return  # not an element (the parser drops comments and PIs anyway)
            elements = el.iter(etree.Element) if len(el) else (el,)
        else:
            elements = el.iterdescendants(etree.Element)
        for element in elements:
            element_id = element.get("id")
            if source and element_id and element_id not in scope.names:
                # the first element of the document with this id: a `use` may want it
                self._by_id[element_id] = element
            scope.skip(element_id)
            if source:
                for href in (element.get("href"), element.get(XLINK_HREF)):
                    if href is not None and not is_local_reference(href):
                        raise external(element, href)

    # ---------------------------------------------------------------- groups

    def _group(
        self, el: etree._Element, kind: str, uid: str, attributes: dict[str, str], at: At
    ) -> None:
        m, level_uid, role, via = at.m, at.level_uid, at.role, at.via
        transform = attributes.get("transform")
        if transform:
            m = multiply(m, self._transform(transform))
        if kind == "symbol":
            m = multiply(
                m,
                viewbox_matrix(
                    attributes.get("viewBox"),
                    attributes.get("preserveAspectRatio"),
                    via.width if via and via.width is not None else attributes.get("width"),
                    via.height if via and via.height is not None else attributes.get("height"),
                ),
            )
        data_level = attributes.get("data-level")
        name = attributes.get("data-layer") or self._object_name(el, via, template=True)
        is_level = data_level is not None or (name is not None and name.startswith(LEVEL_PREFIX))
        if "data-connector" in attributes or "data-connector-id" in attributes:
            flat: list[float] = []
            self._collect_geometry(el, m, flat, at.depth)
            self._connector(uid, attributes, flat, level_uid)
        node: dict[str, Any] | None
        if role in (UNITS, HIT_AREAS):
            if is_level:
                raise SvgError(f"a level cannot be inside a {role} layer")
            # A group inside a units/hit-areas layer only gathers shapes: its transform
            # applies, it adds no element of its own.
            node, children, child_level, child_role = None, at.out, level_uid, role
        elif is_level:
            if level_uid is not None:
                raise SvgError(f"a level cannot be inside another level ({level_uid})")
            level = LevelInfo(
                uid=uid,
                name=data_level or name or uid,
                tags={
                    key[9:]: value
                    for key, value in attributes.items()
                    if key.startswith("data-tag-") and len(key) > 9
                },
                index=level_index(attributes.get("data-level-index")),
                line=(via.instance if via is not None else el).sourceline,
                height=level_height(attributes.get("data-level-height")),
            )
            self.levels.append(level)
            children = []
            node = {"type": "Level", "uid": uid, "name": level.name, "tags": dict(level.tags)}
            child_level, child_role = uid, None
        elif name in (HIT_AREAS, UNITS):
            children = []
            node = {"type": "HitAreaLayer" if name == HIT_AREAS else "UnitLayer", "uid": uid}
            child_level, child_role = level_uid, name
        else:
            children = []
            node = {"type": "Layer", "uid": uid, "name": name or uid}
            child_level, child_role = level_uid, PATHS if name == PATHS or role == PATHS else None
        if node is not None:
            # The group's paint, before its elements (docs/svg-parsing.md, "Group paint").
            names = tuple(attributes)
            styling = self._group_styling.get(names)
            if styling is None:
                styling = self._group_styling[names] = tuple(
                    key for key in names if key not in NOT_GROUP_STYLE and key[:5] != "data-"
                )
            for key in styling:
                node[key] = attributes[key]
            node["elements"] = children
        # The children, inline rather than through a helper: one stack frame less per
        # level of nesting (deep documents, and `use` chains, stay far from the limit).
        inside = At(children, m, child_level, child_role, at.depth + 1, at.scope, None)
        element = self._element
        for child in el:
            element(child, inside)
        if node is not None:
            at.out.append(node)

    def _object_name(
        self, el: etree._Element, via: Via | None, template: bool = False
    ) -> str | None:
        """Inkscape label, data-name, id. Drawn through a `use`, the name is the use's:
        every instance of a template would otherwise share the template's id. With
        `template` (a layer's name), the template's name serves when the use has none."""
        if via is not None:
            own = via.instance
            name = object_name(own.get(INKSCAPE_LABEL), own.get("data-name"), own.get("id"))
            if name or not template:
                return name
        return object_name(el.get(INKSCAPE_LABEL), el.get("data-name"), el.get("id"))

    # ---------------------------------------------------------------- use

    def _use(self, el: etree._Element, uid: str, attributes: dict[str, str], at: At) -> None:
        """Draw the referenced element in place of the use, as SVG's shadow tree does
        (`at.via`: the use drawing this one, when a use refers to a use)."""
        target = self._drawn_target(attributes.get("href"))
        m = at.m
        own_transform = attributes.get("transform")
        if own_transform:
            m = multiply(m, self._transform(own_transform))
        x = parse_length(attributes.get("x"), "x")
        y = parse_length(attributes.get("y"), "y")
        if x or y:
            m = multiply(m, translation(x, y))
        width, height = attributes.get("width"), attributes.get("height")
        via = Via(
            uid,
            {key: value for key, value in attributes.items() if key not in USE_OWN},
            el,
            own_transform,
            x,
            y,
            parse_length(width, "width") if width is not None else None,
            parse_length(height, "height") if height is not None else None,
            at.via,
        )
        scope = UidScope(self.source.taken, prefix=uid + "/", position=1)
        self._expanding.append(target)
        try:
            self._element(target, At(at.out, m, at.level_uid, at.role, at.depth, scope, via))
        finally:
            self._expanding.pop()

    def _use_target(self, href: str | None) -> etree._Element:
        """The element a use refers to, unless that use is drawing it already (a cycle)."""
        reference = (href or "").strip()
        if not reference.startswith("#") or len(reference) < 2:
            if not reference:
                raise SvgError("<use> has no href")
            raise SvgError('<use> may only refer to an element of this SVG (href="#id")')
        element_id = reference[1:]
        target = self._by_id.get(element_id)
        if target is None and not self._by_id_complete:
            # Not in a skipped subtree seen so far: index every id of the document once
            # (the first element with an id wins, in document order).
            self._by_id_complete = True
            by_id: dict[str, etree._Element] = {}
            for element in self.root.iter(etree.Element):
                key = element.get("id")
                if key and key not in by_id:
                    by_id[key] = element
            self._by_id = by_id
            target = by_id.get(element_id)
        if target is None:
            raise SvgError(f'<use> refers to "{reference[:80]}", which is not in the SVG')
        if target in self._expanding:
            raise SvgError("<use> refers, directly or not, to itself")
        return target

    # ---------------------------------------------------------------- shapes

    def _shape(
        self, el: etree._Element, kind: str, uid: str, attributes: dict[str, str], at: At
    ) -> None:
        out, m, level_uid, role, via = at.out, at.m, at.level_uid, at.role, at.via
        transform = attributes.get("transform")
        if transform:
            m = multiply(m, self._transform(transform))
        polylines: list[Polyline] | None = None
        if role in (UNITS, HIT_AREAS):
            polylines = self.outliner.outlines(kind, attributes, m)
            flat = ring(polylines, kind)
            if not flat:
                raise SvgError("a unit or hit-area shape needs an outline with points")
            names = tuple(attributes)
            styling = self._styling.get(names)
            if styling is None:
                styling = self._styling[names] = tuple(
                    key for key in names if key not in NOT_SHAPE_STYLE and key[:5] != "data-"
                )
            shape: dict[str, Any] = {"type": TYPE_NAMES[kind]}
            for key in styling:
                shape[key] = attributes[key]
            shape["points"] = format_points(flat)
            holes = holes_of(polylines, flat, attributes.get("fill-rule"))
            if holes:
                shape["holes"] = [format_points(hole) for hole in holes]
            if role == UNITS:
                unit_id = attributes.get("data-unit-id") or self._object_name(el, via)
                if not unit_id:
                    raise SvgError("a shape in a units layer needs data-unit-id (or a name)")
                points = tuple(zip(flat[0::2], flat[1::2], strict=True))
                line = (via.instance if via is not None else el).sourceline
                unit = UnitShape(unit_id, uid, level_uid, points, line)
                if holes:
                    pairs = (tuple(zip(h[0::2], h[1::2], strict=True)) for h in holes)
                    unit = replace(unit, holes=tuple(pairs))
                self.units.append(unit)
                out.append({"type": "Unit", "uid": uid, "id": unit_id, "shape": shape})
            else:
                target_id = attributes.get("data-target-id") or self._object_name(el, via)
                if not target_id:
                    raise SvgError("a shape in a hit-areas layer needs data-target-id (or a name)")
                target = {"id": target_id, "type": attributes.get("data-target-type") or "Unit"}
                out.append({"type": "HitArea", "uid": uid, "target": target, "shape": shape})
        else:
            out.append(self._graphic(kind, uid, attributes, via))
            if role == PATHS and kind in WALKABLE:
                polylines = self.outliner.outlines(kind, attributes, m)
                access = attributes.get("data-access")
                for coords, closed in polylines:
                    if closed and coords[:2] != coords[-2:]:
                        coords = [*coords, coords[0], coords[1]]
                    if len(coords) >= 4:
                        points = tuple(zip(coords[0::2], coords[1::2], strict=True))
                        self.walk_lines.append(WalkLine(uid, level_uid, points, access))
        if "data-connector" in attributes or "data-connector-id" in attributes:
            if polylines is None:
                polylines = self.outliner.outlines(kind, attributes, m)
            flat = [value for coords, _ in polylines for value in coords]
            self._connector(uid, attributes, flat, level_uid)

    # ---------------------------------------------------------------- text, image

    def _text_or_image(
        self, el: etree._Element, kind: str, uid: str, attributes: dict[str, str], at: At
    ) -> None:
        graphic = self._graphic(kind, uid, attributes, at.via)
        if kind == "text":
            graphic["text"] = " ".join(text_content(el).split())
        at.out.append(graphic)
        if "data-connector" in attributes or "data-connector-id" in attributes:
            m = at.m
            transform = attributes.get("transform")
            if transform:
                m = multiply(m, self._transform(transform))
            polylines = self.outliner.outlines(kind, attributes, m)
            flat = [value for coords, _ in polylines for value in coords]
            self._connector(uid, attributes, flat, at.level_uid)

    def _graphic(
        self, kind: str, uid: str, attributes: dict[str, str], via: Via | None
    ) -> dict[str, Any]:
        """A graphic element in a layer: its attributes as written (after `style=`)."""
        graphic: dict[str, Any] = {"type": TYPE_NAMES[kind], "uid": uid}
        if "type" in attributes or "uid" in attributes or "text" in attributes:
            for key, value in attributes.items():
                if key not in NOT_GRAPHIC:
                    graphic[key] = value
        else:
            graphic.update(attributes)
            graphic.pop("id", None)
        if via is not None:
            placement = via.placement()
            if placement:
                own = graphic.get("transform")
                graphic["transform"] = f"{placement} {own}" if own else placement
        return graphic

    # ---------------------------------------------------------------- connectors

    def _connector(
        self, uid: str, attributes: dict[str, str], flat: list[float], level_uid: str | None
    ) -> None:
        kind = attributes.get("data-connector")
        connector_id = attributes.get("data-connector-id")
        if not kind or not connector_id:
            raise SvgError("a connector needs both data-connector and data-connector-id")
        if kind not in CONNECTOR_KINDS:
            raise SvgError(
                f'data-connector is "{kind[:40]}"; it must be one of {", ".join(CONNECTOR_KINDS)}'
            )
        if not flat:
            raise SvgError("a connector needs geometry (its centre is that of its bounding box)")
        xs, ys = flat[0::2], flat[1::2]
        centre = (round3((min(xs) + max(xs)) / 2), round3((min(ys) + max(ys)) / 2))
        self.connectors.append(Connector(uid, level_uid, kind, connector_id, centre))

    def _collect_geometry(
        self, el: etree._Element, m: Matrix, flat: list[float], depth: int
    ) -> None:
        """Canvas points of everything a group draws: a group connector's box."""
        for child in el:
            kind = KINDS.get(child.tag)
            if kind is None or kind == "symbol":
                continue
            if depth + 1 > self.max_depth:
                raise SvgError(f"elements nest too deeply (more than {self.max_depth} levels)")
            attributes = self._written(child)
            child_m = m
            transform = attributes.get("transform")
            if transform:
                child_m = multiply(m, self._transform(transform))
            if kind == "g":
                self._collect_geometry(child, child_m, flat, depth + 1)
            elif kind == "use":
                self._collect_use_geometry(attributes, child_m, flat, depth + 1)
            else:
                for coords, _ in self.outliner.outlines(kind, attributes, child_m):
                    flat.extend(coords)

    def _drawn_target(self, href: str | None) -> etree._Element:
        """A use's target, counted against the element limit each time it is drawn
        (or walked for a connector's box), so chains of uses cannot grow unbounded."""
        target = self._use_target(href)
        size = self._sizes.get(target)
        if size is None:
            size = self._sizes[target] = sum(1 for _ in target.iter(etree.Element))
        self.element_count += size
        if self.element_count > self.limits.max_elements:
            raise SvgError(
                f"drawing <use>s passes the limit of {self.limits.max_elements} elements"
            )
        return target

    def _collect_use_geometry(
        self, attributes: dict[str, str], m: Matrix, flat: list[float], depth: int
    ) -> None:
        target = self._drawn_target(attributes.get("href"))
        x = parse_length(attributes.get("x"), "x")
        y = parse_length(attributes.get("y"), "y")
        m = multiply(m, translation(x, y))
        kind = KINDS.get(target.tag)
        if kind is None:
            return
        self._expanding.append(target)
        try:
            if kind in ("g", "symbol"):
                own = target.get("transform")
                if own:
                    m = multiply(m, self._transform(own))
                self._collect_geometry(target, m, flat, depth)
            else:
                target_attributes = self._written(target)
                own = target_attributes.get("transform")
                if own:
                    m = multiply(m, self._transform(own))
                if kind == "use":
                    self._collect_use_geometry(target_attributes, m, flat, depth + 1)
                else:
                    for coords, _ in self.outliner.outlines(kind, target_attributes, m):
                        flat.extend(coords)
        finally:
            self._expanding.pop()

    # ---------------------------------------------------------------- attributes

    def _written(self, el: etree._Element) -> dict[str, str]:
        """Attributes as written, without namespaced ones (sodipodi:, inkscape:, xml:),
        `xlink:href` as `href`, and `style=` declarations as attributes that win over
        presentation attributes of the same name (CSS beats attributes, as in SVG)."""
        attributes = dict(el.items())
        if "{" in "".join(attributes):  # a namespaced attribute (rare outside Inkscape)
            xlink = attributes.get(XLINK_HREF)
            attributes = {name: value for name, value in attributes.items() if name[0] != "{"}
            if xlink is not None:
                if not is_local_reference(xlink):
                    raise external(el, xlink)
                attributes.setdefault("href", xlink)  # SVG 2's href wins when both exist
        style = attributes.get("style")
        if style is None:
            return attributes
        declarations = self._styles.get(style)
        if declarations is None:
            declarations = self._styles[style] = parse_style(style)
        styled = dict(declarations)
        expanded: dict[str, str] = {}
        for name, value in attributes.items():
            if name == "style":
                for key, declared in declarations:
                    expanded[key] = declared
            elif name in styled:
                expanded.setdefault(name, styled[name])
            else:
                expanded[name] = value
        return expanded

    def _transform(self, text: str) -> Matrix:
        matrix = self._transforms.get(text)
        if matrix is None:
            matrix = self._transforms[text] = parse_transform(text)
        return matrix
