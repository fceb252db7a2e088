"""Units of measure that drawings (feet per canvas unit), imported venues (metres) and
directions (feet or metres, `units=`) share: one definition for all of them. The map
viewer's JavaScript has its own copy (rest/pages/static/viewer/route/measure.js)."""

from __future__ import annotations

METRES_PER_FOOT = 0.3048  # the international foot, exact
