"""The dead-letter handler with a journal that fills up, for real (issue 28 item 3): a
WAIT(YES) handler whose journal reaches its file size limit (``ulimit -f``) mid-cycle backs
out the unit it cannot record, stops, and exits 6 (a long-lived run took the journal's
stop for a signal's and exited 0); every message it moved is in the journal or in doubt."""

from __future__ import annotations

import json
import os
import resource
import subprocess
from pathlib import Path

from mqconsole.backends.base import Context
from mqconsole.backends.embedded import create_queue_manager
from mqconsole.mq.chain import add_dead_letter_header
from mqconsole.mq.md import MQMD
from mqconsole.mq.message import Message
from mqconsole.mq.queue import QueueAttrs
from mqconsole.ops.journal import Journal

from .test_journal_faults import MQCONSOLE, ids

DLQ, DEST, COUNT = "SYSTEM.DEAD.LETTER.QUEUE", "APP.BACK", 3000


def test_a_wait_yes_handler_whose_journal_fills_up_exits_6_and_journals_every_move(tmp_path):
    path = tmp_path / "qm.sqlite"
    qm = create_queue_manager(path)
    qm.change_queue(DLQ, max_depth=100_000)
    qm.define_queue(QueueAttrs(name=DEST, max_depth=100_000))
    for i in range(COUNT):
        md = MQMD(format="MQSTR", ccsid=1208, msg_id=b"FULL" + i.to_bytes(20, "big"))
        md, body = add_dead_letter_header(md, f"body {i}".encode(), reason=2053,
                                          dest_q_name=DEST, dest_qmgr_name="QM1")
        qm.put(DLQ, Message(md, body), context=Context.SET_ALL, syncpoint=True)
    qm.commit()
    qm.close()
    home = tmp_path / "home"
    journal = home / "state" / "journal.jsonl"
    journal.parent.mkdir(parents=True)
    limit = 24 * 1024 * 1024  # far above the queue manager's files
    line = json.dumps({"time": "2026-11-01T00:00:00.000Z", "operation": "copy",
                       "details": {"pad": "x" * 900}}) + "\n"
    with open(journal, "w") as fp:  # old records up to 20 KB below the limit
        fp.write(line * ((limit - 20_000) // len(line)))
    rules = tmp_path / "r.rules"
    rules.write_text("WAIT(YES)\nREASON(MQRC_Q_FULL) ACTION(RETRY)\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("MQCONSOLE_")}
    env["MQCONSOLE_HOME"] = str(home)

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    p = subprocess.run([MQCONSOLE, "--embedded", str(path), "dlq-handler", "--rules",
                        str(rules), "--yes", "--batch", "100"], capture_output=True, text=True,
                       env=env, stdin=subprocess.DEVNULL, timeout=300, preexec_fn=cap)
    assert p.returncode == 6, p.stderr
    assert f"the journal {journal} could not be written: File too large" in p.stderr
    moved = ids(path, DEST)
    assert 0 < len(moved) < COUNT and len(ids(path, DLQ)) == COUNT - len(moved)
    j = Journal(journal)
    [entry] = [e for e in j.read() if e.operation == "dlq-handler"]
    assert j.problems == []
    assert set(entry.msgids) <= set(moved) <= set(entry.msgids) | set(entry.in_doubt)
    assert Path(journal).stat().st_size <= limit
