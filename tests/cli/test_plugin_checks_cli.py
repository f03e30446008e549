"""Site plugins' put checks through the CLI's commands (real invocations, a plugin folder
written per test): a refused message stays where it was, failed with the plugin's
sentence, exit 1; dry runs say what would be refused; operation_done sees each summary."""

from __future__ import annotations

import json
import os
from pathlib import Path

from .conftest import run_cli

SITE = '''
import json
from pathlib import Path
from mqconsole.plugins import hookimpl, plugin_settings

@hookimpl
def mqconsole_check_put(operation, message, destination):
    if b"secret" in message.body:
        return f"no secrets on {destination} ({operation})"
    return None

@hookimpl
def mqconsole_operation_done(summary):
    with Path(plugin_settings()["log"]).open("a") as f:
        f.write(json.dumps({"kind": summary.kind, "counts": summary.counts,
                            "exit_code": int(summary.exit_code)}) + "\\n")
'''


def setup(tmp_path: Path, demo: Path) -> tuple[list[str], Path]:
    folder = tmp_path / "site-plugins"
    folder.mkdir()
    os.chmod(folder, 0o755)
    (folder / "guard.py").write_text(SITE)
    log = tmp_path / "done.log"
    cfg = tmp_path / "config.yaml"
    cfg.write_text(f"plugins:\n  paths: [{folder}]\n  settings:\n    guard: {{log: {log}}}\n")
    return ["--config", str(cfg), "--embedded", str(demo)], log


def cli(base: list[str], tmp_path: Path, *args: str):
    return run_cli(*base, *args, home=tmp_path / "home")


def test_load_and_edit_refused_by_a_check_leave_the_messages_where_they_were(tmp_path, demo):
    base, log = setup(tmp_path, demo)
    for text in ("fine", "a secret", "also fine"):  # put as another site would
        assert cli([*base, "--no-plugins"], tmp_path, "put", "APP.AUDIT", "--text",
                   text).code == 0
    path = tmp_path / "a.dmp"
    assert cli(base, tmp_path, "save", "APP.AUDIT", str(path)).code == 0
    assert cli(base, tmp_path, "queue", "define", "T.LOAD").code == 0

    r = cli(base, tmp_path, "load", str(path), "T.LOAD", "--dry-run")
    assert r.code == 1 and "1 would be refused on T.LOAD: " in r.err
    assert "no secrets on T.LOAD (load)" in r.err
    r = cli(base, tmp_path, "load", str(path), "T.LOAD", "--yes", "--json")
    assert r.code == 1, r.err
    assert r.json["counts"] == {"selected": 3, "done": 2, "failed": 1, "skipped": 0}
    [failed] = r.json["failed"]
    assert failed["reason_name"] == "REFUSED_BY_PLUGIN"
    assert "no secrets on T.LOAD (load)" in failed["detail"]  # the why reaches scripts too
    rows = cli(base, tmp_path, "browse", "T.LOAD", "--json").json
    assert [x["preview"] for x in rows] == ["fine", "also fine"]

    msgid = cli(base, tmp_path, "browse", "APP.AUDIT", "--json").json[0]["msgid"]
    r = cli(base, tmp_path, "edit", "APP.AUDIT", msgid, "--payload-text", "now a secret",
            "--yes")
    assert r.code == 1
    assert "refused by plugin guard: no secrets on APP.AUDIT (edit)" in r.err
    rows = cli(base, tmp_path, "browse", "APP.AUDIT", "--json").json
    assert rows[0]["preview"] == "fine"  # the original stayed

    done = [json.loads(line) for line in log.read_text().splitlines()]
    assert [(d["kind"], d["exit_code"]) for d in done] == [
        ("save", 0), ("queue-define", 0), ("load", 1), ("load", 1), ("edit", 1)]
    assert done[3]["counts"]["failed"] == 1


def test_a_put_refused_by_a_check_is_not_put_exit_1_and_journaled(tmp_path, demo):
    """put is an operation too: the checks before each put, operation_done, the journal."""
    base, log = setup(tmp_path, demo)
    before = len(cli(base, tmp_path, "browse", "APP.AUDIT", "--json").json)
    r = cli(base, tmp_path, "put", "APP.AUDIT", "--text", "a secret", "--dry-run")
    assert r.code == 1 and "1 would be refused on APP.AUDIT: " in r.err
    r = cli(base, tmp_path, "put", "APP.AUDIT", "--text", "a secret", "--count", "2", "--json")
    assert r.code == 1, r.err
    assert r.json["counts"] == {"selected": 2, "done": 0, "failed": 2, "skipped": 0}
    assert r.json["put"] == 0 and r.json["msgids"] == []
    assert {f["reason_name"] for f in r.json["failed"]} == {"REFUSED_BY_PLUGIN"}
    r = cli(base, tmp_path, "put", "APP.AUDIT", "--text", "fine", "--json")
    assert r.code == 0 and r.json["put"] == 1
    [msgid] = r.json["msgids"]
    assert len(cli(base, tmp_path, "browse", "APP.AUDIT", "--json").json) == before + 1

    done = [json.loads(line) for line in log.read_text().splitlines()]
    # the dry run is 1 too: a message would be refused
    assert [(d["kind"], d["exit_code"]) for d in done] == [("put", 1), ("put", 1), ("put", 0)]
    entries = cli(base, tmp_path, "journal", "--json", "--ids").json
    puts = [e for e in entries if e["operation"] == "put" and not e.get("dry_run")]
    assert [e["details"]["done"] for e in puts][-2:] == [0, 1]
    assert msgid in puts[-1]["msgids"]
