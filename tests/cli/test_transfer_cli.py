"""``mqconsole move``, ``copy`` and ``resubmit`` as real invocations on the demo queue
manager: JSON summaries, exit codes, safety, the journal, and the queues afterwards."""

from __future__ import annotations

from collections import Counter

from .conftest import run_cli

DLQ = "SYSTEM.DEAD.LETTER.QUEUE"
JSON_KEYS = {"operation", "source", "destination", "moved_to", "selected", "done", "failed",
             "skipped", "dry_run", "backup"}


def rows(cli, queue: str) -> list[dict]:
    r = cli("browse", queue, "--json")
    assert r.code == 0, r.err
    return r.json


def test_move_json_summary_and_queues(cli):
    before = rows(cli, "APP.ORDERS")
    r = cli("move", "APP.ORDERS", "APP.AUDIT", "--where", "priority = 0", "--yes", "--json",
            "--batch", "7")
    assert r.code == 0, r.err
    doc = r.json
    assert set(doc) >= JSON_KEYS
    moved = [x for x in before if x["priority"] == 0]
    assert doc["operation"] == "move" and doc["source"] == "APP.ORDERS"
    assert doc["destination"] == "APP.AUDIT" and doc["moved_to"] == {"APP.AUDIT": len(moved)}
    assert (doc["selected"], doc["done"], doc["failed"], doc["skipped"]) == (
        len(moved), len(moved), [], 0)
    assert doc["dry_run"] is False and doc["backup"] is None
    audit = rows(cli, "APP.AUDIT")
    assert [x["msgid"] for x in audit] == [x["msgid"] for x in moved]
    # context kept: user, application and put time are the originals'
    for a, b in zip(audit, moved, strict=True):
        assert (a["user"], a["put_appl_name"], a["put_time"]) == (
            b["user"], b["put_appl_name"], b["put_time"])
    assert len(rows(cli, "APP.ORDERS")) == len(before) - len(moved)


def test_move_human_summary(cli):
    r = cli("move", "APP.ORDERS", "APP.AUDIT", "--all", "--limit", "4", "--yes")
    assert r.code == 0 and r.out == ""
    assert "moved 4 of 4 selected messages from APP.ORDERS" in r.err
    assert "-> APP.AUDIT" in r.err


def test_copy_leaves_the_source(cli):
    before = rows(cli, "APP.PAYMENTS")
    r = cli("copy", "APP.PAYMENTS", "APP.AUDIT", "--all", "--yes", "--json")
    assert r.code == 0, r.err
    assert r.json["operation"] == "copy" and r.json["done"] == len(before)
    assert rows(cli, "APP.PAYMENTS") == before
    assert [x["msgid"] for x in rows(cli, "APP.AUDIT")] == [x["msgid"] for x in before]


def test_move_strip_dlh(cli):
    r = cli("move", DLQ, "APP.AUDIT", "--where", "dest_q = 'ZOS.INBOUND'", "--strip-dlh",
            "--yes", "--json")
    assert r.code == 0, r.err
    assert r.json["done"] == 20
    audit = rows(cli, "APP.AUDIT")
    assert {(x["format"], x["dlh"] is None) for x in audit} == {("MQSTR", True)}
    assert all(x["preview"].startswith("ACCT") for x in audit)  # read as EBCDIC (CCSID 500)


def test_full_destination_exit_1(cli):
    r = cli("move", DLQ, "APP.SMALL", "--where", "reason = Q_FULL", "--yes", "--json")
    assert r.code == 1, r.err
    doc = r.json
    assert doc["done"] == 0 and len(doc["failed"]) == 10 and doc["skipped"] == 0
    assert "given up" in doc["stopped_early"]  # the other 70 were not browsed ...
    # ... and are a count of their own (issue 24 item 2): the counts add up to the selected
    assert doc["selected"] == 80 and doc["not_tried"] == 70
    assert doc["selected"] == doc["done"] + len(doc["failed"]) + doc["skipped"] + doc[
        "not_tried"]
    f = doc["failed"][0]
    assert set(f) == {"msgid", "position", "reason", "reason_name", "destination", "detail"}
    assert f["detail"] == "queue 'APP.SMALL' is full (MAXDEPTH 10)"
    assert (f["reason"], f["reason_name"], f["destination"]) == (2053, "MQRC_Q_FULL",
                                                                 "APP.SMALL")
    assert len(rows(cli, DLQ)) == 240


def test_a_move_stopped_by_a_full_queue_says_how_many_were_not_tried(cli):
    """The trial's `move ... APP.SMALL --all`: the destination is full; the text says the
    selected, the failed and the not tried, which add up."""
    r = cli("move", DLQ, "APP.SMALL", "--all", "--strip-dlh", "--yes")
    assert r.code == 1, r.err
    assert "moved 0 of 240 selected messages from SYSTEM.DEAD.LETTER.QUEUE" in r.err
    assert "failed: 10 (they stayed where they were)" in r.err
    assert ("not tried: 230 (APP.SMALL refused 10 messages in a row (last: MQRC_Q_FULL "
            "(2053)), so it was given up; they stayed on SYSTEM.DEAD.LETTER.QUEUE)") in r.err
    assert len(rows(cli, DLQ)) == 240
    listed = cli("journal")
    assert "selected 240 done 0 failed 10 skipped 0 not tried 230" in listed.out, listed.out


def test_unknown_queues_exit_2_and_change_nothing(cli):
    for args in (("move", "NO.SUCH.Q", "APP.AUDIT"), ("move", "APP.ORDERS", "NO.SUCH.Q"),
                 ("copy", "APP.ORDERS", "NO.SUCH.Q"), ("resubmit", "NO.SUCH.Q"),
                 ("resubmit", "APP.SHARED.BOQ", "--to", "NO.SUCH.Q")):
        r = cli(*args, "--all", "--yes")
        assert r.code == 2, (args, r.err)
        [line] = r.err.strip().splitlines()
        assert "NO.SUCH.Q" in line and "does not exist" in line
    assert len(rows(cli, "APP.ORDERS")) == 40


def test_usage_errors(cli):
    assert cli("move", "APP.ORDERS", "APP.AUDIT", "--yes").code == 2  # no selection
    r = cli("move", "APP.ORDERS", "APP.ORDERS", "--all", "--yes")
    assert r.code == 2 and "both the source and the destination" in r.err


def test_nothing_matched_exit_0(cli):
    r = cli("move", "APP.ORDERS", "APP.AUDIT", "--where", "priority = 99", "--yes")
    assert r.code == 0 and "matched" in r.err


def test_safety(tmp_path, demo, cli):
    r = cli("move", "APP.ORDERS", "APP.AUDIT", "--all")  # stdin is not a terminal
    assert r.code == 4 and "--yes" in r.err
    r = cli("resubmit", DLQ, "--all")
    assert r.code == 4
    cfg = tmp_path / "c.yaml"
    cfg.write_text(f"profiles:\n  - name: prod\n    read_only: true\n    backend:\n"
                   f"      type: embedded\n      path: {demo}\n")
    for args in (("move", "APP.ORDERS", "APP.AUDIT"), ("copy", "APP.ORDERS", "APP.AUDIT"),
                 ("resubmit", DLQ)):
        r = run_cli("--config", str(cfg), *args, "--all", "--yes", home=tmp_path / "h")
        assert r.code == 4 and "read-only" in r.err, r.err
    assert len(rows(cli, "APP.ORDERS")) == 40 and rows(cli, "APP.AUDIT") == []


def test_dry_run_plans_and_is_journaled(cli):
    before = rows(cli, DLQ)
    r = cli("resubmit", DLQ, "--all", "--dry-run", "--json")
    doc = r.json
    assert doc["dry_run"] is True and doc["done"] == 0 and len(doc["plan"]) == 240
    # the demo's dead letters include some whose destination refuses them today: a plan
    # that says so exits 1, as the run would
    failing = sum(1 for step in doc["plan"] if step.get("would_fail"))
    assert doc["would_fail"] == failing > 0 and r.code == 1, r.err
    assert rows(cli, DLQ) == before
    r = cli("move", "APP.ORDERS", "APP.AUDIT", "--all", "--limit", "2", "--dry-run")
    assert r.code == 0 and len(r.out.strip().splitlines()) == 2
    assert "dry run" in r.err
    j = cli("journal", "--json", "--ids")
    assert j.code == 0, j.err
    ops = [(e["operation"], e["dry_run"]) for e in j.json]
    assert ("resubmit", True) in ops and ("move", True) in ops


def test_resubmit_demo_dlq(cli):
    r = cli("resubmit", DLQ, "--all", "--yes", "--json")
    assert r.code == 1, r.err  # some could not go: they stayed
    doc = r.json
    assert doc["destination"] is None
    assert doc["moved_to"] == {"APP.SECURE": 25, "APP.PAYMENTS": 20, "APP.TINY": 20,
                               "ZOS.INBOUND": 20, "APP.INVOICES": 10}
    reasons = Counter(f["reason_name"] for f in doc["failed"])
    assert reasons == {"MQRC_Q_FULL": 10, "MQRC_PUT_INHIBITED": 10,
                       "MQRC_UNKNOWN_OBJECT_NAME": 10, "MQRC_UNKNOWN_REMOTE_Q_MGR": 10}
    by_dest = Counter((f["destination"], f["reason_name"]) for f in doc["failed"])
    assert by_dest[("APP.SMALL", "MQRC_Q_FULL")] == 10  # each failure names where it went
    assert all(f["destination"] for f in doc["failed"])
    # a given-up destination's later messages are not tried, a count of their own with
    # why (issue 24 item 2), never "skipped" with a warning
    assert doc["skipped"] == 0 and doc["not_tried"] == 105 and doc["selected"] == 240
    assert ("APP.SMALL refused 10 messages in a row (last: MQRC_Q_FULL (2053)), so it was "
            "given up: 50 messages for it were not tried") in doc["not_tried_why"]
    assert doc["not_tried_why"].endswith(f"they stayed on {DLQ}")
    assert not any("skipped" in w for w in doc["warnings"])
    left = rows(cli, DLQ)
    assert len(left) == 145
    assert {x["dlh"]["dest_q"] for x in left} == {"APP.SMALL", "APP.LEGACY", "APP.ORDRES",
                                                  "APP.ORDERS"}
    zos = rows(cli, "ZOS.INBOUND")
    assert len(zos) == 20 and {x["format"] for x in zos} == {"MQSTR"}
    assert all(x["preview"].startswith("ACCT") for x in zos)  # CCSID 500 restored
    # the journal says where each message went
    [entry] = [e for e in cli("journal", "--json", "--ids").json if e["operation"] == "resubmit"]
    done = [o for o in entry["outcomes"] if o["outcome"] == "done"]
    assert len(done) == 95 and {o["destination"] for o in done} == set(doc["moved_to"])
    failed = [o for o in entry["outcomes"] if o["outcome"] == "failed"]
    assert len(failed) == 40 and all(o["reason"] for o in failed)
    assert entry["details"]["not_tried"] == 105 and entry["details"]["skipped"] == 0
    assert entry["details"]["not_tried_why"] == doc["not_tried_why"]


def test_resubmit_says_a_given_up_destinations_messages_were_not_tried(cli):
    """The text face: 'not tried: 105 (… so it was given up: 50 messages for it were not
    tried; …)', no 'skipped' line, and the journal's list counts them."""
    r = cli("resubmit", DLQ, "--all", "--yes")
    assert r.code == 1, r.err
    assert "skipped:" not in r.err
    assert ("not tried: 105 (APP.SMALL refused 10 messages in a row (last: MQRC_Q_FULL "
            "(2053)), so it was given up: 50 messages for it were not tried; ") in r.err
    assert f"they stayed on {DLQ})" in r.err
    listed = cli("journal")
    assert "skipped 0 not tried 105" in listed.out, listed.out


def test_resubmit_shared_backout_queue(cli):
    r = cli("resubmit", "APP.SHARED.BOQ", "--all", "--yes")
    assert r.code == 2
    [line] = r.err.strip().splitlines()
    assert "APP.INVOICES" in line and "APP.SHIPPING" in line and "--to" in line
    assert len(rows(cli, "APP.SHARED.BOQ")) == 6
    before = len(rows(cli, "APP.INVOICES"))
    r = cli("resubmit", "APP.SHARED.BOQ", "--all", "--to", "APP.INVOICES", "--yes", "--json")
    assert r.code == 0, r.err
    assert r.json["moved_to"] == {"APP.INVOICES": 6} and r.json["destination"] == "APP.INVOICES"
    assert rows(cli, "APP.SHARED.BOQ") == [] and len(rows(cli, "APP.INVOICES")) == before + 6


def test_resubmit_dedicated_backout_queue(cli):
    r = cli("resubmit", "APP.ORDERS.BOQ", "--all", "--yes")
    assert r.code == 0, r.err
    assert "APP.ORDERS" in r.err and rows(cli, "APP.ORDERS.BOQ") == []


def test_move_to_another_queue_manager(tmp_path, cli):
    other = tmp_path / "other.sqlite"
    home = tmp_path / "home"
    assert run_cli("--embedded", str(other), "init", "--name", "QM2", home=home).code == 0
    assert run_cli("--embedded", str(other), "queue", "define", "IN.Q", home=home).code == 0
    before = rows(cli, "APP.SHIPPING")
    r = cli("move", "APP.SHIPPING", "IN.Q", "--all", "--dest-embedded", str(other), "--yes",
            "--json")
    assert r.code == 0, r.err
    assert "not atomic" in r.err  # said before the question, as the console says it
    assert r.json["moved_to"] == {"IN.Q@QM2": len(before)}
    assert rows(cli, "APP.SHIPPING") == []
    there = run_cli("--embedded", str(other), "browse", "IN.Q", "--json", home=home).json
    assert [x["msgid"] for x in there] == [x["msgid"] for x in before]
    r = cli("move", "APP.ORDERS", "NOPE", "--all", "--dest-embedded", str(other), "--yes")
    assert r.code == 2 and "QM2" in r.err


def test_exit_codes_and_summary_of_results():
    from mqconsole.cli.summary import summary_lines as lines_of
    from mqconsole.ops.exit_codes import exit_code_of
    from mqconsole.ops.operation import Description, Summary
    from mqconsole.ops.result import Failure, OperationResult

    def summary_lines(result, verb):
        assert verb == "moved"
        summary = Summary(Description("move", "moving"), result, exit_code_of(result))
        return lines_of(summary)

    ok = OperationResult("move", "A", "B", moved_to={"B": 3}, selected=3, done=3)
    assert exit_code_of(ok) == 0
    assert summary_lines(ok, "moved")[:2] == ["moved 3 of 3 selected messages from A",
                                              "  -> B  3"]
    part = OperationResult("move", "A", "B", selected=3, done=1, skipped=1,
                           failed=[Failure("AB" * 24, 2, 2053)])
    assert exit_code_of(part) == 1
    text = "\n".join(summary_lines(part, "moved"))
    assert "1 x MQRC_Q_FULL (2053)" in text and "skipped: 1" in text
    unknown = OperationResult("move", "A", "B", selected=2, outcome_unknown=True,
                              failed=[Failure("AB" * 24, 1, 2549)])
    assert exit_code_of(unknown) == 5
    assert "outcome unknown" in "\n".join(summary_lines(unknown, "moved"))
    stopped = OperationResult("move", "A", "B", selected=100, done=100,
                              stopped_early="browsing A failed")
    assert exit_code_of(stopped) == 1
    cancelled = OperationResult("move", "A", "B", selected=5, done=5, cancelled=True)
    assert exit_code_of(cancelled) == 1
    would = {"reason": 2051, "reason_name": "MQRC_PUT_INHIBITED"}
    dry = OperationResult("move", "A", "B", selected=2, dry_run=True,
                          plan=[{"msgid": "x", "position": 1, "destination": "B",
                                 "changes": [], "would_fail": would}])
    assert exit_code_of(dry) == 1  # a plan in which a message would fail, as the run would
    assert "  1 on B: MQRC_PUT_INHIBITED (2051)" in summary_lines(dry, "moved")
    fine = OperationResult("move", "A", "B", selected=1, dry_run=True,
                           plan=[{"msgid": "x", "position": 1, "destination": "B",
                                  "changes": []}])
    assert exit_code_of(fine) == 0
    none = OperationResult("move", "A", "B")
    assert exit_code_of(none) == 0 and "matched" in summary_lines(none, "moved")[0]


def test_a_dry_run_onto_a_small_queue_exits_1_and_says_what_would_fail_first(cli):
    """The destination holds 2 of 3 (its MAXDEPTH): the plan counts its own puts, so all but
    one would fail — said first, grouped, in the JSON's would_fail and groups, exit 1."""
    import json

    assert cli("queue", "define", "APP.FEW", "--max-depth", "3").code == 0
    assert cli("put", "APP.FEW", "--text", "x", "--count", "2").code == 0
    r = cli("move", "APP.ORDERS.BOQ", "APP.FEW", "--all", "--dry-run", "--json")
    assert r.code == 1, r.err
    doc = json.loads(r.out)
    selected = doc["selected"]
    assert doc["would_fail"] == selected - 1
    [group] = doc["would_fail_groups"]
    assert group["destination"] == "APP.FEW" and group["reason_name"] == "MQRC_Q_FULL"
    assert group["count"] == selected - 1 and len(group["examples"]) == 3
    text = cli("move", "APP.ORDERS.BOQ", "APP.FEW", "--all", "--dry-run")
    assert text.code == 1
    lines = text.err.splitlines()
    assert lines[0] == f"dry run: {selected - 1} messages would fail now (the destination " \
                       "says so today):"
    assert lines[1] == f"  {selected - 1} on APP.FEW: MQRC_Q_FULL (2053)"
    assert lines[2].startswith(f"then 1 of {selected} selected messages would be moved")
    # each step's line says it in the same words (it said "would likely fail: MQRC_Q_FULL")
    steps = text.out.splitlines()
    assert sum(ln.endswith("-> APP.FEW  (would fail now: MQRC_Q_FULL (2053))")
               for ln in steps) == selected - 1, steps
    assert cli("move", "APP.ORDERS.BOQ", "APP.ORDERS", "--all", "--dry-run").code == 0


def test_batch_bytes_bounds_units_and_a_bad_size_is_exit_2(cli):
    """--batch-bytes (issue 22 item 11): a bad size is one sentence, exit 2, nothing moved;
    a small bound still moves everything (one message alone always goes) and the journal
    records it."""
    bad = cli("move", "APP.SHIPPING", "APP.AUDIT", "--all", "--batch-bytes", "lots",
              "--yes")
    assert bad.code == 2 and "'lots' is not a size" in bad.err and "Traceback" not in bad.err
    r = cli("move", "APP.SHIPPING", "APP.AUDIT", "--all", "--batch-bytes", "1", "--yes",
            "--json")
    assert r.code == 0, r.err
    assert r.json["done"] == 8
    entries = cli("journal", "--json").json
    assert entries[-1]["details"]["batch_bytes"] == 1


def test_context_default_and_its_contradiction(cli):
    """--context (issue 22 item 7): set-all and --new-context together are bad input
    (exit 2, nothing moved); resubmit --context default puts with the resubmitter's
    context, recorded in the journal."""
    bad = cli("move", "APP.SHIPPING", "APP.AUDIT", "--all", "--new-context", "--context",
              "set-all", "--yes")
    assert bad.code == 2 and "contradict each other" in bad.err
    r = cli("resubmit", "SYSTEM.DEAD.LETTER.QUEUE", "--all", "--to", "APP.AUDIT",
            "--context", "default", "--yes", "--json")
    assert r.code in (0, 1), r.err
    assert r.json["done"] > 0
    entries = cli("journal", "--json").json
    assert entries[-1]["details"]["context"] == "new"


def test_ten_thousand_failures_are_one_line_per_destination_and_reason_in_the_cli():
    """Issue 24's must-show in the CLI's face: a result of 10,000 failures is a line a
    destination and reason (with its count and an example), the full list in --json."""
    from mqconsole.cli.summary import summary_lines
    from mqconsole.ops.exit_codes import exit_code_of
    from mqconsole.ops.operation import Description, Summary
    from mqconsole.ops.result import Failure, OperationResult

    r = OperationResult("move", "SYSTEM.DEAD.LETTER.QUEUE", selected=10_000)
    for i in range(10_000):
        dest, reason = ("APP.PAYMENTS", 2053) if i % 4 else ("APP.LEGACY", 2051)
        r.failed.append(Failure(f"{i:048X}", i + 1, reason, destination=dest))
    lines = summary_lines(Summary(Description("move", "moving"), r, exit_code_of(r)))
    assert "failed: 10000 (they stayed where they were)" in lines
    groups = [ln for ln in lines if ln.startswith("  ") and " x " in ln]
    assert groups == [
        f"  7500 x MQRC_Q_FULL (2053) on APP.PAYMENTS, e.g. {1:048X} at position 2",
        f"  2500 x MQRC_PUT_INHIBITED (2051) on APP.LEGACY, e.g. {0:048X} at position 1"]
    assert len(lines) < 10
    doc = r.to_json()
    assert len(doc["failed"]) == 10_000 and [g["count"] for g in doc["failure_groups"]] == [
        7500, 2500]


def test_context_pass_moves_and_resubmits_and_is_refused_where_nothing_is_got(cli, tmp_path):
    """--context pass (issue 22 item 7): move and resubmit get each message first and pass
    its context (journaled as pass_all; each keeps its own user and application); a copy
    (it only browses), a load (a file's messages are not got), a move to another queue
    manager and --new-context with it are bad input: exit 2, nothing changed."""
    before = cli("browse", "APP.SHIPPING", "--json").json
    r = cli("move", "APP.SHIPPING", "APP.AUDIT", "--all", "--context", "pass", "--yes",
            "--json")
    assert r.code == 0, r.err
    assert r.json["done"] == len(before)
    entries = cli("journal", "--json").json
    assert entries[-1]["details"]["context"] == "pass_all"
    assert entries[-1]["details"]["batch"] == 1  # a unit of work per message, as it ran
    after = cli("browse", "APP.AUDIT", "--json").json
    assert [(m["msgid"], m["user"], m["put_appl_name"]) for m in after] == \
        [(m["msgid"], m["user"], m["put_appl_name"]) for m in before]
    r = cli("resubmit", "SYSTEM.DEAD.LETTER.QUEUE", "--where", "dest = APP.PAYMENTS",
            "--context", "pass", "--yes", "--json")
    assert r.code in (0, 1), r.err
    assert r.json["done"] > 0
    assert cli("journal", "--json").json[-1]["details"]["context"] == "pass_all"
    dump = tmp_path / "x.dmp"
    assert cli("save", "APP.AUDIT", str(dump), "--all").code == 0
    for args, said in [
            (("copy", "APP.AUDIT", "APP.SHIPPING", "--all", "--context", "pass"),
             "a copy only browses"),
            (("load", str(dump), "APP.SHIPPING", "--context", "pass"),
             "a file's messages are not got"),
            (("move", "APP.AUDIT", "APP.SHIPPING", "--all", "--context", "pass",
              "--dest-embedded", str(tmp_path / "other.qm")), "to another queue manager"),
            (("move", "APP.AUDIT", "APP.SHIPPING", "--all", "--context", "pass",
              "--new-context"), "contradict each other")]:
        bad = cli(*args, "--yes")
        assert bad.code == 2 and said in bad.err, (args, bad.err)
    assert cli("browse", "APP.SHIPPING", "--json").json == []
