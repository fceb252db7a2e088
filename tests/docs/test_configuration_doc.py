"""docs/configuration.md says what the settings table says (`make generate` writes it;
tests/docs/test_generated_files.py fails while it is stale)."""

from __future__ import annotations

from pathlib import Path

from storage.settings import SETTINGS
from storage.settings_doc import DOC

ROOT = Path(__file__).resolve().parents[2]


def test_every_variable_has_one_row_in_the_tables_order():
    lines = DOC.read_text(encoding="utf-8").splitlines()
    rows = {line.split("`")[1]: line for line in lines if line.startswith("| `FLOORGATE_")}
    assert list(rows) == [row.variable for row in SETTINGS]
    assert rows["FLOORGATE_PORT"] == (
        "| `FLOORGATE_PORT` | `8443` | whole number, 0 to 65535 "
        "| Port floorgate serve and floorgate demo listen on. `--port` wins. |"
    )
    assert rows["FLOORGATE_MONGODB_URI"].startswith("| `FLOORGATE_MONGODB_URI` | unset | text | ")
    assert rows["FLOORGATE_READ_CACHE_MB"].startswith(
        "| `FLOORGATE_READ_CACHE_MB` | `128` | whole number, less counts as 0 | "
    )
    assert rows["FLOORGATE_SEND_TIMEOUT_SECONDS"].startswith(
        "| `FLOORGATE_SEND_TIMEOUT_SECONDS` | `30` | number, more than 0 | "
    )
    assert rows["FLOORGATE_VIEWER_FRAME_ANCESTORS"].startswith(
        "| `FLOORGATE_VIEWER_FRAME_ANCESTORS` | `'none'` | CSP sources, "
    )
    assert "    floorgate serve: FLOORGATE_PORT: '84a3' is not a whole number" in lines
