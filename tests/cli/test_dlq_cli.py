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
    # not a rules table: an endless or huge file is refused, not read forever
    for big in ("/dev/zero", str(tmp_path / "big.rules")):
        if big != "/dev/zero":
            Path(big).write_bytes(b"* comment\n" * 200_000)
        r = run_cli("dlq-handler", "--rules", big, "--check", home=tmp_path / "home")
        assert r.code == 2 and r.err == (f"mqconsole: cannot read the rules table {big}: "
                                         "more than 1,000,000 bytes: not a rules table\n")


def test_check_names_every_problem_at_its_line_a_run_only_the_first(tmp_path: Path) -> None:
    rules = tmp_path / "many.rules"
    rules.write_text("WAIT(MAYBE)\nACTION(FWD)\nREASON(NOPE) ACTION(IGNORE)\n")
    r = run_cli("dlq-handler", "--rules", str(rules), "--check", home=tmp_path / "home")
    lines = r.err.splitlines()
    assert r.code == 2 and r.out == "" and len(lines) == 3, r.err
    assert lines[0].startswith(f"mqconsole: {rules} line 1 column 6: expected WAIT(YES)")
    assert lines[0].endswith("(and 2 more problems)")
    assert lines[1].startswith(f"  {rules} line 2 column 1: expected FWDQ(")
    assert lines[2].startswith(f"  {rules} line 3 column 8: expected a number")
    r = run_cli("dlq-handler", "--rules", str(rules), "--dry-run", home=tmp_path / "home")
    assert r.code == 2 and r.err == lines[0] + "\n"


def test_a_read_only_profile_plans_but_cannot_run(tmp_path: Path, demo) -> None:
    """As the console's DLQ screen: --dry-run lists the plan, a run is refused (exit 4)."""
    rules = tmp_path / "site.rules"
    rules.write_text(IBM_EXAMPLE)
    cfg = tmp_path / "config.yaml"
    cfg.write_text(f"profiles:\n  - name: prod\n    read_only: true\n"
                   f"    backend:\n      type: embedded\n      path: {demo}\n")

    def handler(*args: str):
        return run_cli("--config", str(cfg), "dlq-handler", "--rules", str(rules), *args,
                       home=tmp_path / "home")

    r = handler("--dry-run", "--json")
    assert r.code == (1 if r.json["would_fail"] else 0), r.err  # a plan is allowed
    assert len(r.json["messages"]) == 240 and r.json["done"] == 0
    r = handler("--yes")
    assert r.code == 4 and "profile prod is read-only" in r.err
    assert len(handler("--dry-run", "--json").json["messages"]) == 240


def _depths(cli) -> dict[str, int]:
    r = cli("queues", "--json")
    assert r.code == 0, r.err
    return {q["name"]: q["depth"] for q in r.json}


def test_ibm_example_table_on_the_demo_dead_letter_queue(cli, tmp_path: Path) -> None:
    rules = tmp_path / "ibm.rules"
    rules.write_text(IBM_EXAMPLE)
    for q in ("APP.DEADQ", "DEADQ.MANUAL.SECURITY", "IGNORED.DEAD.QUEUE"):
        assert cli("queue", "define", q).code == 0
    before = _depths(cli)
    # what it would do: every message listed with its rule; nothing changes
    r = cli("dlq-handler", "--rules", str(rules), "--dry-run", "--json")
    assert r.code == (1 if r.json["would_fail"] else 0), r.err
    plan = r.json["messages"]
    assert len(plan) == before["SYSTEM.DEAD.LETTER.QUEUE"] == 240
    assert set(plan[0]) == {"msg_id", "rule", "action", "attempts", "outcome", "destination",
                            "reason", "format", "header_format"}
    assert {m["rule"] for m in plan} == {1, 2, 3, 4}
    assert _depths(cli) == before
    # the run: WAIT(NO), retries at once (--retry-interval 0) until nothing is processable
    r = cli("dlq-handler", "--rules", str(rules), "--retry-interval", "0", "--yes", "--json")
    assert r.code == 0, r.err
    doc = r.json
    after = _depths(cli)
    assert after["SYSTEM.DEAD.LETTER.QUEUE"] == 0
    # Q_FULL (APP.SMALL, 60) and PUT_INHIBITED (APP.LEGACY, 40): five RETRY attempts each,
    # then DESTQ(APP.*) forwards them, as it does every other APP.* message
    assert after["APP.DEADQ"] == 60 + 40 + 30 + 20 + 20 + 15 + 10
    assert after["DEADQ.MANUAL.SECURITY"] == 25  # MQRC_NOT_AUTHORIZED
    assert after["ZOS.INBOUND"] == before["ZOS.INBOUND"] + 20  # Q_FULL, retried: room now
    assert after["IGNORED.DEAD.QUEUE"] == 0
    assert doc["rules"] == [
        {"rule": 1, "matched": 25, "done": 25, "failed": 0},
        {"rule": 2, "matched": 20 + 60 * 5, "done": 20, "failed": 300},
        {"rule": 3, "matched": 200, "done": 0, "failed": 200},
        {"rule": 4, "matched": 195, "done": 195, "failed": 0},
        {"rule": 5, "matched": 0, "done": 0, "failed": 0}]
    assert doc["passes"] == 6 and doc["failed"] == [] and doc["exit_code"] == 0
    small = [m for m in doc["messages"] if m["destination"] == "APP.SMALL"]
    assert max(m["attempts"] for m in small) == 5
    # HEADER(NO): the header is gone, Format restored; HEADER(YES) kept it
    r = cli("browse", "APP.DEADQ", "--json")
    assert r.json and all(m["format"] != "MQDEAD" and m["dlh"] is None for m in r.json)
    r = cli("browse", "DEADQ.MANUAL.SECURITY", "--json")
    assert r.json and all(m["format"] == "MQDEAD" and m["dlh"] for m in r.json)
    # journaled as every operation
    r = cli("journal", "--json", "--ids")
    assert r.code == 0, r.err
    entries = [e for e in r.json if e["operation"] == "dlq-handler"]
    assert [e["dry_run"] for e in entries] == [True, False]
    assert entries[1]["details"]["passes"] == 6 and len(entries[1]["msgids"]) == 240


def test_without_yes_and_a_terminal_it_refuses_and_bad_options(cli, tmp_path: Path) -> None:
    rules = tmp_path / "r.rules"
    rules.write_text("ACTION(DISCARD)\n")
    r = cli("dlq-handler", "--rules", str(rules))
    assert r.code == 4 and "needs --yes" in r.err
    r = cli("dlq-handler", "--rules", str(rules), "--once", "--wait", "5", "--yes")
    assert r.code == 2 and "--once and --wait" in r.err
    r = cli("dlq-handler", "--rules", str(rules), "--input", "NO.SUCH.Q", "--yes")
    assert r.code == 2 and "NO.SUCH.Q" in r.err
    assert _depths(cli)["SYSTEM.DEAD.LETTER.QUEUE"] == 240


def test_failures_exit_1_and_are_listed_with_reasons(cli, tmp_path: Path) -> None:
    rules = tmp_path / "r.rules"
    rules.write_text("REASON(MQRC_Q_FULL) DESTQ(APP.SMALL) ACTION(RETRY) RETRY(3)\n")
    r = cli("dlq-handler", "--rules", str(rules), "--once", "--yes")
    assert r.code == 1
    # the reason as every face says it (issue 24 item 6): name and number
    assert "60 failed -> APP.SMALL: MQRC_Q_FULL (2053) (stayed on the queue" in r.err
    assert "1 attempt so far)" in r.err and "attempt counts are kept in" in r.err
    assert "RULE" in r.out and "FAILED" in r.out
    # the messages that failed, with their attempts so far (20 shown, --json for all)
    assert "FAILED MSGID" in r.out and "ATTEMPTS" in r.out
    assert "(and 40 more: --json lists every message)" in r.out
    r = cli("dlq-handler", "--rules", str(rules), "--once", "--retry-interval", "0", "--yes")
    assert r.code == 1 and "2 attempts so far)" in r.err


def test_the_example_service_unit_runs_a_valid_command() -> None:
    """examples/dlq/mqconsole-dlq.service (docs/dlq-handler.md): its ExecStart is a
    dlq-handler command line this version accepts, with --yes (no terminal) and SIGTERM as
    the stop signal the handler turns into a clean end."""
    import shlex

    from mqconsole.cli.commands.dlq_cmd import dlq_handler
    from mqconsole.cli.main import cli

    unit = (Path(__file__).parents[2] / "examples" / "dlq" / "mqconsole-dlq.service"
            ).read_text()
    joined = unit.replace("\\\n", " ")
    [exec_start] = [line.split("=", 1)[1] for line in joined.splitlines()
                    if line.startswith("ExecStart=")]
    argv = shlex.split(exec_start)[1:]
    assert "KillSignal=SIGTERM" in unit and "RestartPreventExitStatus=2 4" in unit
    top = {opt for p in cli.params for opt in p.opts}
    at = argv.index("dlq-handler")
    assert all(a in top for a in argv[:at] if a.startswith("-"))
    known = {opt for p in dlq_handler.params for opt in p.opts}
    assert [a for a in argv[at + 1:] if a.startswith("-") and a not in known] == []
    assert "--yes" in argv and "--rules" in argv


def test_wait_n_runs_a_journaled_operation_per_cycle(cli, tmp_path: Path) -> None:
    """--wait 1 with RETRYINT 0: a cycle per attempt, each journaled and printed (one JSON
    line each), until the budget is used up (nothing due any more) and nothing arrives for
    a second; exit 1 since cycles had failures. The next run says why it leaves them."""
    import json

    rules = tmp_path / "r.rules"
    rules.write_text("REASON(MQRC_Q_FULL) DESTQ(APP.SMALL) ACTION(RETRY) RETRY(2)\n")
    r = cli("dlq-handler", "--rules", str(rules), "--wait", "1", "--retry-interval", "0",
            "--yes", "--json")
    assert r.code == 1, r.err
    docs = [json.loads(line) for line in r.out.splitlines()]
    assert [d["counts"]["failed"] for d in docs] == [60, 60]
    assert [d["passes"] for d in docs] == [1, 1]
    assert docs[-1]["next_due"] is None
    r = cli("dlq-handler", "--rules", str(rules), "--once", "--yes", "--json")
    assert r.code == 0, r.err
    used_up = [m for m in r.json["messages"] if m["outcome"] == "attempts used up: left"]
    assert len(used_up) == 60 and {m["attempts"] for m in used_up} == {2}
    r = cli("journal", "--json", "--ids")
    assert [e["operation"] for e in r.json].count("dlq-handler") == 3


def test_a_run_of_several_passes_says_its_counts_are_per_pass(cli, tmp_path: Path) -> None:
    """WAIT(NO) with retries: a message has a line per pass it was in, so the story says
    the counts are per pass and how many messages are still failing in the end."""
    rules = tmp_path / "r.rules"
    rules.write_text("WAIT(NO)\nREASON(MQRC_Q_FULL) DESTQ(APP.SMALL) ACTION(RETRY) RETRY(2)\n")
    r = cli("dlq-handler", "--rules", str(rules), "--retry-interval", "0", "--yes")
    assert r.code == 1, r.err
    first = r.err.splitlines()[0]
    assert first == ("dlq-handler: SYSTEM.DEAD.LETTER.QUEUE on QM1: 2 passes, counted per "
                     "pass: 360 no rule, 120 failed (60 messages still failing: they stayed "
                     "on the queue)")


def test_an_unusable_attempts_file_is_bad_input_before_anything(cli, tmp_path: Path) -> None:
    """A counts file that is not an SQLite file, or a folder: one sentence naming it, exit 2,
    for a run and a dry run alike (was an internal error, exit 70), nothing changed."""
    rules = tmp_path / "r.rules"
    rules.write_text("ACTION(DISCARD)\n")
    bad = tmp_path / "counts.sqlite"
    bad.write_bytes(b"not a database " * 20)
    for where, why in ((bad, "file is not a database"), (tmp_path, "it is a folder")):
        for args in (("--yes",), ("--dry-run",), ()):
            r = cli("dlq-handler", "--rules", str(rules), "--attempts-file", str(where), *args)
            assert r.code == 2, r.err
            assert r.err == f"mqconsole: cannot keep the attempt counts in {where}: {why}\n"
    assert _depths(cli)["SYSTEM.DEAD.LETTER.QUEUE"] == 240


def test_a_dry_run_on_a_terminal_cuts_the_story_not_the_reason(demo, tmp_path: Path,
                                                               terminal) -> None:
    """Issue 24 item 4: on a terminal the plan's WHAT WOULD HAPPEN column is 80 wide at most
    (into a file nothing is cut): each row says what would fail first, so what is cut is
    where the message was going, never 'MQRC_UNKNOWN_OBJE…'."""
    import subprocess

    from .conftest import MQCONSOLE, clean_env

    rules = tmp_path / "site.rules"
    rules.write_text("DESTQ(APP.*) ACTION(FWD) FWDQ(APP.NO.SUCH.ERRORS.QUEUE) HEADER(NO)\n")
    screen = terminal()
    proc = subprocess.Popen([MQCONSOLE, "--embedded", str(demo), "dlq-handler", "--rules",
                             str(rules), "--dry-run"], env=clean_env(tmp_path / "home"),
                            stdin=subprocess.DEVNULL, stdout=screen.end, stderr=subprocess.PIPE)
    screen.hand_over()
    try:
        out = screen.read_to_the_end()
    finally:
        proc.wait(timeout=120)
    rows = [ln for ln in out.decode().splitlines() if "would fail now" in ln]
    assert rows, out.decode()
    assert all("would fail now: MQRC_UNKNOWN_OBJECT_NAME — would forward" in ln
               for ln in rows), rows[:3]
