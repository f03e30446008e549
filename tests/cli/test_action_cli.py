"""``mqconsole action ID QUEUE``: plugin actions run as operations, real invocations with a
plugin folder written for each test (and the ticket_file example)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from .conftest import run_cli

REPO = Path(__file__).resolve().parents[2]

SITE = '''
from pathlib import Path
from mqconsole.plugins import Action, ActionSummary, hookimpl

def _log(context, name, messages):
    out = Path(context.settings["log"])
    with out.open("a") as f:
        f.write(name + " " + context.queue + " " + " ".join(m.msg_id_hex for m in messages)
                + "\\n")

def count(context, messages):
    _log(context, "count", messages)
    return ActionSummary(done=len(messages), sentence=f"counted {len(messages)} message(s)")

def drain(context, messages):
    _log(context, "drain", messages)
    return ActionSummary(done=len(messages), failed=0, sentence="drained (pretend)")

def peek(context, messages):
    _log(context, "peek", messages)
    return ActionSummary(done=1, sentence="peeked \\x1b[31mred\\x1b[0m [b]bold[/b]")

def boom(context, messages):
    raise RuntimeError("the ticket system is down")

@hookimpl
def mqconsole_actions():
    return [Action("count", "Count the selection", "selection", False, count),
            Action("drain", "Drain the queue", "queue", True, drain),
            Action("peek", "Peek at one message", "message", False, peek),
            Action("boom", "Always fails", "selection", False, boom)]
'''


def setup(tmp_path: Path, demo: Path, *, read_only: bool = False) -> tuple[Path, Path]:
    """A plugin folder with the ``site`` plugin and a config using it on the demo."""
    folder = tmp_path / "site-plugins"
    folder.mkdir(parents=True)
    os.chmod(folder, 0o755)
    (folder / "site.py").write_text(SITE)
    log = tmp_path / "actions.log"
    cfg = tmp_path / "config.yaml"
    cfg.write_text(f"plugins:\n  paths: [{folder}]\n  settings:\n    site: {{log: {log}}}\n"
                   f"profiles:\n  - name: prod\n    read_only: {str(read_only).lower()}\n"
                   f"    backend:\n      type: embedded\n      path: {demo}\n")
    return cfg, log


def act(cfg: Path, tmp_path: Path, *args: str):
    return run_cli("--config", str(cfg), "action", *args, home=tmp_path / "home")


def ids(cfg: Path, tmp_path: Path, queue: str) -> list[str]:
    r = run_cli("--config", str(cfg), "browse", queue, "--json", home=tmp_path / "home")
    assert r.code == 0, r.err
    return [row["msgid"] for row in r.json]


def journal(cfg: Path, tmp_path: Path) -> list[dict]:
    r = run_cli("--config", str(cfg), "journal", "--json", home=tmp_path / "home")
    assert r.code == 0, r.err
    return r.json


def test_a_selection_action_gets_the_selected_messages_and_is_journaled(tmp_path, demo):
    cfg, log = setup(tmp_path, demo)
    chosen = ids(cfg, tmp_path, "APP.ORDERS")[:3]
    r = act(cfg, tmp_path, "count", "APP.ORDERS", "--limit", "3", "--all", "--json")
    assert r.code == 0, r.err
    assert (r.json["operation"], r.json["selected"], r.json["done"]) == ("action", 3, 3)
    assert r.json["sentence"] == "counted 3 message(s)" and r.json["exit_code"] == 0
    assert log.read_text() == f"count APP.ORDERS {' '.join(chosen)}\n"
    [entry] = journal(cfg, tmp_path)
    assert entry["operation"] == "action" and entry["details"]["action"] == "count"
    assert entry["details"]["plugin"] == "site" and entry["profile"] == "prod"
    r = act(cfg, tmp_path, "count", "APP.ORDERS", "--msgid", chosen[1])  # text summary
    assert r.code == 0 and "handled 1 of 1 selected message from APP.ORDERS" in r.err
    assert "counted 1 message(s)" in r.err


def test_unknown_id_and_bad_selections_are_exit_2_before_anything(tmp_path, demo):
    cfg, log = setup(tmp_path, demo)
    r = act(cfg, tmp_path, "nope", "APP.ORDERS", "--all")
    assert r.code == 2
    [line] = r.err.strip().splitlines()
    assert line == "mqconsole: no action 'nope'; known actions: boom, count, drain, peek"
    cases = {("count", "APP.ORDERS"): "no messages selected",
             ("peek", "APP.ORDERS", "--all"): "works on one message: give one --msgid",
             ("drain", "APP.ORDERS", "--all"): "works on the whole queue: give no selection",
             ("drain", "APP.ORDERS", "--token", "AB"): "works on the whole queue",
             ("peek", "APP.ORDERS", "--where", "priority > 0"): "works on one message",
             ("count", "NO.SUCH.Q", "--all"): "NO.SUCH.Q does not exist",
             ("drain", "NO.SUCH.Q"): "NO.SUCH.Q does not exist"}  # before the question
    for args, sentence in cases.items():
        r = act(cfg, tmp_path, *args)
        assert r.code == 2 and sentence in r.err, (args, r.err)
        assert len(r.err.strip().splitlines()) == 1
    assert not log.exists() and journal(cfg, tmp_path) == []


def test_a_dangerous_action_is_confirmed_and_absent_in_a_read_only_profile(tmp_path, demo):
    cfg, log = setup(tmp_path, demo)
    r = act(cfg, tmp_path, "drain", "APP.ORDERS")
    assert r.code == 4 and "--yes" in r.err and not log.exists()
    r = act(cfg, tmp_path, "drain", "APP.ORDERS", "--dry-run", "--json")
    assert r.code == 0 and r.json["dry_run"] and len(r.json["plan"]) == 40
    assert not log.exists()  # a dry run does not call the action
    r = act(cfg, tmp_path, "drain", "APP.ORDERS", "--yes")
    assert r.code == 0 and "drained (pretend)" in r.err
    assert log.read_text().startswith("drain APP.ORDERS ")

    ro, ro_log = setup(tmp_path / "ro", demo, read_only=True)
    r = act(ro, tmp_path, "drain", "APP.ORDERS", "--yes")
    assert r.code == 2
    assert r.err.strip() == ("mqconsole: action 'drain' is not available in profile prod: it "
                             "is dangerous and the profile is read-only; known actions: "
                             "boom, count, peek")
    msgid = ids(ro, tmp_path, "APP.ORDERS")[0]
    r = act(ro, tmp_path, "peek", "APP.ORDERS", "--msgid", msgid, "--position", "1")
    assert r.code == 0, r.err
    assert ro_log.read_text() == f"peek APP.ORDERS {msgid}\n"
    assert "\x1b" not in r.err and "peeked" in r.err  # a plugin's sentence is made safe


def test_a_raising_action_fails_its_messages_exit_1_and_is_journaled(tmp_path, demo):
    cfg, _ = setup(tmp_path, demo)
    r = act(cfg, tmp_path, "boom", "APP.ORDERS", "--limit", "2", "--all", "--json")
    assert r.code == 1 and "Traceback" not in r.err
    assert r.json["counts"] == {"selected": 2, "done": 0, "failed": 2, "skipped": 0}
    assert r.json["sentence"] == ("plugin site's action boom failed (RuntimeError: the "
                                  "ticket system is down)")
    [entry] = journal(cfg, tmp_path)
    assert entry["operation"] == "action" and "down" in entry["details"]["sentence"]
    assert len(ids(cfg, tmp_path, "APP.ORDERS")) == 40
    r = act(cfg, tmp_path, "boom", "APP.ORDERS", "--limit", "2", "--all")
    assert r.code == 1 and r.err.count("action boom failed") == 1, r.err  # said once


def test_the_ticket_file_example_writes_a_ticket(tmp_path, demo):
    folder = tmp_path / "site" / "ticket_file"
    shutil.copytree(REPO / "plugins" / "ticket_file", folder,
                    ignore=shutil.ignore_patterns("tests", "__pycache__"))
    os.chmod(folder, 0o755)
    tickets = tmp_path / "tickets"
    tickets.mkdir()
    cfg = tmp_path / "config.yaml"
    cfg.write_text(f"plugins:\n  paths: [{folder}]\n  settings:\n"
                   f"    ticket_file: {{folder: {tickets}, payload_as: hex}}\n")
    r = run_cli("--config", str(cfg), "--embedded", str(demo), "action", "ticket",
                "SYSTEM.DEAD.LETTER.QUEUE", "--where", "reason = PUT_INHIBITED", "--json",
                home=tmp_path / "home")
    assert r.code == 0, r.err
    [path] = r.json["files"]
    ticket = json.loads(Path(path).read_text())
    assert ticket["queue"] == "SYSTEM.DEAD.LETTER.QUEUE" and ticket["count"] == r.json["done"]
    assert r.json["done"] > 0
    assert {m["dead_letter"]["reason_name"] for m in ticket["messages"]} == \
        {"MQRC_PUT_INHIBITED"}
    assert oct(os.stat(path).st_mode & 0o777) == "0o600"
