"""The --where expression language: parsing, evaluation, errors, and never raising."""

from __future__ import annotations

import re
import string
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mqconsole.mq.chain import add_dead_letter_header
from mqconsole.mq.dlh import MQDLH
from mqconsole.mq.md import MQMD
from mqconsole.mq.message import Message
from mqconsole.ops import views as views_mod
from mqconsole.ops.timefmt import format_put_date_time
from mqconsole.ops.views import MessageView
from mqconsole.ops.where import FIELDS, Where, WhereError, compile_where, field_names

NOW = datetime(2026, 9, 22, 12, 0, 0, tzinfo=UTC)


def make_view(payload: bytes = b"hello world", *, fmt: str = "MQSTR", ccsid: int = 1208,
              reason: int | None = None, dest_q: str = "APP.ORDERS", dest_qmgr: str = "QM1",
              age: float = 60.0, position: int = 1, big_endian: bool = False,
              **md_fields) -> MessageView:
    """A browsed message; with ``reason`` it carries a dead-letter header (172 bytes)."""
    d, t = format_put_date_time(NOW - timedelta(seconds=age))
    encoding = 273 if big_endian else 546
    md_kw = dict(format=fmt, ccsid=ccsid, encoding=encoding, put_date=d, put_time=t,
                 priority=4, persistence=1, user_identifier="appuser",
                 put_appl_name="orders.exe", msg_id=bytes(range(24)))
    md_kw.update(md_fields)
    md = MQMD(**md_kw)
    body = payload
    if reason is not None:
        md, body = add_dead_letter_header(md, payload, reason=reason, dest_q_name=dest_q,
                                          dest_qmgr_name=dest_qmgr, put_appl_type=6,
                                          put_appl_name="runmqchl", put_date=d, put_time=t)
    return MessageView(position, Message(md, body), NOW)


def m(expr: str, view: MessageView) -> bool:
    return compile_where(expr).matches(view)


# -- the fields ------------------------------------------------------------------------------

FULL = make_view(b'{"order": 42}', reason=2053, dest_q="APP.ORDERS", age=7200, backout_count=3)
PLAIN = make_view(b"plain text payload", age=30, priority=9, persistence=0)


@pytest.mark.parametrize("expr", [
    "reason = 2053", "reason = Q_FULL", "reason = MQRC_Q_FULL", "reason = q_full",
    "reason == 'MQRC_Q_FULL'", "reason in (Q_FULL, PUT_INHIBITED)", "reason in (2051,2053)",
    "reason not in (PUT_INHIBITED)", "reason != 2051", "reason > 2050", "reason ~ 'Q_FULL'",
    "reason ~ '^MQRC_Q_'", "reason != null",
    "dest_q = APP.ORDERS", "destq = 'APP.*'", "dest_q = \"APP.ORD?RS\"", "dest = *ORDERS",
    "dest_q ~ 'ORD'", "dest_q !~ '^SYSTEM'", "dest_qmgr = QM1", "dest_q in ('X', 'APP.*')",
    "format = MQDEAD", "original_format = MQSTR", "fmt ~ DEAD",
    "age > 1h", "age > 119m", "age < 2h1s", "age >= 7200", "age <= 2h", "age > 1.5h",
    "backout_count = 3", "backout >= 2", "bo < 4",
    "priority = 4", "persistence = PERSISTENT", "persistence = MQPER_PERSISTENT",
    "persistence = 1", "msg_type = DATAGRAM", "type = MQMT_DATAGRAM", "type = 8",
    "feedback = 0", "feedback = NONE",
    "user = appuser", "userid ~ '^app'", "appl = 'orders.exe'", "put_appl_name = '*.exe'",
    "msgid = 000102030405060708090A0B0C0D0E0F1011121314151617",
    "msgid = 000102030405060708090a0b0c0d0e0f1011121314151617", "id = 0001*",
    "msgid = 0x0001*", "correlid = 000000000000000000000000000000000000000000000000",
    "correlid ~ '^0+$'",
    "length = 185", "length > 100", "size < 1k", "len <= 0.5KiB",
    "put_time < 2026-09-22T11:00:00Z", "put_time >= 2026-09-22", "time > '2026-09-22 09:59'",
    "position = 1", "pos < 2", "ccsid = 1208",
    "text ~ order", "text ~ '\"order\": \\d+'", "body ~ '(?i)ORDER'", "text !~ foo",
    "payload_format = MQSTR",
    "REASON = Q_FULL AND AGE > 1H", "reason = 2053 and (age > 1d or backout > 2)",
    "not reason = 2051", "not (reason = 2051 or reason = 2035)", "not not reason = 2053",
    "reason = 2051 or reason = 2053", "(((reason = 2053)))",
])
def test_true_for_dead_lettered(expr):
    assert m(expr, FULL), expr


@pytest.mark.parametrize("expr", [
    "reason = 2051", "reason = PUT_INHIBITED", "reason in (2035, 2085)",
    "reason not in (Q_FULL)", "reason ~ INHIBITED", "reason = null",
    "dest_q = APP", "dest_q = 'app.orders'", "dest_q = 'APP.?'", "dest_q !~ ORD",
    "age < 1h", "age > 1d", "backout = 0", "priority > 4", "persistence = NOT_PERSISTENT",
    "user = other", "msgid = FF*", "length > 1m", "put_time > 2026-09-22T11:00:00Z",
    "text ~ '^plain'", "text !~ order", "format = MQSTR",
    "reason = 2053 and age < 1h", "not reason = 2053", "reason = 2051 or age < 1m",
])
def test_false_for_dead_lettered(expr):
    assert not m(expr, FULL), expr


@pytest.mark.parametrize("expr", [
    # with no dead-letter header, every comparison on its fields is false ...
    "reason = 2053", "reason != 2053", "reason > 0", "reason < 99999", "reason ~ '.'",
    "reason !~ 'x'", "reason in (Q_FULL)", "reason not in (Q_FULL)",
    "dest_q = '*'", "dest_q != 'APP.ORDERS'", "dest_q ~ ''", "dest_q !~ 'x'",
    "dest_qmgr = '*'", "reason != null", "dest_q != null",
])
def test_missing_values_compare_false(expr):
    assert not m(expr, PLAIN), expr


@pytest.mark.parametrize("expr", [
    # ... and 'not' inverts the whole comparison, so these hold
    "not reason = 2053", "not reason != 2053", "not dest_q = '*'", "reason = null",
    "dest_q = null", "DEST_Q = NULL", "reason = null and text ~ plain",
    "persistence = NOT_PERSISTENT", "priority = 9", "format = MQSTR", "age < 1m",
    "original_format = MQSTR", "text ~ '^plain text'", "length = 18",
])
def test_plain_message(expr):
    assert m(expr, PLAIN), expr


def test_binary_payload_has_no_text():
    v = make_view(bytes(range(256)) * 4, fmt="", ccsid=1208)
    assert not m("text ~ ''", v)
    assert not m("text !~ 'x'", v)
    assert m("text = null", v)


def test_text_of_ebcdic_payload():
    v = make_view("HELLO FROM ZOS".encode("cp500"), ccsid=500, reason=2085, big_endian=True,
                  dest_q="CICS.IN")
    assert m("text ~ 'FROM ZOS' and dest_q = CICS.IN and reason = UNKNOWN_OBJECT_NAME", v)


def test_feedback_reason_names():
    v = make_view(b"x", reason=258)
    assert m("reason = MQFB_EXPIRATION", v)
    assert m("reason = EXPIRATION", v)
    assert m("reason ~ MQFB_", v)


def test_age_without_put_time_is_missing():
    v = make_view(b"x", put_date="", put_time="")
    assert not m("age > 0s", v)
    assert not m("age < 100w", v)
    assert m("age = null", v)
    assert not m("put_time > 2000-01-01", v)


def test_size_suffixes():
    v = make_view(b"x" * 10240)
    assert m("length = 10k", v)
    assert m("size = 10KB", v)
    assert m("size = 10KiB", v)
    assert m("size < 0.01m", v)
    assert m("size < 1MB", v)
    assert not m("size > 10k", v)


def test_quotes():
    v = make_view(b"it's \"quoted\" C:\\temp\\x")
    assert m("text ~ 'it''s'", v)
    assert m("text ~ '\"quoted\"'", v)
    assert m('text ~ """quoted"""', v)
    assert m("text ~ 'C:\\\\temp'", v)  # backslashes pass through to the regex


def test_glob_is_anchored_and_literal_otherwise():
    v = make_view(b"x", reason=2053, dest_q="A.B+C")
    assert m("dest_q = 'A.B+C'", v)
    assert m("dest_q = 'A.*'", v)
    assert m("dest_q = '*+C'", v)
    assert not m("dest_q = 'A'", v)
    assert not m("dest_q = 'A.B'", v)
    assert not m("dest_q = 'AXB+C'", v)  # '.' is not a wildcard


def test_needs_text_and_payload():
    assert compile_where("text ~ x").needs_text
    assert compile_where("reason = 1 or body ~ x").needs_text
    assert not compile_where("reason = Q_FULL and age > 2h").needs_text
    assert not compile_where("reason = Q_FULL").needs_payload
    assert compile_where("payload_format = MQSTR").needs_payload
    assert not compile_where("payload_format = MQSTR").needs_text
    w = compile_where("reason = 2053 and destq = X")
    assert w.fields == {"reason", "dest_q"}
    assert isinstance(w, Where)
    assert w(FULL) is False  # callable like a predicate


def test_keywords_case_insensitive():
    assert m("Reason = q_full AnD NOT Age < 1H Or priority = 99", FULL)
    assert m("reason NOT IN (2035)", FULL)


def test_value_keyword_can_be_quoted():
    v = make_view(b"x", user_identifier="and")
    assert m("user = 'and'", v)
    with pytest.raises(WhereError):
        compile_where("user = and")


def test_field_names_lists_aliases():
    names = field_names()
    for n in ("reason", "dest_q", "destq", "format", "age", "backout_count", "backout",
              "priority", "persistence", "user", "put_appl_name", "appl", "msgid",
              "correlid", "length", "size", "text", "put_time", "position"):
        assert n in names


# -- errors ----------------------------------------------------------------------------------

def error(expr: str) -> WhereError:
    with pytest.raises(WhereError) as info:
        compile_where(expr)
    return info.value


def test_error_names_position_with_caret():
    e = error("reason = 2053 and age >")
    assert e.position == 23
    assert e.column == 24
    lines = str(e).split("\n")
    assert lines[0].startswith("Bad --where expression at position 24:")
    assert lines[0].endswith(".")
    assert lines[0].count(". ") == 0  # one sentence
    assert lines[1] == "  reason = 2053 and age >"
    assert lines[2] == "  " + " " * 23 + "^"


@pytest.mark.parametrize("expr,pos,words", [
    ("", 0, "empty"),
    ("   ", 3, "empty"),
    ("reason", 6, "operator"),
    ("reason =", 8, "value"),
    ("reason = 2053 age > 1h", 14, "'and', 'or'"),
    ("(reason = 2053", 14, "')'"),
    ("reason = 2053)", 13, "no matching"),
    ("reason = 'Q_FULL", 9, "closing"),
    ("reason ! 2053", 7, "not an operator"),
    ("reason = NOT_A_REASON", 9, "not a known reason"),
    ("age > soon", 6, "duration"),
    ("age > -5m", 6, "negative"),
    ("priority = high", 11, "whole number"),
    ("length > 10q", 9, "size"),
    ("put_time > yesterday", 11, "ISO 8601"),
    ("msgid = XYZ", 8, "hexadecimal"),
    ("text ~ '('", 8, "regular expression"),  # at the pattern's piece RE2 names
    ("text ~ '[a-'", 8, "regular expression"),
    ("text ~ 'ab[a-'", 10, "regular expression"),
    ("text ~ '(a)\\1'", 11, "RE2 does not support backreferences"),
    ("text ~ 'it''s(?=x)'", 13, "RE2 does not support lookahead"),  # '' is one quote
    ("text ~ 'x(?<!y)'", 9, "RE2 does not support lookbehind"),
    ("text ~ 'a++'", 9, "RE2 does not support possessive"),
    ("text ~ 'end\\Z'", 11, "write \\z"),
    ("reason in 2053", 10, "'('"),
    ("reason in (2053", 15, "',' or ')'"),
    ("reason in ()", 11, "value in the list"),
    ("reason in (null)", 11, "null"),
    ("reason < null", 7, "null"),
    ("and", 0, "field name"),
    ("reason = 1 and", 14, "field name"),
    ("not", 3, "field name"),
    ("= 5", 0, "field name"),
    ("reason = 2053 or or", 17, "field name"),
    ("persistence = SOMETIMES", 14, "persistence"),
])
def test_syntax_errors(expr, pos, words):
    e = error(expr)
    assert e.position == pos, str(e)
    assert words in str(e), str(e)
    assert f"position {pos + 1}" in str(e)


def test_unknown_field_lists_known_fields():
    e = error("reasn = 2053")
    assert "unknown field 'reasn'" in str(e)
    for name in ("reason", "dest_q", "age", "backout_count", "text"):
        assert name in str(e)
    assert e.position == 0


def test_deep_nesting_is_an_error_not_a_crash():
    e = error("(" * 2000 + "reason = 1" + ")" * 2000)
    assert "nests deeper" in str(e)
    e = error("not " * 2000 + "reason = 1")
    assert "nests deeper" in str(e)
    # reasonable nesting is fine
    assert compile_where("(" * 30 + "reason = 2053" + ")" * 30).matches(FULL)


def test_error_echo_is_safe_and_short():
    e = error("reason = 2053 and \x1b[31m = 1")
    assert "\x1b" not in str(e)
    long_expr = "reason = 2053 and " * 100 + "??"
    e = error(long_expr)
    line, caret = str(e).split("\n")[1:3]
    assert len(line) < 120
    assert line[caret.index("^")] == "?"


def test_none_and_non_text():
    with pytest.raises(WhereError):
        compile_where(None)
    with pytest.raises(WhereError):
        compile_where(42)  # type: ignore[arg-type]
    with pytest.raises(WhereError):
        compile_where("reason = 1 or " * 2000)


def test_where_error_is_a_value_error():
    assert issubclass(WhereError, ValueError)
    e = WhereError("something odd", 3)
    assert e.position == 3
    assert str(e) == "Bad --where expression at position 4: something odd."


# -- never raising ---------------------------------------------------------------------------

@given(st.text(max_size=80))
def test_arbitrary_text_raises_only_where_error(expr):
    try:
        compile_where(expr)
    except WhereError as e:
        assert str(e).startswith("Bad --where expression at position ")


_PIECES = st.sampled_from([
    "reason", "dest_q", "age", "text", "length", "msgid", "put_time", "persistence", "user",
    "priority", "format", "and", "or", "not", "in", "(", ")", ",", "=", "!=", "<", ">=", "~",
    "!~", "null", "2053", "Q_FULL", "2h", "10k", "'A*'", '"x"', "'('", "2026-09-22", "*",
    "0x", "-1", "1e9", "''", "🙂", "\x00",
])


@given(st.lists(_PIECES, max_size=14))
def test_token_soup_raises_only_where_error(pieces):
    try:
        w = compile_where(" ".join(pieces))
    except WhereError:
        return
    w.matches(FULL)
    w.matches(PLAIN)


EXPRESSIONS = [
    "reason = Q_FULL", "reason != 2053", "reason ~ '.'", "reason in (2053, EXPIRATION)",
    "dest_q = 'A*'", "dest_qmgr ~ 'Q'", "format = MQDEAD", "original_format ~ 'STR'",
    "payload_format = MQHRF2", "age > 1h", "age < 1w", "put_time > 2020-01-01",
    "backout > 0", "priority >= 5", "persistence = PERSISTENT", "msg_type = REPORT",
    "feedback ~ EXPIR", "user ~ '^a'", "appl = '*'", "reply_to_q = ''", "msgid = '41*'",
    "correlid ~ '^0+$'", "length > 1k", "ccsid = 500", "position < 10", "text ~ '\\w+'",
    "text !~ 'x'", "not (text ~ 'a' or reason = null)", "age = null",
]
COMPILED = [compile_where(e) for e in EXPRESSIONS]

_FORMATS = st.sampled_from(["", "MQSTR", "MQDEAD", "MQHRF2", "MQXMIT", "MQHMDE", "MQHRF",
                            "MQHSAP", "XYZ\x00\x01", "\x1b[2J"])
_CCSIDS = st.sampled_from([0, 37, 500, 819, 1047, 1200, 1208, 65535, -1, 99999])
_LONGS = st.integers(min_value=-(2 ** 31), max_value=2 ** 31 - 1)


@st.composite
def arbitrary_messages(draw):
    md = MQMD(
        format=draw(_FORMATS), ccsid=draw(_CCSIDS),
        encoding=draw(st.sampled_from([0, 1, 2, 273, 546, 785, -1, 17])),
        priority=draw(_LONGS), persistence=draw(_LONGS), backout_count=draw(_LONGS),
        msg_type=draw(_LONGS), feedback=draw(_LONGS), expiry=draw(_LONGS),
        report=draw(_LONGS),
        put_date=draw(st.text(alphabet=string.digits + " \x00x", max_size=8)),
        put_time=draw(st.text(alphabet=string.digits + " \x00x", max_size=8)),
        user_identifier=draw(st.text(max_size=12)),
        msg_id=draw(st.binary(min_size=24, max_size=24)),
    )
    prefix = b""
    if draw(st.booleans()):
        dlh = MQDLH(reason=draw(_LONGS), dest_q_name=draw(st.text(max_size=48)),
                    format=draw(_FORMATS), ccsid=draw(_CCSIDS),
                    encoding=draw(st.sampled_from([273, 546, 0])),
                    put_date=draw(st.text(max_size=8)), put_time=draw(st.text(max_size=8)))
        prefix = dlh.pack(big_endian=draw(st.booleans()),
                          ccsid=draw(st.sampled_from([819, 500])))
        cut = draw(st.integers(min_value=0, max_value=len(prefix)))
        prefix = prefix[:cut] if draw(st.booleans()) else prefix
    body = prefix + draw(st.binary(max_size=300))
    return MessageView(draw(st.integers(min_value=0, max_value=10 ** 6)),
                       Message(md, body),
                       draw(st.sampled_from([NOW, NOW - timedelta(days=20000), None])))


@given(arbitrary_messages())
def test_compiled_expressions_never_raise_on_arbitrary_messages(view):
    for w in COMPILED:
        assert w.matches(view) in (True, False)


# -- cheap unless asked ----------------------------------------------------------------------

def test_header_only_expressions_do_not_touch_the_payload(monkeypatch):
    def boom(*a, **k):
        raise AssertionError("payload parsed or decoded")
    monkeypatch.setattr(views_mod._chain, "parse_body_lenient", boom)
    monkeypatch.setattr(views_mod._payload, "decode_text", boom)
    v = make_view(b"payload", reason=2053, age=7200)
    w = compile_where("reason = Q_FULL and age > 1h and dest_q = 'APP.*' and backout = 0 "
                      "and length < 1k and msgid = 0001* and put_time < 2026-09-23")
    assert not w.needs_payload
    assert w.matches(v)


# -- the documentation ---------------------------------------------------------------------

def test_documented_examples_compile():
    doc = (Path(__file__).resolve().parents[2] / "docs" / "where.md").read_text()
    block = doc.split("## Examples")[1].split("```text")[1].split("```")[0]
    examples = [re.split(r"\s{3,}", line.strip())[0] for line in block.strip().splitlines()]
    assert len(examples) >= 10
    for expr in examples:
        compile_where(expr)
    documented = set(re.findall(r"^\| `(\w+)` \|", doc, re.M))
    assert documented == {f.name for f in FIELDS}
