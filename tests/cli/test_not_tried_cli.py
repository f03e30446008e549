"""Real ``delete``, ``load`` and ``dlq-handler`` processes of 20,000 messages stopped by
SIGTERM mid-way (issue 24 item 2): the messages they never tried are a count of their own —
``not tried: N (…; they stayed on SRC)``, a load's ``N messages of the file were not put`` —
in the text, in ``--json`` (``not_tried``), and in the journal's record and list; the queues
hold what the count says. Synchronised on the queues' depths, never on sleeps."""

from __future__ import annotations

import json
import signal
import subprocess
import time
from pathlib import Path

import pytest

from mqconsole.backends.base import Context
from mqconsole.backends.embedded import create_queue_manager
from mqconsole.backends.open import open_embedded
from mqconsole.mq.chain import add_dead_letter_header
from mqconsole.mq.md import MQMD
from mqconsole.mq.message import Message
from mqconsole.mq.queue import QueueAttrs
from mqconsole.ops.journal import Journal
from mqconsole.ops.savefile import save_queue
from mqconsole.ops.selection import Selection

from .conftest import run_cli
from .test_journal_faults import DST, MQCONSOLE, SRC
from .test_journal_signals import COUNT, _copy, _depth, _env, watching

DLQ = "SYSTEM.DEAD.LETTER.QUEUE"
pytestmark = pytest.mark.slow


def _run_until(args: list[str], home: Path, path: Path, done) -> subprocess.Popen:
    """Start mqconsole with ``args`` and return once ``done(depth)`` holds (it still runs),
    ``depth(queue)`` read from ``path`` through one connection held for the wait."""
    proc = subprocess.Popen([MQCONSOLE, *args], env=_env(home), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    deadline = time.monotonic() + 180
    with watching(path) as depth:
        while proc.poll() is None and time.monotonic() < deadline:
            if done(depth):
                break
            time.sleep(0.005)
    assert proc.poll() is None, "it ended before it could be stopped"
    return proc


def _entry(home: Path, operation: str):
    j = Journal(home / "state" / "journal.jsonl")
    [entry] = [e for e in j.read() if e.operation == operation]
    assert j.problems == []
    return entry


def _listed(path: Path, home: Path) -> str:
    """What ``mqconsole journal`` lists afterwards (in this process: tests/cli's
    ``run_cli``; only the stopped command needs a process of its own)."""
    return run_cli("--embedded", str(path), "journal", home=home).out


@pytest.mark.parametrize("as_json", [False, True])
def test_a_delete_stopped_mid_way_counts_what_it_never_tried(template, tmp_path,
                                                             as_json):
    path, home = _copy(template, tmp_path / "del.sqlite"), tmp_path / "home"
    proc = _run_until(["--embedded", str(path), "delete", SRC, "--all", "--yes",
                       *(["--json"] if as_json else [])], home, path,
                      lambda depth: depth(SRC) <= COUNT - 3000)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=180)
    assert proc.returncode == 143, err
    left = _depth(path, SRC)
    assert 0 < left <= COUNT - 3000
    if as_json:
        doc = json.loads(out)
        assert doc["not_tried"] == left and doc["skipped"] == 0
        assert doc["selected"] == doc["done"] + doc["not_tried"] == COUNT
    else:
        assert f"not tried: {left} (cancelled; they stayed on {SRC})" in err.decode(), err
    entry = _entry(home, "delete")
    assert entry.details["not_tried"] == left and entry.details["skipped"] == 0
    assert f"not tried {left} (cancelled; they stayed on {SRC})" in _listed(path, home)


def test_a_load_stopped_mid_way_says_how_many_of_the_file_were_not_put(
        template, tmp_path):
    src = _copy(template, tmp_path / "src.sqlite")
    qm = open_embedded(src)
    dump = tmp_path / "all.dmp"
    try:
        save_queue(qm, SRC, dump, Selection(all=True))
    finally:
        qm.close()
    path, home = _copy(template, tmp_path / "load.sqlite"), tmp_path / "home"
    proc = _run_until(["--embedded", str(path), "load", str(dump), DST, "--yes"], home, path,
                      lambda depth: depth(DST) >= 3000)
    proc.send_signal(signal.SIGTERM)
    _out, err = proc.communicate(timeout=180)
    assert proc.returncode == 143, err
    put = _depth(path, DST)
    assert 3000 <= put < COUNT
    text = err.decode()
    assert (f"not tried: {COUNT - put} (cancelled; {COUNT - put:,} messages of the file "
            "were not put)") in text, text
    assert "skipped" not in text
    entry = _entry(home, "load")
    assert entry.details["not_tried"] == COUNT - put and entry.details["skipped"] == 0
    assert (f"not tried {COUNT - put} (cancelled; {COUNT - put:,} messages of the file "
            "were not put)") in _listed(path, home)


@pytest.fixture(scope="module")
def dead_letters(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("dlq") / "dlq.sqlite"
    qm = create_queue_manager(path)
    qm.define_queue(QueueAttrs(name="APP.BACK", max_depth=100_000))
    for i in range(COUNT):
        md = MQMD(format="MQSTR", ccsid=1208, msg_id=b"NTRY" + i.to_bytes(20, "big"))
        md, body = add_dead_letter_header(md, f"body {i}".encode(), reason=2053,
                                          dest_q_name="APP.BACK", dest_qmgr_name="QM1")
        qm.put(DLQ, Message(md, body), context=Context.SET_ALL, syncpoint=True)
    qm.commit()
    qm.close()
    return path


@pytest.mark.parametrize("as_json", [False, True])
def test_a_handler_stopped_mid_pass_counts_the_messages_it_never_tried(dead_letters,
                                                                        tmp_path, as_json):
    path, home = _copy(dead_letters, tmp_path / "h.sqlite"), tmp_path / "home"
    rules = tmp_path / "r.rules"
    rules.write_text("RETRYINT(0) WAIT(NO)\nACTION(RETRY)\n")
    proc = _run_until(["--embedded", str(path), "dlq-handler", "--rules", str(rules),
                       "--yes", *(["--json"] if as_json else [])], home, path,
                      lambda depth: depth("APP.BACK") >= 3000)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=180)
    assert proc.returncode == 0, err  # a signal is how a handler ends (its exit codes)
    left = _depth(path, DLQ)
    assert left > 0 and left + _depth(path, "APP.BACK") == COUNT
    if as_json:
        assert json.loads(out)["not_tried"] == left
    else:
        assert f"not tried: {left:,} (cancelled; they stayed on {DLQ})" in err.decode(), err
    entry = _entry(home, "dlq-handler")
    assert entry.details["not_tried"] == left
    assert f"not tried {left} (cancelled; they stayed on {DLQ})" in _listed(path, home)
