"""``mqconsole journal``, and the records that delete, edit, load and queue set append."""

from __future__ import annotations

from .conftest import run_cli


def test_changes_are_journaled_and_shown(cli, tmp_path):
    assert cli("journal").code == 0  # an empty journal is not an error
    r = cli("delete", "APP.ORDERS.BOQ", "--all", "--yes", "--json",
            env={"SUDO_USER": "alice"})
    assert r.code == 0, r.err
    backup = r.json["backup"]
    assert cli("queue", "set", "APP.ORDERS", "--bothresh", "7", "--boqname", "X.BOQ",
               "--yes").code == 0
    msgid = cli("browse", "APP.ORDERS", "--json", "--limit", "1").json[0]["msgid"]
    assert cli("edit", "APP.ORDERS", msgid, "--set", "Priority=1", "--yes").code == 0

    r = cli("journal")
    assert r.code == 0, r.err
    lines = r.out.splitlines()
    assert len(lines) == 3
    assert "delete" in lines[0] and "APP.ORDERS.BOQ → -" in lines[0]
    assert "done 5 failed 0" in lines[0] and f"backup {backup}" in lines[0]
    assert "(sudo: alice)" in lines[0] and lines[0][:4].isdigit() and "Z" in lines[0][:25]
    assert "queue-set" in lines[1] and "bothresh 3→7" in lines[1] and "boqname" in lines[1]
    assert "edit" in lines[2] and "APP.ORDERS → APP.ORDERS" in lines[2]

    docs = cli("journal", "--json", "--ids").json
    assert [d["operation"] for d in docs] == ["delete", "queue-set", "edit"]
    delete, qset, edit = docs
    assert delete["sudo_user"] == "alice" and delete["qmgr"] == "QM1"
    assert delete["backup"] == backup and len(delete["msgids"]) == 5
    assert {o["outcome"] for o in delete["outcomes"]} == {"done"}
    assert qset["details"]["changes"] == {
        "bothresh": {"before": 3, "after": 7},
        "boqname": {"before": "APP.ORDERS.BOQ", "after": "X.BOQ"}}
    assert edit["msgids"] == [msgid]
    assert edit["details"]["changes"]["priority"]["after"] == 1

    assert [d["operation"] for d in cli("journal", "--json", "--operation", "edit").json] \
        == ["edit"]
    assert [d["operation"] for d in cli("journal", "--json", "--limit", "2").json] == \
        ["queue-set", "edit"]
    assert len(cli("journal", "--json", "--since", "1h").json) == 3
    assert cli("journal", "--json", "--since", "2999-01-01").json == []
    r = cli("journal", "--since", "soon")
    assert r.code == 2 and "--since" in r.err


def test_config_journal_path_is_used(tmp_path, demo):
    journal = tmp_path / "audit" / "changes.jsonl"
    cfg = tmp_path / "c.yaml"
    cfg.write_text(f"profiles:\n  - name: ops\n    backend:\n      type: embedded\n"
                   f"      path: {demo}\njournal:\n  path: {journal}\n")
    r = run_cli("--config", str(cfg), "queue", "set", "APP.AUDIT", "--max-depth", "9", "--yes",
                home=tmp_path / "home")
    assert r.code == 0, r.err
    assert journal.exists()
    r = run_cli("--config", str(cfg), "journal", "--json", home=tmp_path / "home")
    [doc] = r.json
    assert doc["profile"] == "ops" and doc["details"]["changes"]["max_depth"]["after"] == 9


def test_embedded_with_a_config_file_journals_where_the_config_says(tmp_path, demo):
    """``--embedded`` with a configuration file writes the journal at its ``journal.path``
    (rotated as it says) and backs up into its ``backup_dir``, as the console does — the
    command line wrote the default journal instead, so one change went to two places
    depending on the face (issue 17 item 4)."""
    journal = tmp_path / "audit" / "changes.jsonl"
    backups = tmp_path / "bk"
    cfg = tmp_path / "c.yaml"
    cfg.write_text(f"journal:\n  path: {journal}\n  rotate:\n    max_size: 64KB\n"
                   f"backup_dir: {backups}\n")
    home = tmp_path / "home"
    for _ in range(3):
        r = run_cli("--config", str(cfg), "--embedded", str(demo), "copy",
                    "SYSTEM.DEAD.LETTER.QUEUE", "APP.AUDIT", "--all", "--yes", home=home)
        assert r.code == 0, r.err
    r = run_cli("--config", str(cfg), "--embedded", str(demo), "delete", "APP.AUDIT",
                "--all", "--yes", "--json", home=home)
    assert r.code == 0, r.err
    assert r.json["backup"].startswith(str(backups))
    assert not (home / "state" / "journal.jsonl").exists()
    assert list(journal.parent.glob("changes.*.jsonl"))  # rotated past 64 KB, beside it
    r = run_cli("--config", str(cfg), "--embedded", str(demo), "journal", "--json", "--ids",
                home=home)
    assert [d["operation"] for d in r.json] == ["copy", "copy", "copy", "delete"]
    assert len(r.json[-1]["msgids"]) == 720
    # without a configuration file: the default journal, as before
    r = run_cli("--embedded", str(demo), "queue", "set", "APP.AUDIT", "--bothresh", "2",
                "--yes", home=home)
    assert r.code == 0 and (home / "state" / "journal.jsonl").exists()


def test_journal_json_counts_ids_unless_asked_or_bounded(cli):
    """Issue 23 item 4: a journal of a 200,000-message run is no 80 MB of ids by default —
    a count per record; --ids (or --limit / --since, which bound it) lists them."""
    assert cli("delete", "APP.ORDERS.BOQ", "--all", "--yes").code == 0
    [doc] = cli("journal", "--json").json
    assert "msgids" not in doc and "outcomes" not in doc
    assert doc["msgid_count"] == 5 and doc["counts"]["done"] == 5
    [listed] = cli("journal", "--json", "--ids").json
    assert len(listed["msgids"]) == 5 and len(listed["outcomes"]) == 5
    for bound in (("--limit", "1"), ("--since", "1h")):
        [bounded] = cli("journal", "--json", *bound).json
        assert len(bounded["msgids"]) == 5
