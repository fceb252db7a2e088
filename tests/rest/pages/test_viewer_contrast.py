"""The viewer's labels meet WCAG 2.2 AA (issue 34 point 6): unit labels are written in the
stylesheet's ink on every colour a unit can take in the viewer (attribute colours, the
colour of units without one, the selected unit's), so each must give 4.5:1 or more."""

from __future__ import annotations

import re

import pytest

from rest.pages.viewer import VIEWER_STATIC_DIR
from tests.contrast import AA_TEXT, contrast, luminance

CSS = (VIEWER_STATIC_DIR / "viewer.css").read_text()
COLOURS = (VIEWER_STATIC_DIR / "units" / "colours.js").read_text()


def ink() -> str:
    return re.search(r"--ink:\s*(#[0-9a-fA-F]{3,6});", CSS).group(1)


def unit_colours() -> list[str]:
    palette = re.search(r"PALETTE = \[([^\]]*)\]", COLOURS).group(1)
    colours = re.findall(r'"(#[0-9a-fA-F]{6})"', palette)
    colours.append(re.search(r'NONE = "(#[0-9a-fA-F]{6})"', COLOURS).group(1))
    colours.append(
        re.search(r"\.unit\.selected:not\(\.coloured\) \{ fill: (#[0-9a-fA-F]{6})", CSS).group(1)
    )
    return colours


def test_the_contrast_formula_gives_the_known_extremes():
    assert contrast("#000000", "#ffffff") == pytest.approx(21.0)
    assert contrast("#777", "#777") == 1.0
    assert luminance("#ffffff") == pytest.approx(1.0)
    assert contrast("#767676", "#ffffff") == pytest.approx(4.54, abs=0.01)  # the AA grey


def test_the_palette_is_read_whole():
    assert len(unit_colours()) == 12 and ink() == "#111827"


@pytest.mark.parametrize("colour", unit_colours())
def test_labels_in_ink_are_legible_on_every_unit_colour(colour):
    ratio = contrast(ink(), colour)
    assert ratio >= AA_TEXT, f"{colour}: {ratio:.2f}:1"
