"""An audit scene: the demo queue manager plus the awkward cases, and saved files.

On top of ``mqconsole init --demo``: on ``AUDIT.DLQ``, dead letters whose headers do not
parse, an unknown reason number, and messages whose MsgIds also sit on the demo's
dead-letter queue and in a saved file (duplicates across queues). Files: a dmpmqmsg file
(with a duplicate MsgId and a header that does not parse), an amqsbcg listing, and the real
dmpmqmsg file of the shared test data when present.

``expected_rows`` reads the same sources in plain Python (the backend's browse, the file
reader, ``mq.chain.dead_letter_header``), so tests compare Spark's answer with it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from mqconsole.backends.base import Context
from mqconsole.backends.open import open_embedded
from mqconsole.mq.chain import add_dead_letter_header, dead_letter_header, parse_body_lenient
from mqconsole.mq.md import MQMD
from mqconsole.mq.message import Message
from mqconsole.mq.names import reason_name
from mqconsole.mq.queue import QueueAttrs
from mqconsole.ops.demo import build_demo
from mqconsole.ops.dmpfile import DmpReader, dump_messages
from mqconsole.ops.timefmt import parse_put_datetime
from tests.ops.test_dmpfile import REAL  # IBM's file, found beside the repository
from tests.ops.test_savefile import AMQSBCG  # one amqsbcg sample for the readers' tests

AUDIT_QUEUE = "AUDIT.DLQ"
QUEUES = "SYSTEM.DEAD.LETTER.QUEUE,APP.*.BOQ,AUDIT.DLQ"
REAL_FILE = REAL
NOW = datetime(2026, 11, 25, 10, 0, tzinfo=UTC)
UNKNOWN_REASON = 4321



def run_mqconsole(*args: str, home: Path, env: dict | None = None, timeout: int = 900,
                  wrap: list[str] | None = None,
                  cwd: Path | None = None) -> subprocess.CompletedProcess:
    """A real ``mqconsole`` process of this venv, with its own MQCONSOLE_HOME (``wrap``: the
    command it runs under, e.g. ``unshare``; ``cwd``: its working folder)."""
    full = {k: v for k, v in os.environ.items() if not k.startswith("MQCONSOLE_")}
    full["MQCONSOLE_HOME"] = str(home)
    full.update(env or {})
    return subprocess.run([*(wrap or []), str(Path(sys.executable).parent / "mqconsole"), *args],
                          capture_output=True, text=True, env=full, timeout=timeout, cwd=cwd)


@dataclass
class Scene:
    qm_path: Path
    files: list[Path]
    duplicate_ids: set[str]  # MsgIds (hex) on more than one queue or file


def plain_queue_manager(folder: Path, queue: str = "APP.IN", messages: int = 5) -> str:
    """An embedded queue manager (``folder``/qm.sqlite) of ``messages`` plain messages on
    ``queue`` (``m0``, ``m1``, ...), put on 2026-11-20 at 08:00."""
    path = folder / "qm.sqlite"
    qm = open_embedded(str(path), create=True, name="QM1")
    try:
        qm.define_queue(QueueAttrs(queue))
        md = MQMD(format="MQSTR", put_date="20261120", put_time="08000000")
        for i in range(messages):
            qm.put(queue, Message(md, b"m%d" % i), context=Context.SET_ALL, syncpoint=True)
        qm.commit()
    finally:
        qm.close()
    return str(path)


def mixed_queue_manager(folder: Path, depths: dict[str, int]) -> str:
    """An embedded queue manager (``folder``/qm.sqlite) holding the queues ``depths``
    names, that many messages each: dead letters, RFH2 ones, plain ones and a header that
    does not parse (``test_raw.mixed``); MQ names may hold ``/`` and ``%``."""
    from .test_raw import mixed

    path = folder / "qm.sqlite"
    qm = open_embedded(str(path), create=True, name="QM1")
    try:
        for queue, depth in depths.items():
            qm.define_queue(QueueAttrs(name=queue, max_depth=100000))
            for m in mixed(depth):
                qm.put(queue, m, context=Context.SET_ALL, syncpoint=True)
        qm.commit()
    finally:
        qm.close()
    return str(path)


def _audit_messages(dlq_ids: list[bytes]) -> list[Message]:
    out = []
    base = MQMD(format="MQSTR", put_date="20261120", put_time="08000000",
                put_appl_name="audit-app")
    for i in range(3):  # headers that do not parse
        out.append(Message(base.copy(format="MQDEAD", msg_id=bytes([0xBA, i]) * 12),
                           b"DLH \x09\x00\x00\x00" + b"?" * (10 + i)))
    md, body = add_dead_letter_header(base.copy(msg_id=b"\xab" * 24), b"odd", reason=UNKNOWN_REASON,
                                      dest_q_name="APP.ODD", put_date="20261121",
                                      put_time="09000000")
    out.append(Message(md, body))
    for i, msg_id in enumerate(dlq_ids[:2]):  # the same MsgIds as on the demo's DLQ
        md, body = add_dead_letter_header(base.copy(msg_id=msg_id), b"dup %d" % i, reason=2053,
                                          dest_q_name="APP.ORDERS", put_date="20261122",
                                          put_time="11000000")
        out.append(Message(md, body))
    return out


def build_scene(folder: Path) -> Scene:
    qm_path = folder / "qm.sqlite"
    qm = open_embedded(str(qm_path), create=True, name="QM1")
    try:
        build_demo(qm, now=NOW)
        qm.define_queue(QueueAttrs(name=AUDIT_QUEUE, max_depth=100000))
        with qm.browse("SYSTEM.DEAD.LETTER.QUEUE") as cursor:
            dlq_ids = [m.md.msg_id for m in cursor.next_batch(3)]
        for m in _audit_messages(dlq_ids):
            qm.put(AUDIT_QUEUE, m, context=Context.SET_ALL, syncpoint=True)
        qm.commit()
    finally:
        qm.close()
    dmp = folder / "saved.dmp"
    md, body = add_dead_letter_header(
        MQMD(format="MQSTR", msg_id=dlq_ids[2], put_date="20261123", put_time="07000000"),
        b"saved dup", reason=2035, dest_q_name="APP.SECURE", put_date="20261124",
        put_time="07000000")
    dump_messages(dmp, [Message(md, body),
                        Message(MQMD(format="MQDEAD", msg_id=b"\xcd" * 24), b"DLH broken"),
                        Message(MQMD(format="MQSTR", msg_id=b"\xce" * 24), b"plain")],
                  qmgr="QM9", queue="SAVED.DLQ")
    bcg = folder / "listing.txt"
    bcg.write_text(AMQSBCG)
    files = [dmp, bcg] + ([REAL_FILE] if REAL_FILE.exists() else [])
    dup = {i.hex().upper() for i in dlq_ids[:3]}
    return Scene(qm_path, files, dup)


def expected_rows(scene: Scene, queues: list[str]) -> list[dict]:
    """Every message as a snapshot row would hold it, read in plain Python: the backend's
    browse, the file reader, ``mq.chain``'s general decoder (not the audit's quick paths),
    ``ops.timefmt``. ``unparsed`` says the headers did not parse."""
    rows = []

    def row(qmgr, queue, position, source, message):
        md = message.md
        parsed = parse_body_lenient(md, message.body)
        unparsed = parsed.error is not None
        dlh = None if unparsed else dead_letter_header(md, message.body)
        name = None if dlh is None else reason_name(dlh.reason)
        return {"qmgr": qmgr, "queue": queue, "position": position, "source": source,
                "msg_id": md.msg_id.hex().upper(),
                "dlh_reason": None if dlh is None else dlh.reason,
                "dlh_reason_name": None if name is None or name.startswith("UNKNOWN_")
                else name,
                "dlh_dest_q": None if dlh is None else dlh.dest_q,
                "dlh_dest_qmgr": None if dlh is None else dlh.dest_qmgr,
                "dlh_put_time": None if dlh is None else parse_put_datetime(dlh.put_date,
                                                                            dlh.put_time),
                "put_time": parse_put_datetime(md.put_date, md.put_time),
                "put_appl_name": md.put_appl_name.rstrip(" \x00"),
                "backout_count": md.backout_count,
                "properties": None if unparsed else {},
                "unparsed": unparsed, "length": len(message.body)}

    qm = open_embedded(str(scene.qm_path))
    try:
        qmgr = qm.name
        for queue in queues:
            with qm.browse(queue) as cursor:
                for i, m in enumerate(cursor.next_batch(10**6), 1):
                    rows.append(row(qmgr, queue, i, "queue", m))
    finally:
        qm.close()
    for path in scene.files:
        with DmpReader(path) as reader:
            queue = (reader.info.queue or "").strip() or path.name
            qmgr = (reader.info.qmgr or "").strip()
            for i, m in enumerate(reader, 1):
                rows.append(row(qmgr, queue, i, str(path.absolute()), m))
    return rows


DEMO_QUEUES = ["SYSTEM.DEAD.LETTER.QUEUE", "APP.ORDERS.BOQ", "APP.SHARED.BOQ", AUDIT_QUEUE]
