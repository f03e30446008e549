"""Operator safety for delete, edit, save --remove and load, with real invocations:
read-only profiles refuse (exit 4, one sentence); without a terminal on stdin a change needs
--yes or --dry-run (exit 4); a progress bar only when stderr is a terminal."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tests.ops.test_dmpfile import REAL as REAL_FILE

from .conftest import MQCONSOLE, run_cli

REAL = str(REAL_FILE)
DLQ = "SYSTEM.DEAD.LETTER.QUEUE"


def changes(tmp_path: Path, msgid: str) -> list[tuple[str, ...]]:
    return [
        ("delete", "APP.ORDERS", "--all"),
        ("edit", "APP.ORDERS", msgid, "--payload-text", '{"a": 1}'),
        ("save", "APP.ORDERS", str(tmp_path / "s.dmp"), "--all", "--remove"),
        ("load", REAL, "APP.ORDERS"),
    ]


def depth_and_files(cli, tmp_path) -> tuple[list, list]:
    rows = cli("browse", "APP.ORDERS", "--json").json
    return rows, sorted(p.name for p in tmp_path.rglob("*.dmp"))


def test_read_only_profile_refuses_every_change(tmp_path, demo, cli):
    cfg = tmp_path / "c.yaml"
    cfg.write_text(f"profiles:\n  - name: prod\n    read_only: true\n    backend:\n"
                   f"      type: embedded\n      path: {demo}\n")
    msgid = cli("browse", "APP.ORDERS", "--json", "--limit", "1").json[0]["msgid"]
    before = depth_and_files(cli, tmp_path)
    for args in changes(tmp_path, msgid):
        for extra in ((), ("--yes", "--json")):
            r = run_cli("--config", str(cfg), *args, *extra, home=tmp_path / "home")
            assert r.code == 4, (args, r.err)
            [line] = r.err.strip().splitlines()
            assert "read-only" in line and "prod" in line
            assert (r.json == {"error": line.removeprefix("mqconsole: "), "exit": 4}
                    if extra else r.out == "")
    assert depth_and_files(cli, tmp_path) == before
    # a dry run changes nothing, so it is allowed: it says what the change would do
    for args in changes(tmp_path, msgid):
        r = run_cli("--config", str(cfg), *args, "--dry-run", "--json", home=tmp_path / "home")
        assert r.code == 0, (args, r.err)
        assert r.json["dry_run"] is True and r.json["done"] == 0
    assert depth_and_files(cli, tmp_path) == before
    # reading stays allowed: a plain save, and the journal
    r = run_cli("--config", str(cfg), "save", "APP.ORDERS", str(tmp_path / "ro.dmp"),
                home=tmp_path / "home")
    assert r.code == 0, r.err
    assert run_cli("--config", str(cfg), "journal", home=tmp_path / "home").code == 0


def test_without_a_terminal_a_change_needs_yes_or_dry_run(tmp_path, cli):
    msgid = cli("browse", "APP.ORDERS", "--json", "--limit", "1").json[0]["msgid"]
    before = depth_and_files(cli, tmp_path)
    for args in changes(tmp_path, msgid):
        r = cli(*args)  # subprocess stdin is a pipe, not a terminal
        assert r.code == 4, (args, r.err)
        [line] = r.err.strip().splitlines()
        assert "--yes" in line
        r = cli(*args, input="y\n")  # an answer on a pipe is not a confirmation
        assert r.code == 4, (args, r.err)
        r = cli(*args, "--dry-run", "--json")
        assert r.code == 0, (args, r.err)
        assert r.json["dry_run"] is True and r.json["done"] == 0
    assert depth_and_files(cli, tmp_path) == before


def _run_with_terminal_stderr(terminal, args: list[str], home: Path) -> tuple[int, str]:
    screen = terminal()
    env = {k: v for k, v in os.environ.items() if not k.startswith("MQCONSOLE_")}
    env["MQCONSOLE_HOME"] = str(home)
    p = subprocess.Popen([MQCONSOLE, *args], stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=screen.end, env=env)
    screen.hand_over()
    seen = screen.read_to_the_end()
    return p.wait(timeout=120), seen.decode("utf-8", "replace")


def test_progress_bar_only_on_a_terminal(tmp_path, demo, cli, terminal):
    code, err = _run_with_terminal_stderr(
        terminal, ["--embedded", str(demo), "delete", DLQ, "--all", "--yes"], tmp_path / "home")
    assert code == 0, err
    assert "[" in err and "#" in err and "\r" in err and "deleted" in err
    assert cli("browse", DLQ, "--json").json == []
    r = cli("delete", "APP.ORDERS", "--all", "--yes")
    assert r.code == 0 and "\r" not in r.err and "#" not in r.err


def test_put_and_queue_define_are_refused_read_only_and_planned_in_a_dry_run(tmp_path, demo):
    """They only add, so they are not asked; a read-only profile still refuses them."""
    cfg = tmp_path / "c.yaml"
    cfg.write_text(f"profiles:\n  - name: prod\n    read_only: true\n    backend:\n"
                   f"      type: embedded\n      path: {demo}\n")
    for args in (("put", "APP.ORDERS", "--text", "x"), ("queue", "define", "APP.NEW")):
        r = run_cli("--config", str(cfg), *args, home=tmp_path / "home")
        assert r.code == 4 and "profile prod is read-only" in r.err, (args, r.err)
        r = run_cli("--config", str(cfg), *args, "--dry-run", "--json", home=tmp_path / "home")
        assert r.code == 0 and r.json["dry_run"] is True and r.json["done"] == 0, r.err
    r = run_cli("--config", str(cfg), "queues", "--json", home=tmp_path / "home")
    assert "APP.NEW" not in {q["name"] for q in r.json}
