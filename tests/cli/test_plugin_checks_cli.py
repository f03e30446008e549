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
    for text in ("fine", "a secret", "also fine"):
        assert cli(base, tmp_path, "put", "APP.AUDIT", "--text", text).code == 0
    path = tmp_path / "a.dmp"
    assert cli(base, tmp_path, "save", "APP.AUDIT", str(path)).code == 0
    assert cli(base, tmp_path, "queue", "define", "T.LOAD").code == 0

    r = cli(base, tmp_path, "load", str(path), "T.LOAD", "--dry-run")
    assert r.code == 0 and "1 would be refused on T.LOAD: " in r.err
    assert "no secrets on T.LOAD (load)" in r.err
    r = cli(base, tmp_path, "load", str(path), "T.LOAD", "--yes", "--json")
    assert r.code == 1, r.err
    assert r.json["counts"] == {"selected": 3, "done": 2, "failed": 1, "skipped": 0}
    [failed] = r.json["failed"]
    assert failed["reason_name"] == "REFUSED_BY_PLUGIN"
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
        ("save", 0), ("load", 0), ("load", 1), ("edit", 1)]
    assert done[2]["counts"]["failed"] == 1
