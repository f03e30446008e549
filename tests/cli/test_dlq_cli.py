"""``mqconsole dlq-handler``: real invocations."""

from __future__ import annotations

from pathlib import Path

from .conftest import run_cli

IBM_EXAMPLE = (Path(__file__).parents[2] / "examples" / "dlq" / "ibm-example.rules").read_text()


def test_check_validates_without_a_queue_manager(tmp_path: Path) -> None:
    rules = tmp_path / "site.rules"
    rules.write_text(IBM_EXAMPLE)
    # no --embedded, no profile: --check never connects
    r = run_cli("dlq-handler", "--rules", str(rules), "--check", home=tmp_path / "home")
    assert r.code == 0, r.err
    assert "a valid rules table: 5 rules, RETRYINT(60) WAIT(NO)" in r.err
    assert "DESTQ(APP.*)" in r.out and "FWD to APP.DEADQ (header removed)" in r.out
    r = run_cli("dlq-handler", "--rules", str(rules), "--check", "--json",
                home=tmp_path / "home")
    assert r.code == 0, r.err
    assert r.json["control"] == {"inputq": "", "inputqm": "", "retryint": 60, "wait": "NO",
                                 "line": 2}
    assert [x["action"] for x in r.json["rules"]] == ["FWD", "RETRY", "RETRY", "FWD", "FWD"]
    assert r.json["rules"][1] == {"rule": 2, "line": 5, "pattern": "REASON(MQRC_Q_FULL)",
                                  "action": "RETRY", "fwdq": None, "fwdqm": None,
                                  "header": None, "putaut": "DEF", "retry": 5}


def test_check_of_a_bad_table_exits_2_with_one_sentence(tmp_path: Path) -> None:
    rules = tmp_path / "bad.rules"
    rules.write_text("* site rules\nREASON(MQRC_Q_FULL) ACTION(RETRY)\n"
                     "DESTQ(APP.*) ACTION(FWD) FWDQ(\x1b[31mX)\n")
    r = run_cli("dlq-handler", "--rules", str(rules), "--check", home=tmp_path / "home")
    assert r.code == 2
    assert r.err == (f"mqconsole: {rules} line 3 column 31: expected printable text in the "
                     "value of FWDQ, found '\\x1b'\n")
    assert r.out == ""
    r = run_cli("dlq-handler", "--rules", str(tmp_path / "missing"), "--check",
                home=tmp_path / "home")
    assert r.code == 2 and "cannot read the rules table" in r.err
    assert "Traceback" not in r.err
