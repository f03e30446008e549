"""Real invocations of the ``mqconsole`` executable of this venv."""

from __future__ import annotations

import io
import json
import os
import select
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

import pytest

MQCONSOLE = str(Path(sys.executable).parent / "mqconsole")


@dataclass
class Result:
    code: int
    out: str
    err: str

    @property
    def json(self):
        return json.loads(self.out)


IN_PROCESS = os.environ.get("MQCONSOLE_TEST_CLI", "in-process") != "subprocess"
"""``run_cli`` calls ``mqconsole.cli.main.main`` in this process (about a tenth of a
process's cost) unless ``MQCONSOLE_TEST_CLI=subprocess``: then every call runs the
executable, as a check that the two agree. Tests of signals, terminals, exit-code wiring of
the executable and a few smoke tests start the real one themselves (``MQCONSOLE``)."""

PROCESS_ONLY_ENV = ("PYTHONPATH", "PATH", "JAVA_HOME")
"""What only a new process can honour: a call setting one of these runs the executable."""

SPARK_COMMANDS = ("audit",)
"""Commands that start Spark (a JVM): in this process only on the SparkSession already
running here (:func:`on_the_running_spark`), else as the executable, as operators run them."""


def on_the_running_spark(args: tuple[str, ...] | list[str]) -> bool:
    """Whether an audit command run here would use the SparkSession running in this
    process (a test asking for the ``spark`` fixture) rather than start one: a local master
    ``start_session`` gives the running session back for (the same, or the default one:
    any local session), never ``--remote``. Anything else would stop that session and start
    another (its own log, its own master): such a call runs the executable."""
    if "--remote" in args or "pyspark" not in sys.modules:
        return False
    from pyspark import SparkContext

    from mqconsole.audit.session import DEFAULT_MASTER

    context = SparkContext._active_spark_context
    if context is None:
        return False
    given = list(args)
    master = given[given.index("--master") + 1] if "--master" in given[:-1] else DEFAULT_MASTER
    running = context.master or ""
    return running == master or (master == DEFAULT_MASTER and running.startswith("local"))


def run_cli(*args: str, home: Path, input: str | None = None, env: dict | None = None,
            process: bool = False, connect_here: bool = False,
            before_spark: bool = False) -> Result:
    """mqconsole with ``args``, MQCONSOLE_HOME=``home``, no other MQCONSOLE_* variable,
    ``env`` besides, ``input`` on stdin (a pipe, never a terminal): its exit code, stdout
    and stderr. In this process (see :data:`IN_PROCESS`) unless ``process`` or what is
    asked needs a process of its own. An audit command runs here on the test's SparkSession
    (the ``spark`` fixture) when it would use it (:func:`on_the_running_spark`): its JVM's
    output then goes to that session's log (``spark_log``), not under ``home``; with
    ``connect_here``, one over ``--remote`` runs here too (a Connect client starts no JVM):
    the Connect session it opens stays for the next such call, one session on the server
    for them all, until the test stops it (tests/audit/test_connect.py). With
    ``before_spark``, an audit command that must be refused before Spark starts runs here
    whatever session is running, and starting one fails the test (:func:`no_spark`)."""
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("MQCONSOLE_")}
    full_env["MQCONSOLE_HOME"] = str(home)
    full_env.update(env or {})
    here = on_the_running_spark(args) or (connect_here and "--remote" in args) or before_spark
    if (process or not IN_PROCESS or any(k in (env or {}) for k in PROCESS_ONLY_ENV)
            or (any(a in SPARK_COMMANDS for a in args) and not here)):
        # (no tight bound: a JVM starting on a busy machine takes minutes; a hang is
        # pytest-timeout's to stop)
        p = subprocess.run([MQCONSOLE, *args], capture_output=True, text=True, input=input,
                           env=full_env, timeout=1200)
        return Result(p.returncode, p.stdout, p.stderr)
    if before_spark:
        with no_spark():
            return _in_process(list(args), full_env, input)
    return _in_process(list(args), full_env, input)


@contextmanager
def no_spark() -> Iterator[None]:
    """Within it, starting Spark (``start_session``, a Connect session) fails the test:
    what a command does before Spark, run in process, cannot reach the running session."""
    from mqconsole.audit import remote, session

    def refused(*args: object, **kwargs: object) -> NoReturn:
        raise AssertionError("Spark was started: the command was not refused before it")

    saved = session.start_session, remote.connect
    session.start_session = remote.connect = refused  # type: ignore[assignment]
    try:
        yield
    finally:
        session.start_session, remote.connect = saved


def _in_process(args: list[str], env: dict[str, str], input: str | None) -> Result:
    """``main(args)`` as the executable would run it: this environment, stdin a pipe holding
    ``input`` (empty when None), stdout and stderr pipes (UTF-8, as in the process), and
    everything put back afterwards (the environment, the streams, SIGINT's handler)."""
    import signal

    from mqconsole.cli.main import main

    saved_env = dict(os.environ)
    saved_streams = sys.stdin, sys.stdout, sys.stderr
    saved_sigint = signal.getsignal(signal.SIGINT)
    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", newline="\n", write_through=True)
    err = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="backslashreplace",
                           newline="\n", write_through=True)
    stdin = io.TextIOWrapper(io.BytesIO((input or "").encode()), encoding="utf-8")
    os.environ.clear()
    os.environ.update(env)
    sys.stdin, sys.stdout, sys.stderr = stdin, out, err
    try:
        code = main(args)
    except SystemExit as e:  # (main maps its own; a stray exit still gives a code)
        code = e.code if isinstance(e.code, int) else int(e.code is not None)
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved_streams
        os.environ.clear()
        os.environ.update(saved_env)
        signal.signal(signal.SIGINT, saved_sigint)

    def text(stream: io.TextIOWrapper) -> str:
        stream.flush()
        raw = stream.buffer.getvalue()  # type: ignore[attr-defined]
        return raw.decode("utf-8", errors="replace").replace("\r\n", "\n").replace("\r", "\n")

    return Result(code, text(out), text(err))


def clean_env(home: Path) -> dict[str, str]:
    """This environment without MQCONSOLE_* variables, MQCONSOLE_HOME set to ``home``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MQCONSOLE_")}
    env["MQCONSOLE_HOME"] = str(home)
    return env


def wait_for_output(proc: subprocess.Popen, text: str, *, timeout: float = 120.0) -> bytes:
    """What ``proc`` wrote on its stderr (a pipe) up to and including ``text``, read as it
    comes: start-up is over and it got that far (a condition, never a sleep). Fails if it
    ends first, or after ``timeout`` (a hang). The rest is still to be read
    (``proc.communicate()``)."""
    assert proc.stderr is not None
    fd, seen = proc.stderr.fileno(), b""
    deadline = time.monotonic() + timeout
    while text.encode() not in seen:
        left = deadline - time.monotonic()
        assert left > 0, f"mqconsole never said {text!r}; it said {seen!r}"
        if select.select([fd], [], [], left)[0]:
            chunk = os.read(fd, 65536)
            assert chunk, f"mqconsole ended before saying {text!r}; it said {seen!r}"
            seen += chunk
    return seen


def signal_delivered(proc: subprocess.Popen, signum: int, *, timeout: float = 120.0) -> None:
    """Until the kernel has delivered ``signum`` to ``proc`` (no longer pending: its handler
    runs), for a signal whose handler says nothing to wait for. Linux's /proc; elsewhere
    this returns at once."""
    bit = 1 << (signum - 1)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{proc.pid}/status") as fp:
                fields = dict(line.split(":", 1) for line in fp if ":" in line)
        except OSError:
            return
        pending = int(fields["SigPnd"], 16) | int(fields["ShdPnd"], 16)
        if not pending & bit:
            return
        time.sleep(0.01)
    raise AssertionError(f"signal {signum} still pending after {timeout:g} s")


QUESTION = "[y/N]: "  # the end of click.confirm's question


@pytest.fixture
def answer_on_a_terminal(terminal) -> Callable[..., tuple[int, str, str]]:
    """``answer_on_a_terminal(args, answer, home=...)``: run mqconsole with a
    pseudo-terminal for stdin (stdout and stderr pipes), wait for its question and give
    ``answer`` (None: Ctrl-C, a SIGINT, at the question): its code, stdout and stderr. A
    terminal buffers what is typed early, so this waits for the question to be sure it was
    asked, not to give it time. (The ``terminal`` fixture: the test is in the pty tier.)"""
    import signal

    def answer_it(args: list[str], answer: bytes | None, *, home: Path
                  ) -> tuple[int, str, str]:
        keyboard = terminal()
        proc = subprocess.Popen([MQCONSOLE, *args], env=clean_env(home), stdin=keyboard.end,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        keyboard.hand_over()
        try:
            early = wait_for_output(proc, QUESTION)
            if answer is None:
                proc.send_signal(signal.SIGINT)
            else:
                keyboard.write(answer)
            out, err = proc.communicate(timeout=120)
        finally:
            keyboard.close()
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        return proc.returncode, out.decode(), (early + err).decode()

    return answer_it


@pytest.fixture(scope="session")
def template(tmp_path_factory) -> Path:
    """Queue manager QMJ with 20,000 messages on J.SRC and J.DST empty, built once per test
    process: the move, delete and load processes of test_journal_signals,
    test_not_tried_cli and test_signal_exit_codes each run on a copy of it (``_copy``).
    (test_dlq_sigterm has a template of its own.)"""
    from .test_journal_faults import make_qm
    from .test_journal_signals import COUNT

    return make_qm(tmp_path_factory.mktemp("signals") / "template.sqlite", COUNT)


@pytest.fixture(scope="session")
def demo_template(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("demo")
    path = d / "demo.sqlite"
    r = run_cli("--embedded", str(path), "init", "--demo", home=d)
    assert r.code == 0, r.err
    return path


@pytest.fixture
def demo(tmp_path, demo_template) -> Path:
    """A private copy of the demo queue manager (tests may change it)."""
    target = tmp_path / "qm.sqlite"
    shutil.copy(demo_template, target)
    for suffix in ("-wal", "-shm"):
        extra = Path(str(demo_template) + suffix)
        if extra.exists():
            shutil.copy(extra, str(target) + suffix)
    return target


@pytest.fixture
def cli(tmp_path, demo):
    """``cli('queues', '--json')`` runs mqconsole on the private demo queue manager."""

    def call(*args: str, **kw) -> Result:
        return run_cli("--embedded", str(demo), *args, home=tmp_path / "home", **kw)

    return call
