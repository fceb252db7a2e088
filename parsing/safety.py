"""Untrusted bytes to an lxml tree, refusing everything unsafe or over a limit.

The XML parser loads no DTD, expands no entity, opens no file and no socket. A document
that declares entities, or still holds an entity reference, is refused outright rather
than half-read. The byte limit comes before parsing; elements are counted while the
document is read, a chunk at a time, so a document with too many stops there instead of
first becoming a tree of any size (libxml2 itself stops past 256 levels); a lower depth
limit is checked on the tree (in C, through XPath) before any Python walks it. External
references are refused by the walk (parsing/svg.py), which reads every element's
attributes anyway. On a refusal nothing here keeps the tree: errors are raised from
frames that no longer hold it.
"""

from __future__ import annotations

import contextlib
import re
from functools import lru_cache

from lxml import etree

from parsing.attributes import SVG_NS
from parsing.errors import SvgError
from parsing.limits import SvgLimits

# libxml2 refuses deeper documents by itself unless put in "huge" mode, which we never do.
LIBXML_MAX_DEPTH = 256
# Bytes given to the parser at a time: elements are counted after each chunk, so a
# refused document is read at most this far past its limit. libxml2 holds the
# interpreter while it reads a chunk (1-3 ms for this size), and the event loop of a
# server parsing in its CPU pool waits that long (256 KB: up to 25 ms).
CHUNK_BYTES = 32 * 1024
_POSITION_SUFFIX = re.compile(r",? line \d+, column \d+\s*$")


class _RefuseExternal(etree.Resolver):  # type: ignore[misc]  # lxml ships no types: Resolver is Any
    """Belt and braces: should libxml2 ever ask for an external resource, give it nothing."""

    def resolve(self, system_url: str | None, public_id: str | None, context: object) -> object:
        return self.resolve_string("", context)


def pull_parser(utf8: bool = False) -> etree.XMLPullParser:
    """A pull parser that loads no DTD, expands no entity and fetches nothing (the SVG
    reader's, also the OSM XML reader's: parsing/osm/xml.py)."""
    parser = etree.XMLPullParser(
        events=("start",),
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
    del data
    failure: SvgError | None
    try:
        root, count = _read_tree(raw, as_text, limits)
    except etree.XMLSyntaxError as error:
        line, column = error.position if error.position else (None, None)
        failure = _syntax_error(str(error.msg or ""), line, column)
    except etree.LxmlError as error:  # anything else lxml may raise on odd input
        failure = SvgError(f"the SVG could not be read as XML: {error}")
    else:
        del raw
        failure = _refusal_of(root, limits)
        if failure is None:
            return root, count
        del root  # not kept by the error's traceback, which holds this frame
    raise failure


def _read_tree(raw: bytes, as_text: bool, limits: SvgLimits) -> tuple[etree._Element, int]:
    """The parsed tree and its number of elements, counted as they are read."""
    parser = pull_parser(as_text)
    count = 0
    try:
        for start in range(0, max(len(raw), 1), CHUNK_BYTES):  # b"" too: "Document is empty"
            parser.feed(raw[start : start + CHUNK_BYTES])
            count += sum(1 for _ in parser.read_events())
            if count > limits.max_elements:
                discard(parser)
                more = "" if start + CHUNK_BYTES >= len(raw) else " or more"
                raise SvgError(
                    f"the SVG has {count}{more} elements; the limit is {limits.max_elements}"
                )
        root = parser.close()
    except etree.XMLSyntaxError as error:
        # After some errors (an undefined entity) libxml2's push parser stops reading and
        # lxml says only "no element found"; the error itself is the last one logged.
        last = error.error_log.last_error if error.msg == "no element found" else None
        if last is None:
            raise
        raise _syntax_error(last.message, last.line, last.column) from None
    if root is None:
        raise SvgError("the SVG is empty")
    return root, count


def discard(parser: etree.XMLPullParser) -> None:
    """Free the part of a tree read so far, now: the parser sits in a reference cycle,
    which only a full collection would free (parses join the oldest generation,
    parsing/gcpause.py), and libxml2's memory is not what starts one.

    `close` reads what was fed and not yet read, and may queue one more event: its
    element holds the document, which holds the parser, whose queue holds the event, a
    cycle again (issue 45: ten refused 8.6 MB drawings kept 1.1 GB in each parse
    worker). The queue is emptied, so the tree goes with the parser's last reference."""
    with contextlib.suppress(etree.LxmlError):
        parser.close()
    with contextlib.suppress(etree.LxmlError):
        for _ in parser.read_events():
            pass


def _refusal_of(root: etree._Element, limits: SvgLimits) -> SvgError | None:
    """Why the parsed tree is refused (entities, root element, depth), if it is."""
    try:
        _refuse_entities(root)
        _check_root(root)
        _check_depth(root, limits)
    except SvgError as error:
        return error.with_traceback(None)
    return None


def _syntax_error(text: str, line: int | None, column: int | None) -> SvgError:
    message = _POSITION_SUFFIX.sub("", text).strip() or "malformed XML"
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


def _check_depth(root: etree._Element, limits: SvgLimits) -> None:
    depth = depth_limit(limits)
    too_deep = _first_at_depth(depth + 1)(root)
    if too_deep:
        raise SvgError(
            f"the SVG nests elements too deeply (more than {depth} levels)",
            too_deep[0].sourceline,
        )


@lru_cache(maxsize=8)
def _first_at_depth(depth: int) -> etree.XPath:
    """`(/*/*/.../*)[1]` with `depth` steps: the first element that deep, found in C."""
    return etree.XPath("(" + "/*" * depth + ")[1]")


def is_local_reference(value: str) -> bool:
    """`#fragment`, a data: URI or empty: nothing outside the document. The walk checks
    every `href`/`xlink:href`, on skipped elements too."""
    stripped = value.strip()
    return not stripped or stripped.startswith("#") or stripped[:5].lower() == "data:"
