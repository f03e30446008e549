"""``mqconsole delete`` and ``mqconsole edit``, run for real on a copy of the demo."""

from __future__ import annotations

from mqconsole.ops.dmpfile import check_dmp_file, load_file

DLQ = "SYSTEM.DEAD.LETTER.QUEUE"


def msgids(cli, queue: str, *extra: str) -> list[str]:
    r = cli("browse", queue, "--json", "--limit", "100000", *extra)
    assert r.code == 0, r.err
    return [row["msgid"] for row in r.json]


def test_delete_saves_a_backup_then_removes_exactly_the_selection(cli, tmp_path):
    before = msgids(cli, DLQ)
    chosen = msgids(cli, DLQ, "--where", "reason = PUT_INHIBITED")
    assert 0 < len(chosen) < len(before)
    r = cli("delete", DLQ, "--where", "reason = PUT_INHIBITED", "--yes", "--json",
            "--batch", "7")
    assert r.code == 0, r.err
    doc = r.json
    assert (doc["operation"], doc["selected"], doc["done"], doc["failed"]) == \
        ("delete", len(chosen), len(chosen), [])
    backup = doc["backup"]
    assert backup.startswith(str(tmp_path / "home" / "state" / "backups"))
    assert "QM1-SYSTEM.DEAD.LETTER.QUEUE-" in backup and backup.endswith(".dmp")
    assert [m.msg_id_hex for m in load_file(backup)] == chosen
    assert check_dmp_file(backup) == []
    assert msgids(cli, DLQ) == [m for m in before if m not in chosen]


def test_delete_text_output_names_the_backup_and_explicit_backup_is_never_overwritten(
        cli, tmp_path):
    target = tmp_path / "mine.dmp"
    r = cli("delete", "APP.ORDERS.BOQ", "--all", "--backup", str(target), "--yes")
    assert r.code == 0, r.err
    assert str(target) in r.err and len(load_file(target)) > 0
    assert msgids(cli, "APP.ORDERS.BOQ") == []
    n = len(msgids(cli, "APP.ORDERS"))
    r = cli("delete", "APP.ORDERS", "--all", "--backup", str(target), "--yes")
    assert r.code == 2 and "exists" in r.err
    assert len(msgids(cli, "APP.ORDERS")) == n


def test_delete_dry_run_and_no_selection(cli):
    n = len(msgids(cli, "APP.ORDERS"))
    r = cli("delete", "APP.ORDERS", "--limit", "3", "--all", "--dry-run", "--json")
    assert r.code == 0, r.err
    assert r.json["dry_run"] and r.json["selected"] == 3 and len(r.json["plan"]) == 3
    assert r.json["backup"] is None and len(msgids(cli, "APP.ORDERS")) == n
    r = cli("delete", "APP.ORDERS", "--yes")
    assert r.code == 2 and "--all" in r.err


def test_edit_replaces_payload_and_fields_keeping_msgid_and_context(cli, tmp_path):
    rows = cli("browse", "APP.ORDERS", "--json", "--limit", "1").json
    msgid = rows[0]["msgid"]
    payload = tmp_path / "p.json"
    payload.write_text('{"fixed": true}')
    r = cli("edit", "APP.ORDERS", msgid, "--payload-file", str(payload),
            "--set", "Persistence=NOT_PERSISTENT", "--set", "Format=MQSTR",
            "--set", "CorrelId=CAFE", "--yes", "--json")
    assert r.code == 0, r.err
    assert (r.json["operation"], r.json["done"], r.json["msgid"]) == ("edit", 1, msgid)
    [row] = [x for x in cli("browse", "APP.ORDERS", "--json").json if x["msgid"] == msgid]
    assert row["preview"] == '{"fixed": true}' and row["persistence"] == "NOT_PERSISTENT"
    assert row["correlid"].startswith("CAFE")
    assert (row["put_time"], row["user"], row["put_appl_name"]) == \
        (rows[0]["put_time"], rows[0]["user"], rows[0]["put_appl_name"])
    assert len(msgids(cli, "APP.ORDERS")) == 40


def test_edit_to_another_queue_with_text(cli):
    msgid = msgids(cli, "APP.ORDERS.BOQ")[0]
    r = cli("edit", "APP.ORDERS.BOQ", msgid, "--payload-text", '{"retry": 1}', "--to",
            "APP.AUDIT", "--yes")
    assert r.code == 0, r.err
    assert msgid not in msgids(cli, "APP.ORDERS.BOQ")
    [row] = cli("browse", "APP.AUDIT", "--json").json
    assert row["msgid"] == msgid and row["preview"] == '{"retry": 1}'


def test_edit_refusals(cli):
    for _ in range(2):
        assert cli("put", "APP.AUDIT", "--text", '{"a": 1}', "--msgid", "AB" * 24).code == 0
    r = cli("edit", "APP.AUDIT", "AB" * 24, "--payload-text", "x", "--yes")
    assert r.code == 2 and "--position" in r.err and "1, 2" in r.err
    r = cli("edit", "APP.AUDIT", "AB" * 24, "--payload-text", "{broken", "--position", "2",
            "--yes")
    assert r.code == 2 and "JSON" in r.err
    r = cli("edit", "APP.AUDIT", "AB" * 24, "--set", "UserIdentifier=eve", "--yes")
    assert r.code == 2 and "UserIdentifier" in r.err and "ReplyToQMgr" in r.err
    r = cli("edit", "APP.AUDIT", "CD" * 24, "--payload-text", "x", "--yes")
    assert r.code == 2 and "no message" in r.err
    rows = cli("browse", "APP.AUDIT", "--json").json
    assert [x["preview"] for x in rows] == ['{"a": 1}', '{"a": 1}']
    r = cli("edit", "APP.AUDIT", "AB" * 24, "--payload-text", '{"a": 2}', "--position", "2",
            "--yes")
    assert r.code == 0, r.err
    rows = cli("browse", "APP.AUDIT", "--json").json
    assert [x["preview"] for x in rows] == ['{"a": 1}', '{"a": 2}']


def test_edit_put_refused_exits_1_and_keeps_the_original(cli):
    msgid = msgids(cli, "APP.ORDERS")[0]
    r = cli("edit", "APP.ORDERS", msgid, "--payload-text", "x" * 2000, "--set",
            "Format=NONE", "--to", "APP.TINY", "--force", "--yes", "--json")
    assert r.code == 1, r.err
    assert r.json["failed"][0]["reason_name"] == "MQRC_MSG_TOO_BIG_FOR_Q"
    assert msgid in msgids(cli, "APP.ORDERS") and msgids(cli, "APP.TINY") == []


def test_edit_refusals_come_before_the_question(cli):
    """The edit is tried as a dry run before anything is asked: without --yes and without
    a terminal a refused edit is bad input (2), not a missing --yes (4)."""
    for _ in range(2):
        assert cli("put", "APP.AUDIT", "--text", '{"a": 1}', "--msgid", "AB" * 24).code == 0
    r = cli("edit", "APP.AUDIT", "AB" * 24, "--payload-text", "x")
    assert r.code == 2 and "--position" in r.err
    r = cli("edit", "APP.AUDIT", "AB" * 24, "--payload-text", "{broken", "--position", "1")
    assert r.code == 2 and "JSON" in r.err
    r = cli("edit", "APP.AUDIT", "AB" * 24, "--payload-text", '{"b": 2}', "--position", "1")
    assert r.code == 4 and "--yes" in r.err  # a good edit is asked for
    # nothing ran, nothing journaled (but the two puts)
    assert [e["operation"] for e in cli("journal", "--json").json] == ["put", "put"]


def test_text_summaries_say_what_went_where(cli, tmp_path):
    msgid = msgids(cli, "APP.ORDERS")[0]
    r = cli("edit", "APP.ORDERS", msgid, "--set", "Priority=1", "--yes")
    assert r.code == 0, r.err
    assert f"message {msgid} at position 1 of APP.ORDERS" in r.err
    assert "Priority: " in r.err and "replaced 1 of 1" in r.err
    r = cli("delete", "APP.ORDERS", "--limit", "2", "--all", "--yes")
    assert r.code == 0 and "deleted 2 of 2 selected messages from APP.ORDERS" in r.err
    assert "backup: " in r.err
    r = cli("delete", "APP.ORDERS", "--where", "text ~ 'no such text'", "--yes")
    assert r.code == 0 and "nothing was deleted" in r.err


def test_a_bad_backup_file_is_exit_2_before_the_question(cli, tmp_path):
    """An existing --backup or a missing folder (one that cannot be written in:
    tests/ops/test_savefile_targets.py) is bad input: one sentence naming it, exit 2
    before asking (not 4 for a missing --yes), nothing journaled, nothing removed (the
    operation's own journaling of an error that stops a delete:
    tests/ops/operation/test_operation.py)."""
    target = tmp_path / "taken.dmp"
    target.write_text("precious")
    for backup, said in ((target, f"{target} exists (a delete never overwrites a file"),
                         (tmp_path / "no" / "x.dmp", f"cannot use {tmp_path / 'no'}: no such")):
        r = cli("delete", "APP.ORDERS", "--all", "--backup", str(backup))
        assert r.code == 2 and said in r.err and r.err.count("\n") == 1, r.err
    assert target.read_text() == "precious"
    assert cli("journal", "--json").json == []
    assert len(msgids(cli, "APP.ORDERS")) == 40
