"""Plugins that try to end the process, print, or never return (issue 28 items 6, 7, 8):
real invocations of ``mqconsole`` with a plugin folder written per test.

- ``sys.exit`` or a KeyboardInterrupt-like exception from a plugin (at import, in a check
  mid-move, in ``operation_done``) is that plugin's failure, said by name; the operation's
  own outcome and exit code stand, and ``plugins`` lists an import-time exit as an error.
- What a plugin prints goes to stderr: with ``--json`` stdout is the JSON alone (the
  docs' own ``operation_done`` example prints).
- A check that never returns: the first SIGTERM stops the move at once (143), the open
  unit of work backed out, nothing lost, the journal's record ended.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import time
from pathlib import Path

import pytest

from mqconsole.backends.open import open_embedded

from .conftest import MQCONSOLE, run_cli

SOURCE, DEST = "APP.ORDERS.BOQ", "APP.AUDIT"
DOCS = Path(__file__).resolve().parents[2] / "docs" / "plugins.md"


def site(tmp_path: Path, **plugins: str) -> list[str]:
    """A private plugin folder holding ``plugins`` (name -> source) and a config naming it;
    the global options that use it."""
    folder = tmp_path / "site-plugins"
    folder.mkdir(mode=0o700, exist_ok=True)
    for name, text in plugins.items():
        (folder / f"{name}.py").write_text(text)
    config = tmp_path / "config.yaml"
    config.write_text(f"plugins:\n  paths: [{folder}]\n"
                      f"journal:\n  path: {tmp_path / 'journal.jsonl'}\n")
    return ["--config", str(config)]


def cli(tmp_path: Path, demo: Path, base: list[str], *args: str):
    return run_cli(*base, "--embedded", str(demo), *args, home=tmp_path / "home")


def contents(store: Path, queue: str) -> list[tuple[bytes, bytes]]:
    qm = open_embedded(store)
    try:
        with qm.browse(queue) as cursor:
            return [(m.md.msg_id, bytes(m.body)) for m in iter(cursor.next, None)]
    finally:
        qm.close()


# -- item 6: sys.exit and KeyboardInterrupt from a plugin ----------------------------------------

EXIT_AT_IMPORT = "import sys\nsys.exit(3)\n"
INTERRUPT_AT_IMPORT = "raise KeyboardInterrupt\n"
FINE = '''
from mqconsole.plugins import hookimpl, Decoded

@hookimpl
def mqconsole_decode_payload(message, payload):
    return Decoded("Length", str(len(payload)))
'''


def test_a_plugin_exiting_at_import_is_listed_as_broken_and_the_rest_load(tmp_path, demo):
    base = site(tmp_path, quitter=EXIT_AT_IMPORT, breaker=INTERRUPT_AT_IMPORT, fine=FINE)
    r = cli(tmp_path, demo, base, "plugins", "--json")
    assert r.code == 0, r.err
    status = {p["name"]: p["status"] for p in r.json}
    assert status["fine"] == "loaded"
    assert re.fullmatch(r"error: plugin quitter \(.*quitter\.py\) failed to import: "
                        r"it called sys\.exit\(3\)", status["quitter"])
    assert status["breaker"].endswith("failed to import: KeyboardInterrupt")
    assert "plugin quitter" in r.err and "Traceback" not in r.err
    # and a command goes on, its exit code its own
    r = cli(tmp_path, demo, base, "move", SOURCE, DEST, "--all", "--yes", "--json")
    assert r.code == 0, r.err
    assert r.json["counts"]["done"] == 5


EXIT_IN_CHECK = '''
import sys
from mqconsole.plugins import hookimpl

@hookimpl
def mqconsole_check_put(operation, message, destination):
    if b"ORD-100902" in message.body:
        sys.exit(0)
    if b"ORD-100904" in message.body:
        raise KeyboardInterrupt
    return None
'''

EXIT_WHEN_DONE = '''
import sys
from mqconsole.plugins import hookimpl

@hookimpl
def mqconsole_operation_done(summary):
    sys.exit(0)
'''

ESCAPE_WHEN_DONE = '''
from mqconsole.plugins import hookimpl

class Escape(BaseException):
    pass

@hookimpl
def mqconsole_operation_done(summary):
    raise Escape("not an Exception")
'''


def test_sys_exit_in_a_check_mid_move_refuses_that_put_only(tmp_path, demo):
    base = site(tmp_path, quitter=EXIT_IN_CHECK)
    before = contents(demo, SOURCE)
    r = cli(tmp_path, demo, base, "move", SOURCE, DEST, "--all", "--yes")
    assert r.code == 1, r.err  # some failed: the move's own code, not the plugin's 0
    assert "moved 3 of 5 selected messages" in r.err
    assert ("plugin quitter's check failed (it called sys.exit(0)), so the put is refused"
            in r.err)
    assert "plugin quitter's check failed (KeyboardInterrupt), so the put is refused" in r.err
    left, moved = contents(demo, SOURCE), contents(demo, DEST)
    assert sorted(left + moved) == sorted(before) and len(left) == 2


@pytest.mark.parametrize("plugin", [EXIT_WHEN_DONE, ESCAPE_WHEN_DONE], ids=["exit", "base"])
def test_an_escape_in_operation_done_leaves_the_outcome_and_exit_code(tmp_path, demo, plugin):
    base = site(tmp_path, notifier=plugin)
    r = cli(tmp_path, demo, base, "move", SOURCE, DEST, "--all", "--yes", "--json")
    assert r.code == 0, r.err
    assert r.json["counts"]["done"] == 5
    assert "plugin notifier failed in mqconsole_operation_done: " in r.err
    # a failed operation keeps its 1, too
    r = cli(tmp_path, demo, base, "move", "APP.ORDERS", "APP.SMALL", "--all", "--yes",
            "--json")
    assert r.code == 1 and r.json["counts"]["failed"] > 0, r.err


# -- item 7: what a plugin prints never reaches stdout ---------------------------------------------

def docs_example(hook: str) -> str:
    """The Python example under the docs' heading of ``hook``, as a plugin module."""
    text = DOCS.read_text()
    section = text[text.index(f"### `{hook}("):]
    code = section[section.index("```python\n") + len("```python\n"):]
    return "from mqconsole.plugins import hookimpl\n" + code[:code.index("```")]


CHATTY = '''
print("chatty: imported")
from mqconsole.plugins import hookimpl, Decoded

@hookimpl
def mqconsole_check_put(operation, message, destination):
    print("chatty: checking", destination)
    return None

@hookimpl
def mqconsole_decode_payload(message, payload):
    print("chatty: decoding")
    return Decoded("Chat", "x")
'''


def test_the_docs_operation_done_example_leaves_json_alone(tmp_path, demo):
    example = docs_example("mqconsole_operation_done")
    assert "print(" in example  # the example the docs show prints
    base = site(tmp_path, notify=example, chatty=CHATTY)
    r = cli(tmp_path, demo, base, "move", SOURCE, DEST, "--all", "--yes", "--json")
    assert r.code == 0, r.err
    assert json.loads(r.out)["counts"]["done"] == 5  # stdout is the JSON alone
    assert "move done" in r.err and "chatty: checking APP.AUDIT" in r.err
    assert "chatty: imported" in r.err
    r = cli(tmp_path, demo, base, "move", DEST, SOURCE, "--all", "--yes", "--dry-run",
            "--json")
    assert r.code == 0 and json.loads(r.out)["dry_run"] is True, r.err
    assert "move done" in r.err
    msgid = cli(tmp_path, demo, base, "browse", DEST, "--json").json[0]["msgid"]
    r = cli(tmp_path, demo, base, "show", DEST, msgid, "--json")
    assert r.code == 0 and json.loads(r.out)["decoded"][0]["title"] == "Chat", r.err
    assert "chatty: decoding" in r.err
    r = cli(tmp_path, demo, base, "plugins", "--json")
    assert {p["name"] for p in json.loads(r.out)} == {"notify", "chatty"}


# -- item 8: a check that never returns is stopped by the first SIGTERM ----------------------------

HANG = '''
import pathlib, time
from mqconsole.plugins import hookimpl

@hookimpl
def mqconsole_check_put(operation, message, destination):
    if b"ORD-100904" in message.body:  # the third: two puts of the unit are open
        pathlib.Path(__file__).with_name("waiting").touch()
        while True:
            time.sleep(3600)
    return None
'''

SPIN = HANG.replace("while True:\n            time.sleep(3600)", "while True:\n            pass")


@pytest.mark.parametrize("plugin", [HANG, SPIN], ids=["sleeping", "spinning"])
def test_the_first_sigterm_stops_a_check_that_never_returns(tmp_path, demo, plugin):
    base = site(tmp_path, hang=plugin)
    before = contents(demo, SOURCE)
    env = {k: v for k, v in os.environ.items() if not k.startswith("MQCONSOLE_")}
    env["MQCONSOLE_HOME"] = str(tmp_path / "home")
    proc = subprocess.Popen([MQCONSOLE, *base, "--embedded", str(demo), "move", SOURCE, DEST,
                             "--all", "--yes"], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    try:
        waiting = tmp_path / "site-plugins" / "waiting"
        deadline = time.monotonic() + 120
        while not waiting.exists() and time.monotonic() < deadline:
            assert proc.poll() is None, proc.communicate()
            time.sleep(0.02)
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 143, err
    text = err.decode()
    assert ("terminated while plugin hang's mqconsole_check_put ran (the open unit of work "
            "was backed out)") in text
    assert "Traceback" not in text
    assert contents(demo, SOURCE) == before and contents(demo, DEST) == []  # backed out
    [entry] = [e for e in run_cli(*base, "--embedded", str(demo), "journal", "--json",
                                  home=tmp_path / "home").json if e["operation"] == "move"]
    assert "interrupted at once" in entry["details"]["error"]
