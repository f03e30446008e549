"""The rules-table parser: IBM's syntax, every keyword, and a located sentence for each
problem."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mqconsole.ops.dlq.rules import (
    ALL_KEYWORDS,
    Problem,
    RulesError,
    check_table,
    parse_table,
    read_table,
)

# IBM's example table (docs/dlq-handler.md), as the docs ship it
IBM_EXAMPLE_FILE = Path(__file__).parents[3] / "examples" / "dlq" / "ibm-example.rules"
IBM_EXAMPLE = IBM_EXAMPLE_FILE.read_text()


def problems(text: str) -> list[Problem]:
    table, found = check_table(text)
    assert table is None
    return found


def only_rule(text: str):
    return parse_table(text).rules[0]


def test_ibm_example_parses() -> None:
    table = parse_table(IBM_EXAMPLE)
    c = table.control
    assert (c.input_q, c.input_qm, c.retry_interval, c.wait, c.line) == ("", "", 60, 0, 2)
    assert [r.number for r in table.rules] == [1, 2, 3, 4, 5]
    assert [r.line for r in table.rules] == [3, 5, 6, 7, 8]
    r1, r2, r3, r4, r5 = table.rules
    assert (r1.action, r1.numbers, r1.fwd_q, r1.header) == (
        "FWD", {"REASON": 2035}, "DEADQ.MANUAL.SECURITY", True)
    assert r1.text == "REASON(MQRC_NOT_AUTHORIZED) ACTION(FWD) FWDQ(DEADQ.MANUAL.SECURITY)"
    assert (r2.action, r2.numbers, r2.retry) == ("RETRY", {"REASON": 2053}, 5)
    assert (r3.numbers, r3.retry) == ({"REASON": 2051}, 5)
    assert (r4.strings, r4.fwd_q, r4.header) == ({"DESTQ": "APP.*"}, "APP.DEADQ", False)
    assert (r5.strings, r5.numbers, r5.fwd_q, r5.header) == ({}, {}, "IGNORED.DEAD.QUEUE", True)


def test_control_data_defaults_and_values() -> None:
    table = parse_table("ACTION(IGNORE)")
    assert (table.control.retry_interval, table.control.wait, table.control.line) == (60, None, 0)
    c = parse_table("inputq(MY.DLQ), inputqm(QM2) retryint(5) wait(30)\nACTION(IGNORE)").control
    assert (c.input_q, c.input_qm, c.retry_interval, c.wait) == ("MY.DLQ", "QM2", 5, 30)
    assert parse_table("WAIT(yes)\nACTION(IGNORE)").control.wait is None
    assert parse_table("WAIT(No)\nACTION(IGNORE)").control.wait == 0


@pytest.mark.parametrize("text, expected", [
    ("ACTION(DISCARD)", ("DISCARD", "", "", True, "DEF", 1)),
    ("ACTION(IGNORE)", ("IGNORE", "", "", True, "DEF", 1)),
    ("ACTION(RETRY) RETRY(3) PUTAUT(CTX)", ("RETRY", "", "", True, "CTX", 3)),
    ("ACTION(FWD) FWDQ(Q.A) FWDQM(QM9) HEADER(NO) PUTAUT(DEF) RETRY(0)",
     ("FWD", "Q.A", "QM9", False, "DEF", 0)),
    ("action(fwd) fwdq(&destq) fwdqm(&destqm)", ("FWD", "&DESTQ", "&DESTQM", True, "DEF", 1)),
    ("ACTION(FWD) FWDQ(&REPLYQ) FWDQM(&REPLYQM)", ("FWD", "&REPLYQ", "&REPLYQM", True, "DEF", 1)),
    ("ACTION(FWD) FWDQ(X) FWDQM(' ')", ("FWD", "X", "", True, "DEF", 1)),
])
def test_each_action_keyword(text, expected) -> None:
    r = only_rule(text)
    assert (r.action, r.fwd_q, r.fwd_qm, r.header, r.put_aut, r.retry) == expected


def test_each_pattern_keyword_with_symbolic_names() -> None:
    r = only_rule("APPLIDAT(id*) APPLNAME('my app') APPLTYPE(MQAT_UNIX) DESTQ(APP.?) "
                  "DESTQM(QM*) FEEDBACK(MQFB_COA) FORMAT(MQSTR) MSGTYPE(MQMT_REPORT) "
                  "PERSIST(MQPER_PERSISTENT) REASON(MQRC_Q_FULL) REPLYQ(R.Q) REPLYQM(' ') "
                  "USERID(alice) ACTION(IGNORE)")
    assert r.strings == {"APPLIDAT": "id*", "APPLNAME": "my app", "DESTQ": "APP.?",
                         "DESTQM": "QM*", "FORMAT": "MQSTR", "REPLYQ": "R.Q", "REPLYQM": "",
                         "USERID": "alice"}
    assert r.numbers == {"APPLTYPE": 6, "FEEDBACK": 259, "MSGTYPE": 4, "PERSIST": 1,
                         "REASON": 2053}


def test_numbers_symbols_in_any_case_and_star() -> None:
    r = only_rule("REASON(2053) FEEDBACK(mqrc_not_authorized) MSGTYPE('*') PERSIST(*) "
                  "APPLTYPE(mqat_java) ACTION(discard)")
    assert r.numbers == {"REASON": 2053, "FEEDBACK": 2035, "APPLTYPE": 28}
    assert only_rule("REASON(MQFB_EXPIRATION) ACTION(IGNORE)").numbers == {"REASON": 258}


def test_string_patterns_are_case_sensitive_and_keep_quotes() -> None:
    r = only_rule("DESTQ('it''s.Q') USERID(Bob) ACTION(FWD) FWDQ(My.Queue)")
    assert r.strings == {"DESTQ": "it's.Q", "USERID": "Bob"}
    assert r.fwd_q == "My.Queue"
    assert r.pattern == "DESTQ('it''s.Q') USERID(Bob)"


def test_blanks_commas_and_spaces_inside_parentheses() -> None:
    r = only_rule("  DESTQ ( APP.* ) ,ACTION( FWD ),,FWDQ(  X  )  ")
    assert (r.strings, r.action, r.fwd_q) == ({"DESTQ": "APP.*"}, "FWD", "X")


def test_plus_continues_from_first_nonblank_and_minus_from_line_start() -> None:
    table = parse_table("DESTQ(APP+\n      .IN) ACTION(DISCARD)\n"
                        "DESTQ(APP-\n.OUT) ACTION(+\n   IGNORE)\n"
                        "REASON(MQRC_Q_FULL) -\nACTION(RETRY)\n")
    assert [r.strings for r in table.rules] == [{"DESTQ": "APP.IN"}, {"DESTQ": "APP.OUT"}, {}]
    assert [r.line for r in table.rules] == [1, 3, 6]
    assert table.rules[2].text == "REASON(MQRC_Q_FULL) ACTION(RETRY)"
    # inside quotes the difference shows: '-' keeps the next line's leading blanks
    quoted = parse_table("APPLNAME('pay -\n   roll') ACTION(IGNORE)\n"
                         "APPLNAME('pay +\n   roll') ACTION(IGNORE)\n")
    assert [r.strings for r in quoted.rules] == [{"APPLNAME": "pay    roll"},
                                                 {"APPLNAME": "pay roll"}]


def test_comments_and_blank_lines_anywhere_but_inside_a_continuation() -> None:
    # a line continuing an entry is part of it, even when it starts with '*'
    assert problems("ACTION(FWD) FWDQ(+\n*Q)")[0].text.startswith("expected a name")
    t = parse_table("* head\n\n   * indented\nREASON(MQRC_Q_FULL) ACTION(RETRY)\n"
                    "* two\n\nACTION(IGNORE)\r\n")
    assert [r.line for r in t.rules] == [4, 7]


def test_crlf_and_cr_line_ends() -> None:
    assert len(parse_table("ACTION(IGNORE)\r\nACTION(DISCARD)\rACTION(RETRY)").rules) == 3


@pytest.mark.parametrize("text, line, column, start", [
    ("ACTION(FWD)", 1, 1, "expected FWDQ(queue|&DESTQ|&REPLYQ) with ACTION(FWD)"),
    ("ACTION(IGNORE)\nACTION(FWD) FWDQ(A B)", 2, 20, "expected ')' after the value of FWDQ"),
    ("* c\n DESTQ(APP.*) ACTION(IGNORE", 2, 28, "expected ')' to close ACTION("),
    ("REASON(MQRC_Q_FUL) ACTION(IGNORE)", 1, 8,
     "expected a known MQRC_ name, found MQRC_Q_FUL (did you mean MQRC_Q_FULL?)"),
    ("FEEDBACK(MQMT_REPLY) ACTION(IGNORE)", 1, 10, "expected a number, an MQFB_/MQRC_ name"),
    ("REASON('2*') ACTION(DISCARD)", 1, 8, "expected a number, an MQRC_/MQFB_ name or '*'"),
    ("MSGTYPE(two) ACTION(DISCARD)", 1, 9, "expected a number, an MQMT_ name or '*'"),
    ("ACTION(IGNORE)\nWAIT(NO)", 2, 1, "WAIT is control data: expected it in the first entry"),
    ("INPUTQ(X) ACTION(IGNORE)", 1, 1, "INPUTQ is control data: expected it in an entry of"),
    ("FORMAT('') ACTION(IGNORE)", 1, 8, "expected a value for FORMAT"),
    ("FORMAT() ACTION(IGNORE)", 1, 8, "expected a value for FORMAT"),
    ("ACTION(IGNORE)DESTQ(A)", 1, 15, "expected a blank or comma after ACTION(...)"),
    ("DESTQX(A) ACTION(IGNORE)", 1, 1, "DESTQX is not a rules-table keyword: did you mean DESTQ?"),
    ("ACTION(IGNORE) +", 1, 16, "expected a line after the continuation '+'"),
    ("ACTION(DISCARD) HEADER(NO)", 1, 17, "HEADER goes with ACTION(FWD) only"),
    ("ACTION(RETRY) FWDQ(X)", 1, 15, "FWDQ goes with ACTION(FWD) only"),
    ("ACTION(RETRY) RETRY(1000000000)", 1, 21, "expected RETRY between 0 and 999,999,999"),
    ("ACTION(RETRY) RETRY(-1)", 1, 21, "expected a whole number for RETRY"),
    ("ACTION(MOVE)", 1, 8, "expected ACTION(DISCARD|IGNORE|RETRY|FWD), found ACTION(MOVE)"),
    ("ACTION(FW*)", 1, 8, "expected a value without wildcards for ACTION"),
    ("ACTION(FWD) FWDQ(APP.*)", 1, 18, "expected a name for FWDQ: wildcards are patterns"),
    ("ACTION(FWD) FWDQ(&FOO)", 1, 18, "expected &DESTQ or &REPLYQ for FWDQ"),
    ("ACTION(FWD) FWDQ(' ')", 1, 18, "expected a queue name, &DESTQ or &REPLYQ for FWDQ"),
    ("ACTION(FWD) FWDQ(BAD-NAME)", 1, 18, "expected an MQ name for FWDQ"),
    ("ACTION(FWD) FWDQM(&DESTQ) FWDQ(X)", 1, 19, "expected &DESTQM or &REPLYQM for FWDQM"),
    ("ACTION(FWD) FWDQ(X) HEADER(MAYBE)", 1, 28, "expected HEADER(YES|NO)"),
    ("ACTION(FWD) FWDQ(X) PUTAUT(ALT)", 1, 28, "expected PUTAUT(DEF|CTX)"),
    ("DESTQ(A) DESTQ(B) ACTION(IGNORE)", 1, 10, "DESTQ is given twice in this entry"),
    ("DESTQ(A)", 1, 1, "expected ACTION(DISCARD|IGNORE|RETRY|FWD) in this rule"),
    ("FORMAT(TOOLONGFORMAT) ACTION(IGNORE)", 1, 8, "expected at most 8 characters"),
    ("DESTQ('unclosed) ACTION(IGNORE)", 1, 7, "expected a closing quote for the value of DESTQ"),
    ("(X) ACTION(IGNORE)", 1, 1, "expected a keyword such as ACTION(...), found '('"),
    ("ACTION IGNORE", 1, 8, "expected '(' after ACTION, found 'I'"),
    ("RETRYINT(soon)\nACTION(IGNORE)", 1, 10, "expected a whole number for RETRYINT"),
    ("WAIT(MAYBE)\nACTION(IGNORE)", 1, 6, "expected WAIT(YES), WAIT(NO) or WAIT(seconds)"),
    ("INPUTQ(A*)\nACTION(IGNORE)", 1, 8, "expected a name for INPUTQ"),
    ("", 1, 1, "expected at least one rule"),
    ("* nothing but comments\n", 1, 1, "expected at least one rule"),
    ("WAIT(NO)\n", 1, 1, "expected at least one rule"),
])
def test_problems_name_line_column_and_what_was_expected(text, line, column, start) -> None:
    first = problems(text)[0]
    assert (first.line, first.column) == (line, column), first
    assert first.text.startswith(start), first.text


def test_every_bad_entry_is_reported_and_the_sentence_counts_the_rest(tmp_path) -> None:
    text = "ACTION(IGNORE)\nACTION(FWD)\nDESTQ(A\nACTION(NOPE)\n"
    found = problems(text)
    assert [p.line for p in found] == [2, 3, 4]
    with pytest.raises(RulesError) as e:
        parse_table(text, file="site.rules")
    assert str(e.value) == ("site.rules line 2 column 1: expected FWDQ(queue|&DESTQ|&REPLYQ) "
                            "with ACTION(FWD): where to forward to (and 2 more problems)")
    path = tmp_path / "t.rules"
    path.write_bytes(b"ACTION(IGNORE)\nDESTQ(\xff\x1b[31m) ACTION(IGNORE)\n")
    with pytest.raises(RulesError) as e:
        read_table(str(path))
    message = str(e.value)
    assert "\x1b" not in message and "line 2 column 7: expected printable text" in message


def test_continuation_positions_point_into_the_right_line() -> None:
    first = problems("REASON(MQRC_Q_FULL) +\n     ACTION(SEND)")[0]
    assert (first.line, first.column) == (2, 13)
    first = problems("REASON(MQRC_Q_FULL) ACTION(RET-\nRX)")[0]
    assert (first.line, first.column) == (1, 28)


keyword = st.sampled_from((*ALL_KEYWORDS, "ACTION(FWD)", "(", ")", "'", "+", "-", "*", ",",
                           "&DESTQ", "MQRC_Q_FULL", "\n", "\r\n", " "))
hostile = st.lists(st.one_of(keyword, st.text(max_size=6)), max_size=40).map("".join)


@given(hostile)
def test_the_parser_never_crashes_on_hostile_text(text: str) -> None:
    table, found = check_table(text)
    assert (table is None) == bool(found)
    for p in found:
        assert p.line >= 1 and p.column >= 1 and p.text
        sentence = p.sentence("f")
        assert "\n" not in sentence and "\x1b" not in sentence


@given(st.one_of(st.binary(max_size=200),
                 hostile.map(lambda t: t.encode("utf-8", "surrogatepass")),
                 st.tuples(hostile, st.binary(max_size=8), hostile).map(
                     lambda p: p[0].encode("utf-8", "surrogatepass") + p[1]
                     + p[2].encode("utf-8", "surrogatepass"))))
def test_a_rules_file_of_hostile_bytes_is_a_table_or_located_sentences(data: bytes) -> None:
    """Whatever bytes a rules file holds (not UTF-8, NULs, escapes, stray CRs): read_table
    gives a table or a RulesError whose sentences are one printable line each."""
    import os
    import tempfile

    fd, path = tempfile.mkstemp(suffix=".rules")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        try:
            table = read_table(path)
        except RulesError as e:
            assert e.problems and str(e).startswith(path + " line ")
            for p in e.problems:
                sentence = p.sentence(path)
                assert sentence.isprintable(), sentence
        else:
            assert table.rules
    finally:
        os.unlink(path)


def test_a_rules_file_starting_with_a_utf8_byte_order_mark_is_read(tmp_path) -> None:
    """Issue 28 item 17: Windows editors save UTF-8 with a BOM; the table is the same."""
    text = "INPUTQ(APP.DLQ) WAIT(NO)\nDESTQ(APP.ORDERS) ACTION(RETRY) RETRY(3)\n"
    plain, marked = tmp_path / "plain.rul", tmp_path / "bom.rul"
    plain.write_bytes(text.encode("utf-8"))
    marked.write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))
    assert read_table(str(marked)) == read_table(str(plain))
    assert read_table(str(marked)).control.input_q == "APP.DLQ"
