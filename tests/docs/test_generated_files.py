"""Every file written from the code is current (.ci/generate.py's table): one test, which
names each stale file and the command that fixes it, `make generate`."""

from __future__ import annotations

from pathlib import Path

from tests.docs.ci_scripts import ci_module

MARK = "Written by `make generate`"  # in the first lines of a generated file


def test_every_generated_file_is_current():
    generate = ci_module("generate")
    stale = generate.stale()
    assert stale == [], "\n".join(f"{path} is stale: run `make generate`" for path in stale)


def test_the_table_holds_every_file_that_says_it_is_written():
    """A file that says in its first lines it is written by `make generate` is in the table
    or recorded."""
    generate = ci_module("generate")
    listed = {entry.path for entry in generate.GENERATED} | set(generate.RECORDED)
    root = generate.ROOT
    claimed = {
        str(path.relative_to(root))
        for folder in ("docs", "rest", "schema", "storage")
        for path in (root / folder).rglob("*")
        if path.is_file()
        and path.suffix in (".py", ".md", ".graphql")
        and any(MARK in line for line in path.read_text(encoding="utf-8").splitlines()[:5])
    }
    assert claimed <= listed, claimed - listed
    assert {"docs/configuration.md", "schema/execution/running/planned/routes.py"} <= claimed


def test_a_stale_file_is_named_and_rewritten(tmp_path: Path, monkeypatch, capsys):
    generate = ci_module("generate")
    monkeypatch.setattr(generate, "ROOT", tmp_path)
    (tmp_path / "current.txt").write_text("one\n", encoding="utf-8")
    (tmp_path / "old.txt").write_text("before\n", encoding="utf-8")
    table = (
        generate.Generated("current.txt", lambda: "one\n"),
        generate.Generated("old.txt", lambda: "after\n"),
        generate.Generated("missing.txt", lambda: "new\n"),
    )
    monkeypatch.setattr(generate, "GENERATED", table)
    assert generate.main(["--check"]) == 1
    assert capsys.readouterr().out == (
        "old.txt is stale: run `make generate`\nmissing.txt is stale: run `make generate`\n"
    )
    assert (tmp_path / "old.txt").read_text(encoding="utf-8") == "before\n"  # only named
    assert generate.main([]) == 0
    assert capsys.readouterr().out == "wrote old.txt\nwrote missing.txt\n"
    assert (tmp_path / "old.txt").read_text(encoding="utf-8") == "after\n"
    assert (tmp_path / "missing.txt").read_text(encoding="utf-8") == "new\n"
    assert generate.main(["--check"]) == 0
