"""Moving or copying off the dead-letter queue to a queue that is not one, without
--strip-dlh, warns that the header is kept (issue 15 item 3): before the question, in it,
in --dry-run and in --json; the console's choice comes from the same decision
(``ops.operation.header_kept``)."""

from __future__ import annotations

DLQ = "SYSTEM.DEAD.LETTER.QUEUE"
KEPT = ("the dead-letter header is kept: applications reading APP.AUDIT get an MQDLH in "
        "front of each payload (--strip-dlh removes it)")


def test_the_question_on_a_terminal_says_the_header_is_kept(demo, tmp_path, answer_on_a_terminal):
    code, _, text = answer_on_a_terminal(["--embedded", str(demo), "move", DLQ, "APP.AUDIT",
                                          "--all"], b"n\n", home=tmp_path / "home")
    assert code == 4, text  # not confirmed: nothing moved
    question = f"(240 messages on {DLQ} now)? (note: {KEPT})"
    assert f"warning: {KEPT}" in text and question in text
    assert text.index(f"warning: {KEPT}") < text.index(question)


def test_dry_run_json_and_a_selection_warn(cli):
    r = cli("move", DLQ, "APP.AUDIT", "--all", "--dry-run")
    assert r.code == 0, r.err
    assert r.err.splitlines()[0] == f"warning: {KEPT}"  # before the plan
    r = cli("copy", DLQ, "APP.AUDIT", "--all", "--dry-run", "--json")
    assert r.code == 0 and r.json["warnings"][0] == KEPT and KEPT in r.err
    r = cli("move", DLQ, "APP.AUDIT", "--where", "reason = 2053", "--limit", "2", "--yes",
            "--json")
    assert r.code == 0 and r.json["done"] == 2 and r.json["warnings"][0] == KEPT
    [entry] = [e for e in cli("journal", "--json").json if e["operation"] == "move"
               and not e.get("dry_run")]
    assert KEPT in str(entry)
    rows = cli("browse", "APP.AUDIT", "--json").json
    assert len(rows) == 2 and all(row["dlh"] for row in rows)  # kept, as warned


def test_no_warning_when_stripped_or_not_off_the_dead_letter_queue(cli):
    for args in (("move", DLQ, "APP.AUDIT", "--all", "--strip-dlh"),
                 ("copy", "APP.ORDERS", "APP.AUDIT", "--all")):
        r = cli(*args, "--dry-run", "--json")
        assert r.code == 0, r.err
        assert "dead-letter header is kept" not in r.err + r.out
