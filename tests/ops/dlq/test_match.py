"""Which rule applies: wildcard and symbolic patterns, IBM's first match with a retry
budget, and where RETRY and FWD put a message."""

from __future__ import annotations

import pytest

from mqconsole.mq.chain import add_dead_letter_header, dead_letter_header
from mqconsole.mq.md import MQMD
from mqconsole.ops.dlq.match import (
    Subject,
    applicable,
    first_match,
    matches,
    resolve_target,
    string_matches,
)
from mqconsole.ops.dlq.rules import parse_table


def dead_letter(*, reason=2053, dest="APP.ORDERS", dest_qm="QM1", **md_fields):
    md = MQMD(format="MQSTR   ", **md_fields)
    md, body = add_dead_letter_header(md, b"hello", reason=reason, dest_q_name=dest,
                                      dest_qmgr_name=dest_qm)
    dlh = dead_letter_header(md, body)
    assert dlh is not None
    return md, dlh


def subject(**kw) -> Subject:
    md, dlh = dead_letter(**kw)
    return Subject.of(md, dlh)


@pytest.mark.parametrize("pattern, value, expected", [
    ("APP.*", "APP.ORDERS", True),
    ("APP.*", "APP.", True),
    ("APP.*", "XAPP.ORDERS", False),
    ("*", "", True),
    ("A?C", "ABC", True),
    ("A?C", "AC", False),
    ("AB?", "AB", False),  # ? is never a trailing blank
    ("AB?", "AB  ", False),
    ("AB", "AB    ", True),  # trailing blanks are not significant
    ("AB  ", "AB", True),
    (" AB", "AB", False),  # leading blanks are
    ("A B", "A B", True),
    ("A*B", "A  xx B", True),
    ("a.b", "A.B", False),  # names are case-sensitive
    ("", "   ", True),  # ' ': a blank field
    ("", "X", False),
    ("A.B", "AxB", False),  # '.' is a character, not a regex
    ("*.BOQ", "APP.ORDERS.BOQ", True),
])
def test_string_patterns(pattern, value, expected) -> None:
    assert string_matches(pattern, value) is expected


def test_each_pattern_keyword_matches_its_field() -> None:
    s = subject(reason=2035, dest="APP.X", dest_qm="QMA", appl_identity_data="ident",
                put_appl_name="payroll", put_appl_type=6, feedback=259, msg_type=4,
                persistence=1, reply_to_q="REPLY.Q", reply_to_qmgr="QMR", user_identifier="bob")
    assert s.FORMAT == "MQSTR"
    table = parse_table(
        "APPLIDAT(iden?) APPLNAME(pay*) APPLTYPE(MQAT_UNIX) DESTQ(APP.X) DESTQM(QM?) "
        "FEEDBACK(MQFB_COA) FORMAT(MQSTR) MSGTYPE(MQMT_REPORT) PERSIST(MQPER_PERSISTENT) "
        "REASON(MQRC_NOT_AUTHORIZED) REPLYQ(REPLY.*) REPLYQM(QMR) USERID(bob) ACTION(IGNORE)")
    rule = table.rules[0]
    assert matches(rule, s)
    # each keyword, changed alone, stops the match
    for text in ["APPLIDAT(x)", "APPLNAME(x)", "APPLTYPE(MQAT_CICS)", "DESTQ(APP.Y)",
                 "DESTQM(X)", "FEEDBACK(MQFB_COD)", "FORMAT(MQHRF2)", "MSGTYPE(MQMT_REPLY)",
                 "PERSIST(MQPER_NOT_PERSISTENT)", "REASON(MQRC_Q_FULL)", "REPLYQ(OTHER)",
                 "REPLYQM(' ')", "USERID(Bob)"]:
        one = parse_table(f"{text} ACTION(IGNORE)").rules[0]
        assert not matches(one, s), text
    assert matches(parse_table("ACTION(IGNORE)").rules[0], s)


def test_numeric_patterns_by_number_and_name() -> None:
    s = subject(reason=2053)
    assert matches(parse_table("REASON(2053) ACTION(IGNORE)").rules[0], s)
    assert matches(parse_table("REASON(mqrc_q_full) ACTION(IGNORE)").rules[0], s)
    assert not matches(parse_table("REASON(2051) ACTION(IGNORE)").rules[0], s)


TABLE = parse_table("""\
REASON(MQRC_Q_FULL) ACTION(RETRY) RETRY(3)
DESTQ(NOTHING) ACTION(DISCARD) RETRY(50)
REASON(MQRC_Q_FULL) ACTION(FWD) FWDQ(SLOW.LANE) RETRY(2)
ACTION(FWD) FWDQ(CATCH.ALL) RETRY(0)
DESTQ(APP.*) ACTION(FWD) FWDQ(LAST) RETRY(1)
""")


def test_retry_budget_falls_through_to_the_next_matching_rule() -> None:
    s = subject(reason=2053, dest="APP.ORDERS")
    chosen = [applicable(TABLE, s, attempts) for attempts in range(8)]
    numbers = [r.number if r else None for r in chosen]
    # RETRY(3) for attempts 0-2; the DISCARD rule does not match; FWD SLOW.LANE for 3-4;
    # RETRY(0) never applies; the last rule once; then nothing: left alone (IGNORE)
    assert numbers == [1, 1, 1, 3, 3, 5, None, None]
    assert first_match(TABLE, s).number == 1


def test_no_matching_rule_leaves_the_message() -> None:
    table = parse_table("REASON(MQRC_Q_FULL) ACTION(RETRY)")
    s = subject(reason=2035)
    assert applicable(table, s, 0) is None
    assert first_match(table, s) is None


def test_targets_of_retry_and_fwd_with_symbols() -> None:
    md, dlh = dead_letter(dest="APP.ORDERS", dest_qm="QMD", reply_to_q="R.Q",
                          reply_to_qmgr="QMR")
    rules = parse_table("""\
ACTION(RETRY)
ACTION(FWD) FWDQ(&DESTQ) FWDQM(&DESTQM)
ACTION(FWD) FWDQ(&REPLYQ) FWDQM(&REPLYQM)
ACTION(FWD) FWDQ(PLAIN)
ACTION(FWD) FWDQ(PLAIN) FWDQM(QMX)
""").rules
    assert [resolve_target(r, md, dlh) for r in rules] == [
        ("APP.ORDERS", "QMD"), ("APP.ORDERS", "QMD"), ("R.Q", "QMR"), ("PLAIN", ""),
        ("PLAIN", "QMX")]
