"""The demo scene of ``mqconsole init --demo``: a queue manager after a bad night.

Application queues with and without backout settings (one with BOTHRESH 0, two sharing one
backout queue), backout queues holding poison messages with backout counts, and a
dead-letter queue of a few hundred messages with many reasons and payload kinds — JSON, XML,
JMS text in an RFH2, EBCDIC text from a z/OS sender with a big-endian header, and binary.
Deterministic (seeded), so tests can rely on its shape.
"""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime, timedelta

from mqconsole.backends.base import Context, QueueManager
from mqconsole.mq.chain import add_dead_letter_header
from mqconsole.mq.md import MQMD
from mqconsole.mq.message import Message
from mqconsole.mq.queue import QueueAttrs, QueueType, Usage
from mqconsole.mq.reasons import (
    MQAT_QMGR,
    MQPER_PERSISTENT,
    MQRC_BACKOUT_THRESHOLD_REACHED,
    MQRC_FORMAT_ERROR,
    MQRC_MSG_TOO_BIG_FOR_Q,
    MQRC_NOT_AUTHORIZED,
    MQRC_PUT_INHIBITED,
    MQRC_Q_FULL,
    MQRC_UNKNOWN_OBJECT_NAME,
    MQRC_UNKNOWN_REMOTE_Q_MGR,
)
from mqconsole.mq.rfh2 import MQRFH2

DLQ = "SYSTEM.DEAD.LETTER.QUEUE"

# name, attributes
QUEUES: list[tuple[str, dict]] = [
    ("APP.ORDERS", dict(bothresh=3, boqname="APP.ORDERS.BOQ", hardenbo=True,
                        description="Order events from the web shop (dedicated backout queue)")),
    ("APP.ORDERS.BOQ", dict(description="Backout queue of APP.ORDERS")),
    ("APP.PAYMENTS", dict(bothresh=0, description="Payment instructions (no backout threshold!)")),
    ("APP.INVOICES", dict(bothresh=5, boqname="APP.SHARED.BOQ", hardenbo=True,
                          description="Invoices (shares its backout queue)")),
    ("APP.SHIPPING", dict(bothresh=2, boqname="APP.SHARED.BOQ",
                          description="Shipping notices (shares its backout queue)")),
    ("APP.SHARED.BOQ", dict(description="Backout queue shared by APP.INVOICES and APP.SHIPPING")),
    ("APP.LEGACY", dict(put_inhibited=True, description="Retired interface, put-inhibited")),
    ("APP.SMALL", dict(max_depth=10, description="Small queue that filled up")),
    ("APP.TINY", dict(max_msg_length=1024, description="Accepts messages of at most 1 KiB")),
    ("APP.SECURE", dict(description="Restricted queue (senders lacked +put)")),
    ("APP.AUDIT", dict(bothresh=0, description="Audit trail")),
    ("ZOS.INBOUND", dict(bothresh=4, boqname="ZOS.INBOUND.BOQ",
                         description="Messages from the z/OS partner")),
    ("ZOS.INBOUND.BOQ", dict(description="Backout queue of ZOS.INBOUND")),
]

# DLQ scene: (reason, destination queue, destination qmgr, count)
DEAD_LETTERS: list[tuple[int, str, str, int]] = [
    (MQRC_Q_FULL, "APP.SMALL", "QM1", 60),
    (MQRC_PUT_INHIBITED, "APP.LEGACY", "QM1", 40),
    (MQRC_UNKNOWN_OBJECT_NAME, "APP.ORDRES", "QM1", 30),  # a typo in a sender's config
    (MQRC_NOT_AUTHORIZED, "APP.SECURE", "QM1", 25),
    (MQRC_MSG_TOO_BIG_FOR_Q, "APP.TINY", "QM1", 20),
    (MQRC_BACKOUT_THRESHOLD_REACHED, "APP.PAYMENTS", "QM1", 20),
    (MQRC_UNKNOWN_REMOTE_Q_MGR, "APP.ORDERS", "QM9", 15),
    (MQRC_Q_FULL, "ZOS.INBOUND", "QM1", 20),  # from z/OS: EBCDIC bodies, big-endian headers
    (MQRC_FORMAT_ERROR, "APP.INVOICES", "QM1", 10),
]

APPS = ["OrderService.jar", "payments-batch", "amqsput", "InvoiceMDB", "ShipNotify"]
USERS = ["appsrv", "batch01", "mqm", "websrv"]


def _mq_time(t: datetime) -> tuple[str, str]:
    return t.strftime("%Y%m%d"), t.strftime("%H%M%S") + f"{t.microsecond // 10000:02d}"


class _Ids:
    def __init__(self, rng: random.Random, qmgr: str) -> None:
        self.rng = rng
        self.prefix = b"AMQ " + qmgr.encode()[:12].ljust(12)

    def __call__(self) -> bytes:
        return self.prefix + self.rng.randbytes(8)


def _json_order(rng: random.Random, n: int) -> bytes:
    doc = {"orderId": f"ORD-{100000 + n}", "customer": f"C{rng.randint(1000, 9999)}",
           "lines": [{"sku": f"SKU-{rng.randint(1, 500)}", "qty": rng.randint(1, 5)}
                     for _ in range(rng.randint(1, 4))],
           "total": round(rng.uniform(5, 900), 2), "currency": "EUR"}
    return json.dumps(doc).encode()


def _xml_payment(rng: random.Random, n: int) -> bytes:
    return (f'<?xml version="1.0" encoding="UTF-8"?><payment id="PAY-{n}">'
            f"<amount currency=\"EUR\">{rng.uniform(1, 5000):.2f}</amount>"
            f"<debtor>DE{rng.randint(10**19, 10**20 - 1)}</debtor>"
            f"<creditor>NL{rng.randint(10**15, 10**16 - 1)}</creditor></payment>").encode()


def _jms_text(rng: random.Random, n: int, dest: str) -> tuple[MQMD, bytes]:
    rfh = MQRFH2(encoding=546, ccsid=1208, format="MQSTR", flags=0, name_value_ccsid=1208,
                 folders=["<mcd><Msd>jms_text</Msd></mcd>",
                          f"<jms><Dst>queue:///{dest}</Dst><Tms>{1700000000000 + n}</Tms>"
                          "<Dlv>2</Dlv></jms>",
                          f"<usr><tenant>eu-{rng.randint(1, 4)}</tenant><retry>{rng.randint(0, 3)}"
                          "</retry></usr>"])
    text = f"Invoice {n} for customer C{rng.randint(1000, 9999)}: status=READY".encode()
    md = MQMD(format="MQHRF2", encoding=546, ccsid=1208)
    return md, rfh.pack(big_endian=False, ccsid=1208) + text


def _payload(kind: str, rng: random.Random, n: int, dest: str) -> tuple[MQMD, bytes]:
    if kind == "json":
        return MQMD(format="MQSTR", encoding=546, ccsid=1208), _json_order(rng, n)
    if kind == "xml":
        return MQMD(format="MQSTR", encoding=546, ccsid=1208), _xml_payment(rng, n)
    if kind == "jms":
        return _jms_text(rng, n, dest)
    if kind == "ebcdic":
        text = f"ACCT{n:06d} DEBIT {rng.randint(1, 99999):>8} EUR REF=ZOS{rng.randint(1, 999):03d}"
        return MQMD(format="MQSTR", encoding=785, ccsid=500), text.encode("cp500")
    # binary
    return MQMD(format="", encoding=546, ccsid=1208), bytes([0xCA, 0xFE, 0xBA, 0xBE]) + \
        rng.randbytes(rng.randint(16, 200))


_KINDS = {
    "APP.SMALL": ["json", "json", "xml"],
    "APP.LEGACY": ["xml", "binary"],
    "APP.ORDRES": ["json", "jms"],
    "APP.SECURE": ["json", "xml", "binary"],
    "APP.TINY": ["json"],
    "APP.PAYMENTS": ["xml"],
    "APP.ORDERS": ["json", "jms"],
    "ZOS.INBOUND": ["ebcdic"],
    "APP.INVOICES": ["jms", "binary"],
}


def build_demo(qm: QueueManager, *, seed: int = 20260922, now: datetime | None = None) -> dict:
    """Define the demo queues and put the demo messages; returns counts."""
    rng = random.Random(seed)
    now = now or datetime.now(UTC)
    info = qm.inquire_qmgr()
    qmgr = info.name
    new_id = _Ids(rng, qmgr)
    defined = 0
    for name, attrs in QUEUES:
        qm.define_queue(QueueAttrs(name=name, **attrs))
        defined += 1
    # a route to a partner queue manager: a transmission queue and a remote queue definition
    qm.define_queue(QueueAttrs(name="QM2", usage=Usage.XMITQ,
                               description="Transmission queue to QM2"))
    qm.define_queue(QueueAttrs(name="REMOTE.ORDERS", type=QueueType.REMOTE,
                               remote_q_name="APP.ORDERS", remote_qmgr_name="QM2", xmit_q="QM2",
                               description="APP.ORDERS on QM2"))
    defined += 2
    total = 0

    def put_set_all(queue: str, md: MQMD, body: bytes) -> None:
        nonlocal total
        qm.put(queue, Message(md, body), context=Context.SET_ALL, syncpoint=True)
        total += 1
        if total % 100 == 0:
            qm.commit()

    def stamp(md: MQMD, age: timedelta, appl: str, user: str, appl_type: int = 6) -> MQMD:
        d, t = _mq_time(now - age)
        return md.copy(put_date=d, put_time=t, put_appl_name=appl, user_identifier=user,
                       put_appl_type=appl_type, msg_id=new_id(), persistence=MQPER_PERSISTENT,
                       priority=rng.choice([0, 0, 0, 4, 5, 9]), reply_to_qmgr=qmgr)

    # Application queues with a backlog.
    for queue, kind, count in (("APP.ORDERS", "json", 40), ("APP.PAYMENTS", "xml", 25),
                               ("APP.INVOICES", "jms", 12), ("APP.SHIPPING", "json", 8),
                               ("APP.SMALL", "json", 10)):
        for i in range(count):
            md, body = _payload(kind, rng, i, queue)
            put_set_all(queue, stamp(md, timedelta(seconds=rng.randint(5, 3600)),
                                     rng.choice(APPS), rng.choice(USERS)), body)
    # Dead-letter queue.
    dead = 0
    n = 0
    for reason, dest, dest_qmgr, count in DEAD_LETTERS:
        for _ in range(count):
            n += 1
            kind = rng.choice(_KINDS[dest])
            md, body = _payload(kind, rng, n, dest)
            age = timedelta(seconds=rng.randint(60, 10 * 86400))
            zos = kind == "ebcdic"
            md = stamp(md, age, "CICSPROD" if zos else rng.choice(APPS),
                       "ZOSUSR1" if zos else rng.choice(USERS), 2 if zos else 6)
            dd, dt = _mq_time(now - age + timedelta(seconds=rng.randint(0, 30)))
            md, body = add_dead_letter_header(
                md, body, reason=reason, dest_q_name=dest, dest_qmgr_name=dest_qmgr,
                put_appl_type=MQAT_QMGR, put_appl_name="amqrmppa" if not zos else "CSQXRCTL",
                put_date=dd, put_time=dt,
                header_encoding=785 if zos else None, header_ccsid=500 if zos else None)
            put_set_all(DLQ, md, body)
            dead += 1
    qm.commit()
    # Backout queues: poison messages that their consumers rolled back again and again.
    for boq, sources, count in (("APP.ORDERS.BOQ", ["APP.ORDERS"], 5),
                                ("APP.SHARED.BOQ", ["APP.INVOICES", "APP.SHIPPING"], 6),
                                ("ZOS.INBOUND.BOQ", ["ZOS.INBOUND"], 3)):
        ids = []
        for i in range(count):
            src = sources[i % len(sources)]
            kind = "ebcdic" if src.startswith("ZOS") else rng.choice(["json", "jms", "xml"])
            md, body = _payload(kind, rng, 900 + i, src)
            if kind == "json":
                body = body[:-1] + b', "poison": true'  # broken JSON: why it keeps failing
            md = stamp(md, timedelta(seconds=rng.randint(600, 2 * 86400)), rng.choice(APPS),
                       rng.choice(USERS))
            put_set_all(boq, md, body)
            ids.append(md.msg_id)
        qm.commit()
        # a consumer of the backout queue tried and rolled back: backout counts rise
        for i, msg_id in enumerate(ids):
            for _ in range(i % 4 + 1):
                qm.get_by_msgid(boq, msg_id, syncpoint=True)
                qm.backout()
    return {"queues": defined, "messages": total, "dead_letter": dead}
