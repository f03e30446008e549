"""No option a command writes to may be one of mqconsole's own files (issue 28 items 1, 4, 5
and 17's --attempts-file): every path-taking option of every command is found by walking
the click command tree, so a new one is caught here until it is classified."""

from __future__ import annotations

import hashlib
import os
import re
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import click
import pytest

from mqconsole.cli.commands.common import OutputPath
from mqconsole.cli.main import cli as root
from mqconsole.cli.main import main
from tests.audit.reportdata import make_rows, write_snapshot
from tests.cli.conftest import IN_PROCESS, Result, _in_process, clean_env, run_cli

# what each option that writes is given in the walk: args around the path X
WRITES: dict[tuple[str, str], Callable[[str, Path], list[str]]] = {
    ("audit report", "--html"): lambda x, snap: ["audit", "report", "--in", str(snap),
                                                  "--html", x],
    ("audit sql", "--out"): lambda x, snap: ["audit", "sql", "--in", str(snap), "SELECT 1",
                                             "--out", x],
    ("audit export", "--out"): lambda x, snap: ["audit", "export", "--out", x, "--queues",
                                               "APP.*"],
    ("delete", "--backup"): lambda x, snap: ["delete", "APP.ORDERS", "--all", "--backup", x,
                                           "--yes"],
    ("save", "FILE"): lambda x, snap: ["save", "APP.ORDERS", x, "--force"],
    ("show", "--save-payload"): lambda x, snap: ["show", "APP.ORDERS", "00", "--save-payload",
                                               x],
    ("dlq-handler", "--attempts-file"): lambda x, snap: ["dlq-handler", "--rules", "rules.txt",
                                                       "--attempts-file", x, "--yes"],
    ("audit connect-plugin", "OUT.JAR"): lambda x, snap: ["audit", "connect-plugin", x],
}
# options that only read what they are given (the walk checks there is no other kind)
READS = {
    ("", "--config"): "the configuration file",
    ("", "--embedded"): "the queue manager's store itself (init creates it: checked below)",
    ("audit export", "FILES"): "saved files to audit (a delete's backup among them)",
    ("audit report", "--in"): "the snapshot", ("audit sql", "--in"): "the snapshot",
    ("audit clean", "FOLDER..."): "where exports staged (only killed exports' .NAME.tmp- "
                                  "folders are removed)",
    ("dlq-handler", "--rules"): "the rules table",
    ("audit connect-plugin", "--spark-jars"): "a Spark's jars, compiled against",
    ("edit", "--payload-file"): "the new payload", ("put", "--file"): "the body",
    ("load", "FILE"): "the file to load (restoring a delete's backup is its job)",
    ("copy", "--dest-embedded"): "another store, opened (never created)",
    ("move", "--dest-embedded"): "another store, opened (never created)",
    ("replay", "[SCENARIO.YAML]"): "the scenario", ("replay", "--endpoints"): "endpoints",
    ("doctor", "--endpoints"): "endpoints",
    **{(c, "--msgids-from"): "message ids" for c in ("action", "copy", "delete", "move",
                                                      "resubmit", "save")},
}
_PATHLIKE = {"FILE", "FILES", "DIR", "FOLDER", "PATH", "YAML", "OUT", "HTML"}


def _commands(cmd: click.Command, prefix: tuple[str, ...] = ()
              ) -> Iterator[tuple[str, click.Command]]:
    yield " ".join(prefix), cmd
    if isinstance(cmd, click.Group):
        ctx = click.Context(cmd)
        for name in cmd.list_commands(ctx):
            sub = cmd.get_command(ctx, name)
            assert sub is not None
            yield from _commands(sub, (*prefix, name))


def _label(param: click.Parameter) -> str:
    if isinstance(param, click.Option):
        return max(param.opts, key=len)
    return param.human_readable_name.upper()


def path_params() -> list[tuple[str, click.Parameter]]:
    """Every parameter that takes a path: a click.Path, or named or shown like one."""
    found = []
    for name, cmd in _commands(root):
        for param in cmd.params:
            words = set(re.split(r"[^A-Z]+", f"{param.name} {param.metavar or ''}".upper()))
            if isinstance(param.type, click.Path) or words & _PATHLIKE:
                found.append((name, param))
    return found


def test_every_path_option_is_typed_and_classified():
    params = path_params()
    untyped = [(c, _label(p)) for c, p in params if not isinstance(p.type, click.Path)]
    assert untyped == [], "give these a path type (commands.common.InputPath or OutputPath)"
    writes = {(c, _label(p)) for c, p in params if isinstance(p.type, OutputPath)}
    reads = {(c, _label(p)) for c, p in params if not isinstance(p.type, OutputPath)}
    assert writes == set(WRITES), "an option that writes: add it to WRITES"
    assert reads == set(READS), "an option that reads: add it to READS (or make it OutputPath)"


@pytest.fixture
def place(tmp_path, tmp_path_factory, demo) -> dict[str, Path]:
    """The demo store, a journal and a delete's backup (made by a real delete), a snapshot
    (so that, without the refusal, the audit commands would go on and write), and the
    folder the in-process runs work in."""
    home = tmp_path / "home"
    r = run_cli("--embedded", str(demo), "delete", "APP.SHIPPING", "--all", "--yes", home=home)
    assert r.code == 0, r.err
    backups = list((home / "state" / "backups").iterdir())
    assert len(backups) == 1
    (tmp_path / "rules.txt").write_text("ACTION(RETRY)\n")
    snap = write_snapshot(tmp_path_factory.mktemp("audit") / "snap", make_rows(20))
    return {"store": demo, "journal": home / "state" / "journal.jsonl", "backup": backups[0],
            "home": home, "snap": snap}


def fingerprint(*folders: Path) -> dict[str, str]:
    """Every file under ``folders`` and its SHA-256 (links not followed)."""
    out = {}
    for folder in folders:
        for dirpath, _dirs, names in os.walk(folder):
            for name in names:
                p = Path(dirpath) / name
                out[str(p)] = "link" if p.is_symlink() else hashlib.sha256(
                    p.read_bytes()).hexdigest()
    return out


def test_every_option_that_writes_refuses_mqconsoles_files_directly_and_through_links(
        place, tmp_path, tmp_path_factory, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MQCONSOLE_HOME", str(place["home"]))
    monkeypatch.delenv("MQCONSOLE_CONFIG", raising=False)
    store = str(place["store"])
    targets = {"store": store, "-wal": store + "-wal", "-shm": store + "-shm",
               "-mqlock": store + "-mqlock", "journal": str(place["journal"]),
               "backup": str(place["backup"])}
    assert Path(targets["-mqlock"]).exists() and not Path(targets["-wal"]).exists()
    links = tmp_path_factory.mktemp("links")
    before = fingerprint(store_dir := place["store"].parent, place["home"])
    cases = [((c, o), args, what, path, via)
             for (c, o), args in WRITES.items()
             for what, path in targets.items()
             for via in ("direct", "symlink")]
    cases += [(("init", "--embedded"), None, what, path, via)
              for what, path in targets.items() for via in ("direct", "symlink")]
    for n, ((command, option), args, what, path, via) in enumerate(cases):
        given = path
        if via == "symlink":
            given = str(links / f"link{n}")
            os.symlink(path, given)
        argv = (["--embedded", given, "init"] if args is None
                else ["--embedded", store, *args(given, place["snap"])])
        code = main(argv)
        err = capsys.readouterr().err
        where = f"{command} {option} = {what} ({via})"
        assert code == 2, (where, err)
        lines = err.strip().splitlines()
        assert len(lines) == 1, (where, err)
        assert fingerprint(store_dir, place["home"]) == before, where
        assert not Path(store + "-wal").exists() and not Path(store + "-shm").exists(), where
        if (command, what) == ("init", "store"):  # a store there: init's own sentence
            assert "already exists: init never overwrites a queue manager" in lines[0]
            continue
        assert given in lines[0] and "mqconsole never writes over its own files" in lines[0], \
            (where, err)
        if option.startswith("--"):
            assert f"{option} " in lines[0], (where, err)
        if via == "symlink":
            assert "links to" in lines[0], (where, err)


# -- the data-loss items as real invocations, the store and backups checked byte for byte --

def _spark_running():
    if "pyspark" not in sys.modules:
        return None
    from pyspark import SparkContext

    return SparkContext._active_spark_context


def refused_here(*args: str, home: Path) -> Result:
    """An audit command that is refused before Spark starts, run in this process as
    ``run_cli`` runs the others (``run_cli`` runs an audit command as the executable, lest
    it start Spark here): should it start Spark all the same, the test fails on its
    assertions and the session it started is stopped here. (``MQCONSOLE_TEST_CLI=subprocess``:
    the executable.)"""
    if not IN_PROCESS:
        return run_cli(*args, home=home, process=True)
    before = _spark_running()
    try:
        return _in_process(list(args), clean_env(home), None)
    finally:
        after = _spark_running()
        if after is not None and after is not before:
            after.stop()


def test_journal_path_set_to_the_store_is_refused_and_nothing_moves(place, tmp_path):
    """Item 4: ``journal.path`` naming the store (or its -wal, or a backup)."""
    store = place["store"]
    home = place["home"]
    before = fingerprint(store.parent, home)
    said = {store: "is a queue manager database",
            Path(f"{store}-wal"): f"belongs to the queue manager database {store}",
            place["backup"]: "is a delete's backup"}
    for journal, what in said.items():
        config = home / "config.yaml"
        config.write_text(f"profiles:\n  - name: local\n    backend: {{type: embedded, path: "
                          f"{store}}}\njournal:\n  path: {journal}\n")
        r = run_cli("move", "APP.ORDERS", "APP.AUDIT", "--all", "--yes", home=home)
        assert r.code == 2, r.err
        assert r.err.strip() == (f"mqconsole: journal.path (in {config}) {journal} {what}: "
                                 "mqconsole never writes over its own files, choose another")
        config.unlink()
        assert fingerprint(store.parent, home) == before
        assert not Path(f"{store}-wal").exists()
    r = run_cli("--embedded", str(store), "queue", "show", "APP.ORDERS", "--json", home=home)
    assert r.code == 0 and r.json["depth"] == 40  # nothing moved


def test_export_out_the_stores_wal_or_shm_is_refused_and_the_store_still_opens(place):
    """Item 5: ``audit export --out <store>-wal`` made a folder SQLite took as the WAL."""
    store = place["store"]
    before = fingerprint(store.parent, place["home"])
    for side in ("-wal", "-shm"):
        r = refused_here("--embedded", str(store), "audit", "export", "--out",
                         f"{store}{side}", "--queues", "APP.*", home=place["home"])
        assert r.code == 2, r.err
        assert f"--out {store}{side} belongs to the queue manager database {store}" in r.err
        assert not Path(f"{store}{side}").exists()
        assert "starting Spark" not in r.err
    assert fingerprint(store.parent, place["home"]) == before
    r = run_cli("--embedded", str(store), "queues", "--json", home=place["home"])
    assert r.code == 0


def test_report_html_onto_the_store_or_a_link_to_a_backup_is_refused(place, tmp_path):
    """Item 1: ``audit report --html FILE`` truncated the store (and, through a symbolic
    link, a delete's backup) before Spark even started."""
    store, backup = place["store"], place["backup"]
    link = tmp_path / "report.html"
    link.symlink_to(backup)
    before = fingerprint(store.parent, place["home"])
    for target in (store, link):
        r = refused_here("--embedded", str(store), "audit", "report", "--in",
                         str(place["snap"]), "--html", str(target), "--master", "local[1]",
                         home=place["home"])
        assert r.code == 2, r.err
        assert f"--html {target} " in r.err and "never writes over its own files" in r.err
    assert fingerprint(store.parent, place["home"]) == before
    assert link.is_symlink()


def test_attempts_file_the_store_is_refused(place, tmp_path):
    """Item 17: ``dlq-handler --attempts-file <store>`` wrote a table into the store."""
    store = place["store"]
    before = fingerprint(store.parent, place["home"])
    rules = tmp_path / "rules.txt"
    r = run_cli("--embedded", str(store), "dlq-handler", "--rules", str(rules),
                "--attempts-file", str(store), "--once", "--yes", home=place["home"])
    assert r.code == 2 and f"--attempts-file {store} is a queue manager database" in r.err
    assert fingerprint(store.parent, place["home"]) == before
