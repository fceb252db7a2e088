"""The container image of docs/deploy.md (Containerfile, issue 67): hadolint finds
nothing, it holds every package and no embedded database, runs `floorgate serve` as a
user that is not root on the ports the Kubernetes example declares, and sends the
builder nothing of a developer's checkout."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from rest.cli.main import parser
from tests.docs.test_deploy_manifests import container

ROOT = Path(__file__).resolve().parents[2]
CONTAINERFILE = ROOT / "Containerfile"
HADOLINT = Path(sys.executable).parent / "hadolint"


def instructions(text: str) -> list[tuple[str, str]]:
    """(instruction, arguments) of each line, continuations joined, comments left out."""
    joined = text.replace("\\\n", " ")
    found = []
    for line in joined.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            word, _, rest = line.partition(" ")
            found.append((word.upper(), " ".join(rest.split())))
    return found


def final_stage() -> list[tuple[str, str]]:
    steps = instructions(CONTAINERFILE.read_text(encoding="utf-8"))
    last = max(n for n, (word, _) in enumerate(steps) if word == "FROM")
    return steps[last:]


def lint(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(HADOLINT), "--no-color", str(path)], capture_output=True, text=True, timeout=60
    )


def test_hadolint_finds_nothing_and_would_find_a_root_user(tmp_path):
    clean = lint(CONTAINERFILE)
    assert (clean.returncode, clean.stdout) == (0, "")
    rooted = tmp_path / "Containerfile"
    rooted.write_text(CONTAINERFILE.read_text(encoding="utf-8") + "USER root\n")
    found = lint(rooted)
    assert found.returncode == 1 and "DL3002" in found.stdout  # last USER should not be root


def test_it_runs_serve_behind_the_proxy_as_a_user_that_is_not_root():
    stage = dict(final_stage())
    assert json.loads(stage["ENTRYPOINT"]) == ["floorgate"]
    args = parser().parse_args(json.loads(stage["CMD"]))
    assert (args.command, args.behind_proxy) == ("serve", True)
    assert stage["USER"].isdigit() and int(stage["USER"]) >= 1000
    ports = {port["containerPort"] for port in container()["ports"]}
    assert {int(each) for each in stage["EXPOSE"].split()} == ports
    assert args.port in ports
    # the Kubernetes example's arguments are the image's own
    assert container()["args"] == json.loads(stage["CMD"])


def test_it_holds_every_package_and_no_embedded_database():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    packages = {
        name.rstrip("*") for name in project["tool"]["setuptools"]["packages"]["find"]["include"]
    }
    copied = {
        shlex.split(arguments)[0]
        for word, arguments in instructions(CONTAINERFILE.read_text(encoding="utf-8"))
        if word == "COPY" and not arguments.startswith("--from")
    }
    assert packages <= copied
    (install,) = [each for word, each in final_stage() if word == "RUN" and "pip install" in each]
    assert "--no-index" in install.split()  # the wheels built in the first stage, no other
    assert install.split("&&")[0].split()[-1] == "floorgate"  # no extra: no embedded database
    assert "embedded" not in CONTAINERFILE.read_text(encoding="utf-8").split("FROM", 1)[1]


@pytest.mark.parametrize("left_out", [".venv", ".floorgate", ".git", "*.pem", "*.key", "tests"])
def test_the_builder_gets_nothing_of_a_checkout(left_out):
    ignored = (ROOT / ".dockerignore").read_text(encoding="utf-8").splitlines()
    assert left_out in ignored
