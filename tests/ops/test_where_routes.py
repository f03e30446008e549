"""--where tested inside SQLite (the embedded backend's ``SelectsByFacts``) selects exactly
what testing every browsed message selects, at the same positions, on generated queues
with hostile headers, rows without facts, expired messages and limits."""

from __future__ import annotations

from datetime import UTC, datetime

from hypothesis import HealthCheck, given
from hypothesis import strategies as st

from mqconsole.backends.base import SelectsByFacts
from mqconsole.mq.md import MQMD
from mqconsole.mq.message import Message
from mqconsole.ops.browse import iter_views, iter_views_plain
from mqconsole.ops.where import compile_where
from tests.ops.test_summary_routes import messages
from tests.support.examples import examples

NOW = datetime(2026, 11, 25, 12, 0, 0, tzinfo=UTC)
REASONS = st.sampled_from(["Q_FULL", "2085", "NOT_AUTHORIZED", "MQFB_EXPIRATION", "0", "-1",
                           str(2 ** 63), "99999999999999999999999"])  # past SQLite's integers
NUMBERS = st.one_of(st.integers(0, 400), st.integers(2 ** 63 - 2, 2 ** 80))
DESTS = st.sampled_from(["APP.A", "''", "X", "APP.*", "'A B'"])
TERMS = st.one_of(
    REASONS.map(lambda r: f"reason = {r}"),
    REASONS.map(lambda r: f"reason != {r}"),
    st.lists(REASONS, min_size=1, max_size=3).map(lambda rs: f"reason in ({', '.join(rs)})"),
    DESTS.map(lambda d: f"dest_q = {d}"),
    st.sampled_from(["MQSTR", "''", "MQHRF2"]).map(lambda f: f"original_format = {f}"),
    NUMBERS.map(lambda n: f"length > {n}"),
    NUMBERS.map(lambda n: f"length < {n}"),
    st.one_of(st.integers(0, 9), NUMBERS).map(lambda n: f"priority <= {n}"),
    st.sampled_from(["reason = null", "reason != null", "text ~ 'a'", "age > 1h",
                     "backout_count >= 1", "not reason = Q_FULL", "dest_q > 'M'"]),
)


@st.composite
def expressions(draw: st.DrawFn, depth: int = 0) -> str:
    if depth >= 2 or draw(st.booleans()):
        return draw(TERMS)
    op = draw(st.sampled_from(["and", "or"]))
    return f"({draw(expressions(depth + 1))} {op} {draw(expressions(depth + 1))})"


def _seen(views) -> list[tuple[int, str]]:
    return [(v.position, v.msgid) for v in views]


@examples(80, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(batch=st.lists(messages(), max_size=30), forget=st.sets(st.integers(0, 30)),
       expired=st.sets(st.integers(0, 30)), expr=expressions(),
       limit=st.one_of(st.none(), st.integers(1, 5)), page=st.integers(1, 7))
def test_fast_and_plain_selections_agree(make_qm, batch, forget, expired, expr, limit,
                                         page) -> None:
    qm = make_qm("DLQ")
    assert isinstance(qm, SelectsByFacts)
    for m in batch:
        qm.put("DLQ", m, syncpoint=False)
    ids = [r[0] for r in qm._db.execute("SELECT id FROM messages ORDER BY id")]
    with qm._guard(), qm._write() as db:
        for i in forget:
            if i < len(ids):
                db.execute("UPDATE messages SET f_format = NULL WHERE id = ?", (ids[i],))
        for i in expired:
            if i < len(ids):
                db.execute("UPDATE messages SET expires_at = 1.0 WHERE id = ?", (ids[i],))
    where = compile_where(expr)
    fast = _seen(iter_views(qm, "DLQ", where=where, limit=limit, now=NOW, batch=page))
    plain = _seen(iter_views_plain(qm, "DLQ", where=where, limit=limit, now=NOW))
    assert fast == plain


def test_the_fast_route_reads_only_candidates(make_qm) -> None:
    qm = make_qm("Q")
    for i in range(300):
        qm.put("Q", Message(MQMD(format="MQSTR", priority=i % 10), b"x" * i), syncpoint=False)
    where = compile_where("length >= 295 and priority = 7")
    assert where.fact_test is not None
    found, after = qm.select_page("Q", where.fact_test, None, 100)
    assert [m.body for _, m in found] == [b"x" * 297] and after is None  # the end
    views = list(iter_views(qm, "Q", where=where))
    assert _seen(views) == _seen(iter_views_plain(qm, "Q", where=where))
    assert [len(v.message.body) for v in views] == [297]


# -- a payload search pushed into SQLite (issue 27) -----------------------------------------------

_PAYLOAD_CODECS = st.sampled_from([(1208, "utf-8"), (500, "cp500"), (37, "cp037"),
                                   (819, "latin-1"), (1200, "utf-16-be"), (0, "utf-8"),
                                   (1233, "utf-32-le"), (932, "cp932")])
_PIECES = st.sampled_from(["order 42", "Order 42", "order 4", "rder 42!", "42", " ", "x",
                           "é", "\n", "ORDER"])


@st.composite
def payload_messages(draw: st.DrawFn) -> Message:
    ccsid, codec = draw(_PAYLOAD_CODECS)
    text = "".join(draw(st.lists(_PIECES, max_size=5)))
    data = text.encode(codec, "replace")
    if draw(st.booleans()):
        data = draw(st.binary(max_size=20)) + data  # bytes that may not decode
    md = MQMD(format=draw(st.sampled_from(["MQSTR   ", "        "])), ccsid=ccsid,
              encoding=546)
    if draw(st.booleans()):
        from mqconsole.mq.chain import add_dead_letter_header
        md, data = add_dead_letter_header(md, data, reason=draw(st.sampled_from([2053, 2085])),
                                          dest_q_name="APP.ORDERS")
    return Message(md, data)


PAYLOAD_TERMS = st.sampled_from([
    "text ~ 'order 42'", "payload ~ 'rder 4'", "text ~ 'order \\d+!'", "body ~ '42$'",
    "text ~ '(?i)order 42'", "text !~ 'order 42'", "text ~ 'ORDER'", "text ~ 'order 42' "
    "and reason = Q_FULL", "text ~ 'order 42' or reason = 2085", "not text ~ 'order 42'",
    "text ~ 'é\\n'"])


@examples(120, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(batch=st.lists(payload_messages(), max_size=25), forget=st.sets(st.integers(0, 25)),
       expr=PAYLOAD_TERMS, page=st.integers(1, 7))
def test_a_payload_search_selects_the_same_in_sqlite(make_qm, batch, forget, expr, page):
    """The literal a payload search needs, in every CCSID's bytes, tested by SQLite's
    ``instr`` before a row reaches Python, selects what testing every message does."""
    qm = make_qm("DLQ")
    for m in batch:
        qm.put("DLQ", m, syncpoint=False)
    ids = [r[0] for r in qm._db.execute("SELECT id FROM messages ORDER BY id")]
    with qm._guard(), qm._write() as db:
        for i in forget:
            if i < len(ids):
                db.execute("UPDATE messages SET f_format = NULL WHERE id = ?", (ids[i],))
    where = compile_where(expr)
    fast = _seen(iter_views(qm, "DLQ", where=where, now=NOW, batch=page))
    plain = _seen(iter_views_plain(qm, "DLQ", where=where, now=NOW))
    assert fast == plain


def test_a_payload_search_reads_only_bodies_holding_its_literal(make_qm, monkeypatch):
    from mqconsole.backends.embedded import selecting

    qm = make_qm("Q")
    for i in range(300):
        text = f"order {i}" if i % 50 else f"an order 4711 in message {i}"
        codec, ccsid = (("cp500", 500), ("utf-8", 1208), ("utf-16-le", 1200))[i % 3]
        md = MQMD(format="MQSTR", ccsid=ccsid, encoding=2 if ccsid == 1200 else 546)
        qm.put("Q", Message(md, text.encode(codec)), syncpoint=False)
    built = []
    real = selecting.message_from_row

    def spy(*args, **kw):
        built.append(args[1])
        return real(*args, **kw)
    monkeypatch.setattr(selecting, "message_from_row", spy)
    where = compile_where("text ~ 'order 4711 in'")
    assert where.fact_test is not None and where.fact_test[0] == "contains"
    views = list(iter_views(qm, "Q", where=where))
    assert [v.position for v in views] == [1, 51, 101, 151, 201, 251]
    assert len(built) == 6  # no other row became a message
