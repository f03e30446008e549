"""Everything mqconsole creates is private: files 0600, folders 0700, whatever the umask
(issue 24 item 8, issue 28 item 14). Real invocations under a fresh MQCONSOLE_HOME; every
file and folder they leave is listed and checked. The audit commands' (a real export
process, its own Spark; the report and sql) are checked on the export of
tests/cli/test_audit_export_cli.py, which that module makes once under the umask below."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from .conftest import run_cli

RULES = "INPUTQ(' ') WAIT(NO) RETRYINT(0)\nREASON(MQRC_Q_FULL) ACTION(RETRY) RETRY(3)\n"


def not_private(*roots: Path) -> list[str]:
    """Every folder under ``roots`` that is not 0700 and every file that is not 0600 (the
    roots themselves were made by the test)."""
    wrong = []
    for root in roots:
        for dirpath, dirs, names in os.walk(root):
            for name in dirs:
                mode = stat.S_IMODE((Path(dirpath) / name).lstat().st_mode)
                if mode != 0o700:
                    wrong.append(f"{Path(dirpath) / name}/ {mode:o}")
            for name in names:
                mode = stat.S_IMODE((Path(dirpath) / name).lstat().st_mode)
                if mode != 0o600:
                    wrong.append(f"{Path(dirpath) / name} {mode:o}")
    return wrong


def everything(*roots: Path) -> list[str]:
    return sorted(str(Path(d) / n) for root in roots for d, dirs, names in os.walk(root)
                  for n in [*dirs, *names])


@pytest.fixture
def umask_022():
    old = os.umask(0o022)  # the usual one: what the commands are given, not what they use
    yield
    os.umask(old)


def test_every_file_the_commands_create_is_0600_in_0700_folders(tmp_path, umask_022,
                                                               monkeypatch):
    home, out, cwd = tmp_path / "home", tmp_path / "out", tmp_path / "cwd"
    out.mkdir()
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    store = home / "data" / "qm.sqlite"

    def cli(*args: str, code: int = 0) -> None:
        r = run_cli("--embedded", str(store), *args, home=home)
        assert r.code == code, (args, r.err)

    cli("init", "--demo")
    assert not (home / "state").exists()
    (tmp_path / "rules.txt").write_text(RULES)
    # the dead-letter handler makes the state folder first (item 14): attempts, journal
    cli("dlq-handler", "--rules", str(tmp_path / "rules.txt"), "--once", "--yes", code=1)
    assert (home / "state" / "dlq-attempts.sqlite").is_file()
    cli("delete", "APP.SHIPPING", "--all", "--yes")  # a backup in state/backups
    cli("save", "APP.ORDERS", str(out / "orders.dmp"))
    r = run_cli("--embedded", str(store), "browse", "APP.ORDERS", "--json", "--limit", "1",
                home=home)
    cli("show", "APP.ORDERS", r.json[0]["msgid"], "--save-payload", str(out / "payload.bin"))
    cli("put", "APP.AUDIT", "--text", "hello")
    assert not_private(home, out) == [], everything(home, out)
    assert list(cwd.iterdir()) == []
