"""summary counted in SQLite (the embedded backend's ``CountsFacts``) gives exactly what
browsing every message gives, on generated queues with hostile headers and put times,
destinations on several queue managers, on rows whose facts an older mqconsole never
wrote, and after moves and backouts."""

from __future__ import annotations

from datetime import UTC, datetime

from hypothesis import HealthCheck, given
from hypothesis import strategies as st

from mqconsole.backends.base import CountsFacts
from mqconsole.backends.embedded.cursor import EmbeddedCursor
from mqconsole.backends.embedded.stored import stored_facts
from mqconsole.mq.chain import add_dead_letter_header
from mqconsole.mq.md import MQMD
from mqconsole.mq.message import Message
from mqconsole.mq.queue import QueueAttrs
from mqconsole.ops.selection import Selection
from mqconsole.ops.summary import summarize_queue
from mqconsole.ops.transfer import transfer
from tests.support.examples import examples

NOW = datetime(2026, 11, 25, 12, 0, 0, 123456, tzinfo=UTC)
NAMES = st.text("ABCDEFGHIJKLMNOPQRSTUVWXYZ._0123456789 ", max_size=48)
# the local queue manager (QM1), blank (also the local one), others, and odd names
QMGRS = st.one_of(st.sampled_from(["QM1", "", "  ", "QM9", "QM2", " QM1", "QM1\x00", "qm1"]),
                  NAMES)
DIGITS = st.text("0123456789", min_size=0, max_size=9)
PUT_DATES = st.one_of(st.sampled_from(["20261125", "20261124", "19700101", "99991231",
                                       "20260230", "        ", ""]), DIGITS,
                      st.text(max_size=8).map(lambda s: s.encode("latin-1", "replace")
                                              .decode("latin-1")))
PUT_TIMES = st.one_of(st.sampled_from(["11595999", "12000000", "115900", "1159000",
                                       "24000000", "        "]), DIGITS)


@st.composite
def messages(draw: st.DrawFn) -> Message:
    fmt = draw(st.sampled_from(["MQSTR   ", "MQHRF2  ", "        ", "MQDEAD  ", "MQDEAD\x00\x00"]))
    md = MQMD(format=fmt, encoding=draw(st.sampled_from([546, 273, 785, 0])),
              ccsid=draw(st.sampled_from([1208, 819, 500, 37, 0])),
              put_date=draw(PUT_DATES)[:8], put_time=draw(PUT_TIMES)[:8],
              priority=draw(st.integers(0, 9)))
    body = draw(st.binary(max_size=300))
    if draw(st.booleans()):  # a well-formed dead-letter header, maybe in another byte order
        md, body = add_dead_letter_header(
            md, body, reason=draw(st.sampled_from([2053, 2085, 2035, 258, 65536, -1, 0])),
            dest_q_name=draw(st.sampled_from(["APP.ORDERS", "APP.X", ""]) | NAMES),
            dest_qmgr_name=draw(QMGRS),
            header_encoding=draw(st.sampled_from([None, 785, 273])))
    elif fmt.startswith("MQDEAD") and draw(st.booleans()):
        body = b"DLH " + body  # a header that does not parse
    return Message(md, body)


def _both(qm, queue: str) -> tuple[dict, dict]:
    fast = summarize_queue(qm, queue, now=NOW)
    plain = summarize_queue(qm, queue, now=NOW, fast=False)
    return fast, plain


@examples(60, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(batch=st.lists(messages(), max_size=25), forget=st.sets(st.integers(0, 30)),
       backouts=st.dictionaries(st.integers(0, 30), st.integers(1, 5)))
def test_fast_and_plain_summaries_agree(make_qm, batch, forget, backouts) -> None:
    qm = make_qm("DLQ", "OTHER")
    assert isinstance(qm, CountsFacts)
    for m in batch:
        qm.put("DLQ", m, syncpoint=False)
    ids = [r[0] for r in qm._db.execute("SELECT id FROM messages ORDER BY id")]
    with qm._guard(), qm._write() as db:  # an older mqconsole's rows, BackoutCounts
        for i in forget:
            if i < len(ids):
                db.execute("UPDATE messages SET f_format = NULL WHERE id = ?", (ids[i],))
        for i, n in backouts.items():
            if i < len(ids):
                db.execute("UPDATE messages SET backout_count = ? WHERE id = ?", (n, ids[i]))
    fast, plain = _both(qm, "DLQ")
    assert fast == plain
    assert fast["total"] == len(batch)


@examples(40, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(batch=st.lists(messages(), min_size=1, max_size=25), forget=st.sets(st.integers(0, 30)),
       unit=st.integers(2, 7))
def test_a_bulk_move_keeps_the_facts_recomputation_gives(make_qm, batch, forget, unit) -> None:
    """A move whose units go through the backend's bulk step (``move_next``: the rows moved
    inside SQLite, their kept facts copied) leaves on the destination exactly the facts
    that computing them again from the stored MD and body gives (hostile headers
    included), unknown ones unknown; both summary routes agree there."""
    qm = make_qm("SRC", "DST", max_depth=1000)
    for m in batch:
        qm.put("SRC", m, syncpoint=False)
    ids = [r[0] for r in qm._db.execute("SELECT id FROM messages ORDER BY id")]
    with qm._guard(), qm._write() as db:  # rows an older mqconsole wrote: facts unknown
        for i in forget:
            if i < len(ids):
                db.execute("UPDATE messages SET f_format = NULL WHERE id = ?", (ids[i],))
    bulk = []
    real = EmbeddedCursor.move_next

    def counted(self, queue, n):
        moved = real(self, queue, n)
        bulk.extend(moved)
        return moved

    EmbeddedCursor.move_next = counted  # type: ignore[method-assign]
    try:
        r = transfer(qm, "SRC", "DST", Selection(all=True), batch=unit)
    finally:
        EmbeddedCursor.move_next = real  # type: ignore[method-assign]
    assert r.done == len(batch) and len(bulk) == len(batch) - -(-len(batch) // unit)
    rows = qm._db.execute("SELECT md, body, f_reason, f_dest, f_dest_qm, f_format, f_put "
                          "FROM messages WHERE queue = 'DST'").fetchall()
    assert len(rows) == len(batch)
    # a forgotten row's facts stay unknown when moved in bulk (the one-pass step of a
    # unit's first message computes them)
    forgotten = {ids[i] for i in forget if i < len(ids)}
    unknown = sum(1 for m in bulk if int.from_bytes(m.token, "big") in forgotten)
    assert sum(1 for row in rows if row[5] is None) == unknown
    for md, body, *facts in rows:
        if facts[3] is not None:
            assert tuple(facts) == stored_facts(bytes(md), bytes(body))
    fast, plain = _both(qm, "DST")
    assert fast == plain and fast["total"] == len(batch)


def _dead_letter(dest_q: str, dest_qmgr: str, reason: int = 2087) -> Message:
    md, body = add_dead_letter_header(MQMD(format="MQSTR", put_date="20261125",
                                           put_time="11000000"), b"order",
                                      reason=reason, dest_q_name=dest_q,
                                      dest_qmgr_name=dest_qmgr)
    return Message(md, body)


def test_destinations_are_told_apart_by_queue_manager(make_qm) -> None:
    """APP.ORDERS on QM9 is not the local APP.ORDERS (QM1, or a blank queue manager): both
    routes give two groups, labelled as resubmit labels them (issue 15 item 7)."""
    qm = make_qm("DLQ", "APP.ORDERS")
    for dest_qmgr in ("QM9", "QM9", "QM9", "QM1", ""):
        qm.put("DLQ", _dead_letter("APP.ORDERS", dest_qmgr), syncpoint=False)
    fast, plain = _both(qm, "DLQ")
    assert fast == plain
    assert [(g["destination"], g["dest_q"], g["dest_qmgr"], g["count"])
            for g in fast["by_reason_and_dest"]] == [
        ("APP.ORDERS@QM9", "APP.ORDERS", "QM9", 3), ("APP.ORDERS", "APP.ORDERS", "QM1", 2)]


def test_rows_without_the_queue_manager_fact_are_filled_in(make_qm, tmp_path) -> None:
    """A file written before f_dest_qm was kept (its rows have a destination, no queue
    manager) is counted right: those rows are filled in first."""
    import sqlite3

    path = tmp_path / "older.sqlite"
    qm = make_qm("DLQ", path=path)
    for dest_qmgr in ("QM9", "QM9", "QM1"):
        qm.put("DLQ", _dead_letter("APP.ORDERS", dest_qmgr), syncpoint=False)
    qm.close()
    db = sqlite3.connect(path)
    db.execute("ALTER TABLE messages DROP COLUMN f_dest_qm")
    db.commit()
    db.close()
    again = make_qm(path=path)
    fast, plain = _both(again, "DLQ")
    assert fast == plain
    assert {g["destination"]: g["count"] for g in fast["by_reason_and_dest"]} == {
        "APP.ORDERS@QM9": 2, "APP.ORDERS": 1}


def test_after_a_move_and_a_backout(make_qm) -> None:
    qm = make_qm("SRC", "DST", max_depth=1000)
    for i in range(50):
        md, body = add_dead_letter_header(MQMD(format="MQSTR", put_date="20261125",
                                               put_time=f"11{i:02d}0000"), b"x" * i,
                                          reason=2053 + i % 3, dest_q_name=f"APP.{i % 4}")
        qm.put("SRC", Message(md, body), syncpoint=False)
    transfer(qm, "SRC", "DST", Selection(all=True))  # the one-pass move step keeps the facts
    with qm.browse("DST", for_get=True) as cur:
        for _ in range(10):
            assert cur.next() is not None
            cur.get_current(syncpoint=True)
    qm.backout()  # put back without facts: filled in when counted
    for q in ("SRC", "DST"):
        fast, plain = _both(qm, q)
        assert fast == plain
    assert fast["total"] == 50 and fast["dead_lettered"] == 50
    assert fast["by_backout_count"] == {"0": 40, "1": 10}


def test_an_alias_is_counted_as_its_queue(make_qm) -> None:
    qm = make_qm("Q")
    qm.define_queue(QueueAttrs("ALIAS", type="alias", target_q="Q"))
    qm.put("Q", Message(MQMD(format="MQSTR"), b"abc"), syncpoint=False)
    fast, plain = _both(qm, "ALIAS")
    assert fast == plain and fast["total"] == 1


def test_a_file_without_the_fact_columns_opens_and_is_counted(make_qm, tmp_path) -> None:
    """A file an older mqconsole made (no f_* columns) gains them when opened; its rows'
    facts are filled in when first counted."""
    import sqlite3

    path = tmp_path / "old.sqlite"
    qm = make_qm("DLQ", path=path)
    for i in range(5):
        md, body = add_dead_letter_header(MQMD(format="MQSTR", put_date="20261125",
                                               put_time="10000000"), b"y" * i,
                                          reason=2053, dest_q_name="APP.X")
        qm.put("DLQ", Message(md, body), syncpoint=False)
    qm.close()
    db = sqlite3.connect(path)
    for column in ("f_reason", "f_dest", "f_format", "f_put", "f_dest_qm"):
        db.execute(f"ALTER TABLE messages DROP COLUMN {column}")
    db.commit()
    db.close()
    again = make_qm(path=path)
    fast, plain = _both(again, "DLQ")
    assert fast == plain and fast["by_reason"] == {"MQRC_Q_FULL": 5}


def test_facts_filled_in_for_an_empty_dead_letter_body(make_qm) -> None:
    """SQLite's substr of an empty BLOB is NULL: a row whose facts are filled in later
    (written by an older mqconsole) with an empty body still counts."""
    qm = make_qm("DLQ")
    qm.put("DLQ", Message(MQMD(format="MQDEAD  "), b""), syncpoint=False)
    qm.put("DLQ", Message(MQMD(format="MQSTR   "), b""), syncpoint=False)
    with qm._guard(), qm._write() as db:
        db.execute("UPDATE messages SET f_format = NULL")
    fast, plain = _both(qm, "DLQ")
    assert fast == plain and fast["total"] == 2
