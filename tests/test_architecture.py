"""The rooms of architecture.md hold: the core never imports textual or pyspark."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.subprocess
def test_import_linter_contracts_hold() -> None:
    lint = Path(sys.executable).parent / "lint-imports"
    result = subprocess.run([str(lint)], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Contracts: " in result.stdout and " broken" in result.stdout


@pytest.mark.subprocess
def test_core_imports_leave_textual_and_pyspark_unloaded() -> None:
    """Importing every core room in a fresh interpreter loads neither textual nor pyspark."""
    code = (
        "import sys, pkgutil, importlib\n"
        "import mqconsole\n"
        "for room in ('mq', 'backends', 'ops', 'model'):\n"
        "    pkg = importlib.import_module('mqconsole.' + room)\n"
        "    for m in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + '.'):\n"
        "        importlib.import_module(m.name)\n"
        "bad = sorted(n for n in sys.modules if n.split('.')[0] in ('textual', 'pyspark'))\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == ""


@pytest.mark.subprocess
def test_cli_queues_path_does_not_import_textual() -> None:
    code = (
        "import sys\n"
        "from mqconsole.cli import main\n"
        "from mqconsole.cli.commands import queue_cmd, browse_cmd\n"
        "import mqconsole.ops.queues, mqconsole.ops.browse\n"
        "print(','.join(sorted(n for n in sys.modules if n.split('.')[0] in "
        "('textual', 'pyspark'))))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == ""


def test_no_import_circle_anywhere_in_the_package() -> None:
    """No module of mqconsole reaches itself through its imports — those inside functions
    and under TYPE_CHECKING included (the console's screens and actions once made circles
    both ways). Each circle found is named by one of its imports."""
    import grimp

    graph = grimp.build_graph("mqconsole")
    circles = sorted(
        f"{importer} -> {imported}"
        for importer in graph.modules
        for imported in graph.find_modules_directly_imported_by(importer)
        if imported.startswith("mqconsole.") and imported != importer
        and graph.chain_exists(importer=imported, imported=importer))
    assert circles == [], circles


def test_a_real_queue_manager_is_opened_by_the_one_opener_only() -> None:
    """Issue 26 item 5: backends/open.py's ``open_backend`` opens a real queue manager (its
    library, then its password, then MQCONNX); the MQI backend exports no opener of its own
    (``open_mq`` was one, used by tests only, around the password step)."""
    import importlib
    import pkgutil

    import mqconsole.backends.mqi as mqi

    modules = [mqi, *(importlib.import_module(f"{mqi.__name__}.{m.name}")
                      for m in pkgutil.iter_modules(mqi.__path__))]
    openers = [f"{module.__name__}.{name}" for module in modules for name, value in
               vars(module).items() if name.startswith("open") and callable(value)
               and getattr(value, "__module__", "").startswith(mqi.__name__)]
    assert openers == []
