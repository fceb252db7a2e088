"""tests/suite/hangs.py: a hung test fails at the timeout saying where each task waited, and a
process hung between tests or after its session ends exits 1 with its stacks, instead of
holding CI."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

INI = """[pytest]
asyncio_mode = auto
asyncio_default_fixture_loop_scope = session
asyncio_default_test_loop_scope = session
timeout = 2
timeout_method = signal
"""

STUCK_TEARDOWN = """
import asyncio
import pytest_asyncio

pytest_plugins = ["tests.suite.hangs"]


async def wait_for_nothing() -> None:
    await asyncio.Event().wait()


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def stuck():
    yield 1
    await wait_for_nothing()
"""

STUCK_EXIT = """
import atexit
import time

import tests.suite.hangs

pytest_plugins = ["tests.suite.hangs"]
tests.suite.hangs.EXIT_SECONDS = 1.0


def wait_at_exit() -> None:
    time.sleep(60)


atexit.register(wait_at_exit)
"""

STUCK_BETWEEN = """
import time

import tests.suite.hangs

pytest_plugins = ["tests.suite.hangs"]
tests.suite.hangs.STALL_SECONDS = 1.0


def wait_between_tests() -> None:
    time.sleep(60)


def pytest_runtest_logfinish(nodeid, location):
    wait_between_tests()
"""


QUICK_EXIT = """
import tests.suite.hangs

pytest_plugins = ["tests.suite.hangs"]
tests.suite.hangs.EXIT_SECONDS = 1.0
"""


def run_pytest(folder: Path, conftest: str, tests: str, *more: str) -> tuple[int, str, float]:
    """pytest run in `folder` with only the plugins the suite's hang reports need."""
    (folder / "pytest.ini").write_text(INI)
    (folder / "conftest.py").write_text(conftest)
    (folder / "test_it.py").write_text(tests)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    command = [sys.executable, "-m", "pytest", "-p", "pytest_asyncio.plugin"]
    command += ["-p", "pytest_timeout", "-p", "no:cacheprovider", "-q", *more]
    started = time.monotonic()
    done = subprocess.run(
        command, cwd=folder, env=env, capture_output=True, text=True, timeout=60, check=False
    )
    return done.returncode, done.stdout + done.stderr, time.monotonic() - started


def test_a_hung_fixture_teardown_fails_naming_the_await_it_waits_on(tmp_path: Path) -> None:
    tests = "async def test_one(stuck):\n    assert stuck == 1\n"
    status, output, seconds = run_pytest(tmp_path, STUCK_TEARDOWN, tests)
    assert status == 1, output
    assert "1 passed, 1 error" in output
    assert "ERROR at teardown of test_one" in output
    assert "Failed: Timeout (>2.0s) from pytest-timeout." in output
    section = output.split("asyncio tasks at the timeout")[1]
    assert "in stuck" in section
    assert "in wait_for_nothing" in section  # the innermost await, not only the loop
    assert seconds < 30


@pytest.mark.parametrize(
    ("conftest", "tests", "said", "waited_in"),
    [
        (STUCK_EXIT, "def test_one():\n    pass\n", "1 passed", "wait_at_exit"),
        # no summary: it never got there
        (
            STUCK_BETWEEN,
            "def test_one():\n    pass\n\n\ndef test_two():\n    pass\n",
            None,
            "wait_between_tests",
        ),
    ],
    ids=["after its session", "between tests"],
)
def test_a_hung_process_exits_1_with_its_stacks(
    tmp_path: Path, conftest: str, tests: str, said: str | None, waited_in: str
) -> None:
    status, output, seconds = run_pytest(tmp_path, conftest, tests)
    assert status == 1, output
    assert "Timeout (0:00:01)!" in output
    assert f"in {waited_in}" in output
    assert (said in output) if said else ("passed" not in output), output
    assert seconds < 30


def test_a_worker_out_of_tests_waits_for_its_sibling_past_the_exit_limit(tmp_path: Path) -> None:
    """An xdist worker whose session ended waits for the controller, which waits for the
    other worker's last tests: a run of 2026-11-30 had such a worker ended by the exit
    watchdog (2 minutes) and the run failed with every test passed."""
    tests = (
        "import time\n\n\ndef test_quick():\n    pass\n\n\ndef test_slow():\n    time.sleep(3)\n"
    )
    status, output, seconds = run_pytest(
        tmp_path, QUICK_EXIT, tests, "-p", "xdist.plugin", "-n", "2", "-o", "timeout=20"
    )
    assert status == 0, output
    assert "2 passed" in output
    assert "Timeout" not in output
    assert seconds < 30
