"""Untrusted bytes to an lxml tree, refusing everything unsafe or over a limit.

The XML parser loads no DTD, expands no entity, opens no file and no socket. A document
that declares entities, or still holds an entity reference, is refused outright rather
than half-read. The byte limit comes before parsing; element count and depth are checked
on the tree (in C, through XPath) before any Python walks it. External references are
refused by the walk (parsing/svg.py), which reads every element's attributes anyway.
"""

from __future__ import annotations

import re
from functools import lru_cache

from lxml import etree

from parsing.attributes import SVG_NS
from parsing.errors import SvgError
from parsing.limits import SvgLimits

# libxml2 refuses deeper documents by itself unless put in "huge" mode, which we never do.
LIBXML_MAX_DEPTH = 256
_POSITION_SUFFIX = re.compile(r",? line \d+, column \d+\s*$")
_COUNT = etree.XPath("count(//*)")


class _RefuseExternal(etree.Resolver):
    """Belt and braces: should libxml2 ever ask for an external resource, give it nothing."""

    def resolve(self, system_url: str | None, public_id: str | None, context: object) -> object:
        return self.resolve_string("", context)


def _parser(utf8: bool) -> etree.XMLParser:
    parser = etree.XMLParser(
        encoding="utf-8" if utf8 else None,
        resolve_entities=False,
        load_dtd=False,
        dtd_validation=False,
        attribute_defaults=False,
        no_network=True,
        huge_tree=False,
        remove_comments=True,
        remove_pis=True,
        collect_ids=False,
    )
    parser.resolvers.add(_RefuseExternal())
    return parser


def to_bytes(data: bytes | str, limits: SvgLimits) -> tuple[bytes, bool]:
    """The input as bytes (a str is UTF-8, whatever its XML declaration says) and whether
    it came as a str; refused when over the byte limit, before any parsing."""
    if isinstance(data, str):
        if len(data) > limits.max_bytes:  # every character is at least one byte
            raise _too_large(limits)
        try:
            data = data.encode("utf-8")
        except UnicodeEncodeError as error:  # lone surrogates
            raise SvgError(f"the SVG text is not valid Unicode: {error.reason}") from None
        as_text = True
    elif isinstance(data, bytes | bytearray | memoryview):
        data = bytes(data)
        as_text = False
    else:
        raise SvgError("the SVG must be bytes or text")
    if len(data) > limits.max_bytes:
        raise _too_large(limits)
    return data, as_text


def _too_large(limits: SvgLimits) -> SvgError:
    return SvgError(f"the SVG is larger than the limit of {limits.max_bytes} bytes")


def parse_xml(data: bytes | str, limits: SvgLimits) -> tuple[etree._Element, int]:
    """The root `<svg>` element of `data` and how many elements the document has, or
    SvgError naming what is wrong."""
    raw, as_text = to_bytes(data, limits)
    try:
        root = etree.fromstring(raw, _parser(as_text))
    except etree.XMLSyntaxError as error:
        raise _syntax_error(error) from None
    except etree.LxmlError as error:  # anything else lxml may raise on odd input
        raise SvgError(f"the SVG could not be read as XML: {error}") from None
    if root is None:
        raise SvgError("the SVG is empty")
    _refuse_entities(root)
    _check_root(root)
    return root, _check_size(root, limits)


def _syntax_error(error: etree.XMLSyntaxError) -> SvgError:
    message = _POSITION_SUFFIX.sub("", str(error.msg or "")).strip() or "malformed XML"
    line, column = error.position if error.position else (None, None)
    if "Excessive depth" in message:
        return SvgError(
            f"the SVG nests elements too deeply (more than {LIBXML_MAX_DEPTH} levels)", line
        )
    if "amplification" in message:  # libxml2 stopped a "billion laughs" expansion
        return SvgError(
            "the SVG declares XML entities; entity declarations are not allowed", line, column
        )
    return SvgError(f"malformed XML: {message}", line, column)


def _refuse_entities(root: etree._Element) -> None:
    """No <!ENTITY> declarations (XXE, billion laughs) and no entity reference left over
    (which an external DTD, never loaded, would have had to define)."""
    info = root.getroottree().docinfo
    dtd = info.internalDTD
    if dtd is not None:
        for entity in dtd.iterentities():
            raise SvgError(
                f'the SVG declares the XML entity "{entity.name}"; '
                "entity declarations are not allowed"
            )
    if dtd is not None or info.doctype:
        for reference in root.iter(etree.Entity):
            raise SvgError(
                f"the SVG uses the undefined XML entity {reference.text}", reference.sourceline
            )


def _check_root(root: etree._Element) -> None:
    tag = root.tag
    if tag not in (f"{{{SVG_NS}}}svg", "svg"):
        name = etree.QName(root).localname if isinstance(tag, str) else str(tag)
        raise SvgError(f"the root element is <{name}>, not <svg>", root.sourceline)


def depth_limit(limits: SvgLimits) -> int:
    """How deep elements may nest: the limit asked for, within what libxml2 allows."""
    return min(limits.max_depth, LIBXML_MAX_DEPTH)


def _check_size(root: etree._Element, limits: SvgLimits) -> int:
    """The number of elements, after checking it and the depth against the limits."""
    count = int(_COUNT(root))
    if count > limits.max_elements:
        raise SvgError(
            f"the SVG has {count} elements; the limit is {limits.max_elements}", root.sourceline
        )
    depth = depth_limit(limits)
    too_deep = _first_at_depth(depth + 1)(root)
    if too_deep:
        raise SvgError(
            f"the SVG nests elements too deeply (more than {depth} levels)",
            too_deep[0].sourceline,
        )
    return count


@lru_cache(maxsize=8)
def _first_at_depth(depth: int) -> etree.XPath:
    """`(/*/*/.../*)[1]` with `depth` steps: the first element that deep, found in C."""
    return etree.XPath("(" + "/*" * depth + ")[1]")


def is_local_reference(value: str) -> bool:
    """`#fragment`, a data: URI or empty: nothing outside the document. The walk checks
    every `href`/`xlink:href`, on skipped elements too."""
    stripped = value.strip()
    return not stripped or stripped.startswith("#") or stripped[:5].lower() == "data:"
