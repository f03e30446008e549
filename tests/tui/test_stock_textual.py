"""The console's snapshots drawn by Textual as operators run it.

Every pilot test runs with five speed-ups of ``tests/support`` installed
(tests/tui/conftest.py: Textual's CSS parsed once, the CSS rules a node matches and a
table's cells worked out once per process, no frame a headless app would drop, a step that
ends when the app has done its work). Here the snapshot tests run in a pytest of their own
with none of them (``MQCONSOLE_TEST_STOCK_TEXTUAL``), against the same SVGs: a speed-up
that changed what the console draws fails this test, not an operator's screen.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.tui.conftest import STOCK_TEXTUAL

pytestmark = [pytest.mark.subprocess, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]
SNAPSHOT_FILES = ("tests/tui/test_snapshots.py", "tests/tui/test_80x24_cuts.py",
                  "tests/tui/test_dialog_snapshots.py", "tests/tui/test_journal_snapshot.py")


def test_the_snapshots_hold_on_textual_as_operators_run_it() -> None:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PYTEST_", "MQCONSOLE_"))}  # (not this run's worker)
    env[STOCK_TEXTUAL] = "1"
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider",
         "-m", "not spark", *SNAPSHOT_FILES],
        cwd=REPO, env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert " passed" in done.stdout and "failed" not in done.stdout
