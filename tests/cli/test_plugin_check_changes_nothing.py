"""A put check that changes the message it is given changes nothing that is put (issue 28
item 2): real invocations of every command that checks before a put — move, copy,
move --strip-dlh, resubmit, load, edit --to, dlq-handler RETRY and FWD — with a plugin that
rewrites the body and every MD field it can, run against a twin store whose check changes
nothing. Afterwards both stores hold exactly the same messages, byte for byte (MD and
body), and both journals name the same MsgIds: the originals are on their destinations
unchanged and none is lost."""

from __future__ import annotations

import dataclasses
import os
import shutil
from pathlib import Path

import pytest

from mqconsole.backends.open import open_embedded
from mqconsole.mq.md import MQMD

from .conftest import run_cli

VANDAL = '''
from mqconsole.mq.md import MQMD
from mqconsole.plugins import hookimpl

@hookimpl
def mqconsole_check_put(operation, message, destination):
    md = message.md
    md.msg_id = b"V" * 24
    md.correl_id = b"C" * 24
    md.priority = 0
    md.persistence = 0
    md.format = "VANDAL  "
    md.put_appl_name = "vandal"
    md.put_date = "19990101"
    message.body = b"VANDAL " + bytes(message.body)
    message.md = MQMD(msg_id=b"W" * 24, format="MQSTR   ")
    message.token = b"T" * 16
    return None
'''

BYSTANDER = '''
from mqconsole.plugins import hookimpl

@hookimpl
def mqconsole_check_put(operation, message, destination):
    return None
'''

RULES = ("REASON(MQRC_BACKOUT_THRESHOLD_REACHED) DESTQ(APP.PAYMENTS) ACTION(RETRY)\n"
         "DESTQ(ZOS.INBOUND) ACTION(FWD) FWDQ(APP.AUDIT) HEADER(YES)\n"
         "REASON(MQRC_FORMAT_ERROR) ACTION(FWD) FWDQ(APP.AUDIT) HEADER(NO)\n")


MSGID = [f.name for f in dataclasses.fields(MQMD)].index("msg_id")
BACKOUT_COUNT = [f.name for f in dataclasses.fields(MQMD)].index("backout_count")


@dataclasses.dataclass
class Twin:
    """A copy of the demo store with its own home, config and plugin folder."""

    store: Path
    home: Path
    config: Path

    def run(self, *args: str):
        return run_cli("--config", str(self.config), "--embedded", str(self.store), *args,
                       home=self.home)


def make_twin(tmp_path: Path, demo: Path, name: str, plugin: str) -> Twin:
    root = tmp_path / name
    root.mkdir()
    store = root / "qm.sqlite"
    shutil.copy(demo, store)
    folder = root / "plugins"
    folder.mkdir(mode=0o700)
    (folder / "site.py").write_text(plugin)
    config = root / "config.yaml"
    config.write_text(f"plugins:\n  paths: [{folder}]\n"
                      f"journal:\n  path: {root / 'journal.jsonl'}\n")
    return Twin(store, root / "home", config)


def _md(md: MQMD) -> tuple:
    """The MD's fields; a message put with a new context (dlq-handler's PUTAUT(DEF): put
    application mqconsole) has the put's own date and time, which differ between the twins —
    left out (the vandal's put_date comes with its put_appl_name, which would still show)."""
    if md.put_appl_name.strip() == "mqconsole":
        md = dataclasses.replace(md, put_date="", put_time="")
    return dataclasses.astuple(md)


def queues(store: Path) -> dict[str, list[tuple]]:
    """Every message of every queue: (the MD's fields, the body), in browse order."""
    qm = open_embedded(store)
    try:
        out = {}
        for attrs in qm.list_queues("*"):
            if attrs.type != "local":
                continue
            with qm.browse(attrs.name) as cursor:
                out[attrs.name] = [(_md(m.md), bytes(m.body))
                                   for m in iter(cursor.next, None)]
        return out
    finally:
        qm.close()


def journaled(twin: Twin) -> list[tuple[str, list[str]]]:
    """(operation, MsgIds) of each journal entry that names messages."""
    r = twin.run("journal", "--json", "--ids")
    assert r.code == 0, r.err
    return [(e["operation"], e["msgids"]) for e in r.json if e.get("msgids")]


@pytest.fixture
def twins(tmp_path, demo):
    return make_twin(tmp_path, demo, "vandal", VANDAL), \
        make_twin(tmp_path, demo, "bystander", BYSTANDER)


def _msgid(twin: Twin, queue: str, n: int = 0) -> str:
    return twin.run("browse", queue, "--json").json[n]["msgid"]


def _prepare_load(twin: Twin) -> tuple[str, ...]:
    dump = twin.store.parent / "orders.dmp"
    assert twin.run("save", "APP.ORDERS.BOQ", str(dump)).code == 0
    assert twin.run("queue", "define", "T.LOAD").code == 0
    return ("load", str(dump), "T.LOAD", "--yes")


def _prepare_edit(twin: Twin) -> tuple[str, ...]:
    return ("edit", "APP.ORDERS.BOQ", _msgid(twin, "APP.ORDERS.BOQ", 1), "--set",
            "Priority=2", "--to", "APP.AUDIT", "--yes")


def _prepare_rules(twin: Twin) -> tuple[str, ...]:
    rules = twin.store.parent / "rules.txt"
    rules.write_text(RULES)
    return ("dlq-handler", "--rules", str(rules), "--once", "--yes")


COMMANDS = {
    "move": lambda t: ("move", "APP.ORDERS.BOQ", "APP.AUDIT", "--all", "--yes"),
    "copy": lambda t: ("copy", "APP.SHARED.BOQ", "APP.AUDIT", "--all", "--yes"),
    "move --strip-dlh": lambda t: ("move", "SYSTEM.DEAD.LETTER.QUEUE", "APP.AUDIT",
                                   "--where", "reason = MQRC_Q_FULL", "--strip-dlh",
                                   "--yes"),
    "resubmit": lambda t: ("resubmit", "SYSTEM.DEAD.LETTER.QUEUE", "--where",
                           "dest = APP.PAYMENTS", "--yes"),
    "resubmit from a backout queue": lambda t: ("resubmit", "APP.ORDERS.BOQ", "--all",
                                                "--yes"),
    "load": _prepare_load,
    "edit --to": _prepare_edit,
    "dlq-handler RETRY and FWD": _prepare_rules,
}


@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_check_that_changes_its_message_changes_nothing_put(twins, command):
    vandal = twins[0]
    before = queues(vandal.store)
    results = []
    for twin in twins:
        args = COMMANDS[command](twin)
        results.append(twin.run(*args))
    (hit, r_hit), (ref, r_ref) = zip(twins, results, strict=True)
    assert (r_hit.code, r_hit.out) == (r_ref.code, r_ref.out), (r_hit.err, r_ref.err)
    after, planned = queues(hit.store), queues(ref.store)
    assert after != before, "the command changed nothing: the test proves nothing"
    assert after == planned  # every queue, every message, MD and body byte for byte
    everything = [m for q in after.values() for m in q]
    assert not any(b"VANDAL" in body or md[MSGID] in (b"V" * 24, b"W" * 24)
                   for md, body in everything)
    assert journaled(hit) == journaled(ref) and journaled(hit)  # the MsgIds really put


def test_a_moved_message_arrives_as_it_left(twins):
    """The plain case in full: the messages on the destination are the source's, byte for
    byte (MD and body), and the source is empty: none lost, none changed."""
    vandal, _ = twins
    source = queues(vandal.store)["APP.ORDERS.BOQ"]
    r = vandal.run("move", "APP.ORDERS.BOQ", "APP.AUDIT", "--all", "--yes", "--json")
    assert r.code == 0, r.err
    assert r.json["counts"]["done"] == len(source) == 5
    after = queues(vandal.store)
    assert after["APP.ORDERS.BOQ"] == []
    # BackoutCount is an output field of MQGET, ignored by MQPUT: every put starts it at 0
    # (https://www.ibm.com/docs/en/ibm-mq/9.4?topic=mqmd-backoutcount-mqlong)
    put = [((*md[:BACKOUT_COUNT], 0, *md[BACKOUT_COUNT + 1:]), body) for md, body in source]
    assert after["APP.AUDIT"] == put
    [(operation, msgids)] = journaled(vandal)
    assert operation == "move"
    assert msgids == [md[MSGID].hex().upper() for md, _ in source]


def test_the_plugin_folder_is_private(twins):
    """(The test's own premise: the folder check would refuse a shared folder.)"""
    for twin in twins:
        folder = twin.config.parent / "plugins"
        assert os.stat(folder).st_mode & 0o077 == 0
        r = twin.run("plugins", "--json")
        assert [p["status"] for p in r.json if p["name"] == "site"] == ["loaded"]
