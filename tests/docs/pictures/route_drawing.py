"""SVG pieces for the pictures of docs/routing.md, drawn from routes the demo answers:
a floor of a demo building with its rooms, routes over it, marks and the document around
them (tests/docs/pictures/test_routing_picture.py, tests/docs/pictures/test_option_pictures.py).

A picture is compared with its committed file by its test, so it must be the same text
for the same answer: every number goes through `num`.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from typing import Any

from parsing.demo.drawings import CORRIDOR_Y, floor_plan

CROP = (80.0, 80.0, 1320.0, 430.0)  # x0, y0, x1, y1 of the floor plate, canvas units
STYLE = (
    "text{font-family:sans-serif;fill:#111827}.title{font-size:14px;font-weight:bold}"
    ".room{font-size:9px;text-anchor:middle;fill:#6b7280}.narrow{font-size:6px}"
    ".mark{font-size:10px;"
    "text-anchor:middle;fill:#ffffff;font-weight:bold}.step{font-size:12px}"
    ".note{font-size:11px}"
)


def num(value: float) -> str:
    text = f"{value:.1f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def xy_of(point: Any) -> tuple[float, float]:
    """A point of an answer ({"x", "y"}) or of a leg ([x, y]) as a pair."""
    return (point["x"], point["y"]) if isinstance(point, dict) else (point[0], point[1])


@dataclass(frozen=True)
class Panel:
    """One floor of a demo building drawn at `scale`, its plate's corner at (left, top)."""

    building: int
    floor: int
    top: float
    scale: float
    left: float = 10.0

    def to_xy(self, point: Any) -> tuple[float, float]:
        x, y = xy_of(point)
        return ((x - CROP[0]) * self.scale + self.left, (y - CROP[1]) * self.scale + self.top)

    @property
    def width(self) -> float:
        return (CROP[2] - CROP[0]) * self.scale

    @property
    def height(self) -> float:
        return (CROP[3] - CROP[1]) * self.scale

    def floor_id(self) -> str:
        return f"b{self.building}-f{self.floor}"

    def plate(self, title: str) -> list[str]:
        """The floor's title, plate, rooms with their names and corridor line."""
        to_xy = self.to_xy
        out = [
            f'<text x="{num(self.left)}" y="{num(self.top - 8)}" class="title">'
            f"{escape(title)}</text>",
            f'<rect x="{num(self.left)}" y="{num(self.top)}" width="{num(self.width)}" '
            f'height="{num(self.height)}" fill="#f9fafb" stroke="#d1d5db"/>',
        ]
        for room in floor_plan(self.building, self.floor).rooms:
            if room.row == "outside":
                continue
            (rx, ry), (rx2, ry2) = (
                to_xy((room.rect.x, room.rect.y)),
                to_xy((room.rect.x + room.rect.width, room.rect.y + room.rect.height)),
            )
            cx, cy = to_xy(room.rect.centre)
            size = "room" if room.rect.width * self.scale >= 60 else "room narrow"
            out.append(
                f'<rect x="{num(rx)}" y="{num(ry)}" width="{num(rx2 - rx)}" '
                f'height="{num(ry2 - ry)}" fill="#ffffff" stroke="#9ca3af"/>'
                f'<text x="{num(cx)}" y="{num(cy + 4)}" class="{size}">{escape(room.name)}</text>'
            )
        a, b = to_xy((104.0, CORRIDOR_Y)), to_xy((1296.0, CORRIDOR_Y))
        out.append(
            f'<line x1="{num(a[0])}" y1="{num(a[1])}" x2="{num(b[0])}" y2="{num(b[1])}" '
            'stroke="#fed7aa" stroke-width="2"/>'
        )
        return out

    def legs(
        self, route: dict[str, Any], colour: str, shift: float = 0.0, width: float = 4.0
    ) -> list[str]:
        """The route's legs on this floor, moved `shift` pixels down and right (so two
        routes along one corridor both show)."""
        out = []
        for leg in route["legs"]:
            if leg["floor_id"] != self.floor_id():
                continue
            points = " ".join(
                f"{num(x + shift)},{num(y + shift)}" for x, y in map(self.to_xy, leg["points"])
            )
            out.append(
                f'<polyline points="{points}" fill="none" stroke="{colour}" '
                f'stroke-width="{num(width)}" stroke-opacity="0.7" stroke-linejoin="round"/>'
            )
        return out

    def mark(self, point: Any, label: str, fill: str = "#111827", radius: float = 8.0) -> str:
        """A numbered or lettered disc at a point of the canvas."""
        x, y = self.to_xy(point)
        return (
            f'<circle cx="{num(x)}" cy="{num(y)}" r="{num(radius)}" fill="{fill}"/>'
            f'<text x="{num(x)}" y="{num(y + 4)}" class="mark">{escape(label)}</text>'
        )

    def cross(self, point: Any, colour: str = "#dc2626", size: float = 9.0) -> str:
        """A cross over a point: something closed."""
        x, y = self.to_xy(point)
        return (
            f'<path d="M{num(x - size)},{num(y - size)} L{num(x + size)},{num(y + size)} '
            f'M{num(x - size)},{num(y + size)} L{num(x + size)},{num(y - size)}" '
            f'stroke="{colour}" stroke-width="3"/>'
        )


def text_line(x: float, y: float, text: str, css: str = "step", colour: str = "") -> str:
    fill = f' fill="{colour}"' if colour else ""
    return f'<text x="{num(x)}" y="{num(y)}" class="{css}"{fill}>{escape(text)}</text>'


def swatch(x: float, y: float, colour: str) -> str:
    """A short line in a route's colour, before its line of the legend."""
    return (
        f'<line x1="{num(x)}" y1="{num(y - 4)}" x2="{num(x + 22)}" y2="{num(y - 4)}" '
        f'stroke="{colour}" stroke-width="4" stroke-opacity="0.7"/>'
    )


def document(width: float, height: float, body: list[str], defs: str = "") -> str:
    """The picture: an SVG of `width` x `height` on white, its body in order."""
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{num(width)}" height="{num(height)}" '
        f'viewBox="0 0 {num(width)} {num(height)}"><defs>{defs}</defs><style>{STYLE}</style>'
        '<rect width="100%" height="100%" fill="#ffffff"/>' + "".join(body) + "</svg>\n"
    )
