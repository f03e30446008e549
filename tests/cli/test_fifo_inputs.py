"""A FIFO named as an input file is one sentence and exit 2, never a hang (issue 28 item 9):
every input-file option opens through ``mqconsole.inputfile.open_input`` (``O_NONBLOCK``,
the type checked on the open file). No one ever writes to these FIFOs: without the fix each
invocation blocks in ``open`` until pytest-timeout fails the test (each runs in process, as
tests/cli's ``run_cli`` does: what is tested is the open, not the executable's wiring)."""

from __future__ import annotations

import os
import subprocess

import pytest

from .conftest import run_cli


@pytest.fixture
def fifo(tmp_path):
    path = tmp_path / "pipe"
    os.mkfifo(path)
    return path


def _run(*args: str, home) -> subprocess.CompletedProcess:
    r = run_cli(*args, home=home)
    return subprocess.CompletedProcess(["mqconsole", *args], r.code, r.out, r.err)


CASES = [
    (("dlq-handler", "--rules", "{fifo}", "--check"),
     "the rules table {fifo} is a FIFO (a named pipe), not a file"),
    (("put", "APP.AUDIT", "--file", "{fifo}"),
     "--file {fifo} is a FIFO (a named pipe), not a file"),
    (("move", "APP.INVOICES", "APP.AUDIT", "--msgids-from", "{fifo}", "--yes"),
     "--msgids-from {fifo} is a FIFO (a named pipe), not a file"),
    (("edit", "APP.INVOICES", "414D51", "--payload-file", "{fifo}", "--yes"),
     "--payload-file {fifo} is a FIFO (a named pipe), not a file"),
    (("load", "{fifo}", "APP.AUDIT", "--yes"), "{fifo} is a FIFO (a named pipe), not a file"),
    (("--config", "{fifo}", "queues"), "{fifo}: is a FIFO (a named pipe), not a config file"),
    (("replay", "{fifo}"), "{fifo}: is a FIFO (a named pipe), not a scenario or endpoints file"),
]


@pytest.mark.parametrize(("args", "said"), CASES, ids=[c[0][0] if c[0][0] != "--config"
                                                        else "config" for c in CASES])
def test_a_fifo_as_an_input_file_is_exit_2_with_one_sentence(tmp_path, demo, fifo, args, said):
    argv = [a.format(fifo=fifo) for a in args]
    # the configuration is read as the command starts: no queue manager needed for it
    where = [] if argv[0] == "--config" else ["--embedded", str(demo)]
    p = _run(*where, *argv, home=tmp_path / "home")
    assert p.returncode == 2, p.stderr
    assert p.stderr == f"mqconsole: {said.format(fifo=fifo)}\n"
    assert "Traceback" not in p.stderr

