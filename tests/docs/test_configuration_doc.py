"""docs/configuration.md is what the settings table says (regenerate it after a change
of a row with `FLOORGATE_UPDATE_CONFIGURATION_DOC=1 .venv/bin/python -m pytest
tests/docs/test_configuration_doc.py`, or `.venv/bin/python -m storage.settings_doc`)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from storage import settings_doc
from storage.settings import SETTINGS
from storage.settings_doc import DOC, configuration_doc

ROOT = Path(__file__).resolve().parents[2]


def test_the_committed_configuration_doc_is_current():
    written = configuration_doc()
    if os.environ.get("FLOORGATE_UPDATE_CONFIGURATION_DOC") == "1":
        DOC.write_text(written, encoding="utf-8")
    assert DOC.read_text(encoding="utf-8") == written, (
        "docs/configuration.md is not the settings table: regenerate it with "
        "FLOORGATE_UPDATE_CONFIGURATION_DOC=1 .venv/bin/python -m pytest "
        "tests/docs/test_configuration_doc.py"
    )


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


def test_check_says_how_to_regenerate_and_the_module_rewrites(tmp_path, monkeypatch, capsys):
    stale = tmp_path / "configuration.md"
    stale.write_text("# Configuration\n", encoding="utf-8")
    monkeypatch.setattr(settings_doc, "DOC", stale)
    assert settings_doc.main(["--check"]) == 1
    assert capsys.readouterr().err == (
        f"{stale} is not current: run .venv/bin/python -m storage.settings_doc\n"
    )
    assert settings_doc.main([]) == 0
    assert stale.read_text(encoding="utf-8") == configuration_doc()
    assert settings_doc.main(["--check"]) == 0


def test_the_module_runs_on_its_own():
    checked = subprocess.run(
        [sys.executable, "-m", "storage.settings_doc", "--check"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (checked.returncode, checked.stderr) == (0, "")
