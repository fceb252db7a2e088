"""WCAG 2.2 contrast ratio of two sRGB colours, for tests holding the viewer's and the
IMDF drawing's colours to AA (4.5:1 for text)."""

from __future__ import annotations

AA_TEXT = 4.5


def luminance(hex_colour: str) -> float:
    """Relative luminance of `#rgb` or `#rrggbb` (WCAG 2.2, 'relative luminance')."""
    digits = hex_colour.lstrip("#")
    if len(digits) == 3:
        digits = "".join(d * 2 for d in digits)
    channels = [int(digits[i : i + 2], 16) / 255 for i in (0, 2, 4)]
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(a: str, b: str) -> float:
    """(lighter + 0.05) / (darker + 0.05): 1 to 21."""
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)
