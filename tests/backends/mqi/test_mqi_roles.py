"""Issue 22: a viewer, an operator and a dead-letter handler set up exactly as docs/real-mq.md's
role table says run every command of their role through the CLI over the stand-in (which
checks authorities as MQ does: +dsp on the queue manager for every PCF command, …), and each
grant of the table is needed: taken away, the command the table names fails (exit 4, or 1
when each message's put is refused) with a sentence naming the authority. The table is read
from the document, so a row the stand-in disagrees with fails this test."""

from __future__ import annotations

import json
import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest
import standin
from fake_ibmmqc import Engine, QMgrDef

from mqconsole.backends.base import Context
from mqconsole.backends.embedded import create_queue_manager
from mqconsole.backends.embedded.connection import open_embedded
from mqconsole.mq.chain import add_dead_letter_header
from mqconsole.mq.md import MQMD
from mqconsole.mq.message import Message
from mqconsole.mq.queue import QueueAttrs

DOC = Path(__file__).resolve().parents[3] / "docs" / "real-mq.md"
ADMIN, PASSWORD, QMGR = "mqadmin", "s3cret-pw", "QM1"
USERS = {"viewer": "viewer", "operator": "ops", "handler": "dlqh", "looker": "looker"}
MSG_ID = b"ROLES".ljust(24, b"\0")
DLQ = "SYSTEM.DEAD.LETTER.QUEUE"


@dataclass(frozen=True)
class Grant:
    role: str
    object: str  # "" for the queue manager object, else a queue profile
    authorities: tuple[str, ...]
    needed_by: str


def doc_grants() -> list[Grant]:
    """The rows of the role table in docs/real-mq.md."""
    out: list[Grant] = []
    lines = DOC.read_text(encoding="utf-8").splitlines()
    start = lines.index("| Role | Object | Authorities | Needed by |")
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        role, obj, auths, needed = (c.strip() for c in line.strip("|").split("|"))
        out.append(Grant(role, "" if obj == "queue manager" else obj.strip("`"),
                         tuple(a.lstrip("+") for a in auths.strip("`").split()),
                         needed.strip("`")))
    return out


def commands(role: str, tmp: Path) -> dict[str, list[str]]:
    """Every command of a role, in the order they run (docs/real-mq.md says which)."""
    looking = {
        "browse": ["browse", "APP.IN"],
        "show": ["show", "APP.IN", MSG_ID.hex()],
        "summary": ["summary", "APP.IN"],
        "save": ["save", "APP.IN", str(tmp / f"{role}.dmp")],
        "queues": ["queues"],
        "queue show": ["queue", "show", "APP.IN"],
        "move --dry-run": ["move", "APP.IN", "APP.OUT", "--all", "--dry-run"],
        "delete --dry-run": ["delete", "APP.IN", "--all", "--dry-run"],
    }
    if role == "viewer":
        return looking
    if role == "looker":  # no PCF at all: the look-ups by MQINQ (issue 22 item 2)
        return {name: looking[name] for name in ("browse", "show", "summary", "save",
                                                 "queues")}
    if role == "operator":
        return {**looking,
                "put": ["put", "APP.IN", "--text", "from the operator"],
                "load": ["load", str(tmp / "seed.dmp"), "APP.IN", "--yes"],
                "move": ["move", "APP.IN", "APP.OUT", "--all", "--yes"],
                "copy": ["copy", "APP.OUT", "APP.IN", "--all", "--yes"],
                "resubmit": ["resubmit", "APP.OUT", "--all", "--to", "APP.IN", "--yes"],
                "delete": ["delete", "APP.IN", "--all", "--yes"],
                "queue set": ["queue", "set", "APP.IN", "--max-depth", "4000", "--yes"]}
    rules = tmp / "rules.txt"  # written by Site
    return {"dlq-handler": ["dlq-handler", "--rules", str(rules), "--input", DLQ, "--once",
                            "--yes", "--json", "--attempts-file", str(tmp / "attempts.sqlite")]}


class Site:
    """A queue manager behind the stand-in, as an admin set it up, and a CLI to run on it."""

    def __init__(self, tmp: Path, engine: Engine) -> None:
        self.tmp, self.engine = tmp, engine
        self.runs = 0
        path = tmp / "qm1.qm"
        create_queue_manager(path, QMGR).close()
        self.qdef = engine.register(QMgrDef.for_file(QMGR, path, ADMIN, password=PASSWORD,
                                                     check_connect=True))
        (tmp / "rules.txt").write_text("ACTION(RETRY) RETRY(99)\n")
        self.admin = open_embedded(path, principal=ADMIN)
        for name in ("APP.IN", "APP.OUT"):
            self.admin.define_queue(QueueAttrs(name=name))
        self.admin.put("APP.IN", Message(MQMD(format="MQSTR   ", msg_id=MSG_ID), b"hello"),
                       context=Context.SET_ALL, syncpoint=False)
        md, data = add_dead_letter_header(MQMD(format="MQSTR   "), b"retry me", reason=2053,
                                          dest_q_name="APP.IN", dest_qmgr_name=QMGR)
        self.admin.put(DLQ, Message(md, data), context=Context.SET_ALL, syncpoint=False)
        self.admin.set_authority(ADMIN, "*", "all")
        self.admin.set_authority(ADMIN, "", "all", object_type="qmgr")
        self.config = tmp / "config.yaml"
        profiles = "".join(f"""  - name: {name}
    backend:
      type: mq
      queue_manager: {QMGR}
      channel: DEV.APP.SVRCONN
      connection_name: mqhost(1414)
      user: {user}
      password_env: SITE_PASSWORD
      queues: {"[APP.IN, APP.OUT]" if name == "looker" else '"APP.*"'}
""" for name, user in [("admin", ADMIN), *USERS.items()])
        self.config.write_text("profiles:\n" + profiles)
        base = {k: v for k, v in os.environ.items() if not k.startswith("MQCONSOLE_")}
        base.update(MQCONSOLE_HOME=str(tmp / "home"), SITE_PASSWORD=PASSWORD)
        self.env = standin.child_env([standin.qmgr_spec(self.qdef, str(path))], base)
        assert self.run("admin", "save", "APP.IN", str(tmp / "seed.dmp")).returncode == 0

    def run(self, profile: str, *args: str) -> subprocess.CompletedProcess[str]:
        if "--attempts-file" in args:  # each run its own: no RETRYINT wait from the last
            self.runs += 1
            i = args.index("--attempts-file") + 1
            args = (*args[:i], str(self.tmp / f"attempts{self.runs}.sqlite"), *args[i + 1:])
        return standin.run_cli(["--config", str(self.config), "--profile", profile, *args],
                               self.env)

    def grant(self, role: str, rows: list[Grant], without: tuple[Grant, str] | None = None
              ) -> None:
        """Exactly the role's rows (less one authority of one row)."""
        user = USERS[role]
        records: dict[str, set[str]] = {}
        for g in rows:
            auths = set(g.authorities)
            if without is not None and g == without[0]:
                auths.discard(without[1])
            records.setdefault(g.object, set()).update(auths)
        self.admin.set_authority(user, "", records.pop("", set()), object_type="qmgr")
        for profile in ("SYSTEM.ADMIN.COMMAND.QUEUE", "SYSTEM.DEFAULT.MODEL.QUEUE", DLQ,
                        "APP.**"):
            self.admin.set_authority(user, profile, records.pop(profile, set()))
        assert not records, f"objects the test does not know: {records}"

    def close(self) -> None:
        self.admin.close()
        self.engine.unregister(QMGR)


@pytest.fixture
def site(tmp_path: Path, engine: Engine, ibmmq_lib) -> Site:
    s = Site(tmp_path, engine)
    yield s
    s.close()


def test_the_table_covers_each_role() -> None:
    grants = doc_grants()
    assert {g.role for g in grants} == set(USERS)
    for g in grants:
        assert g.needed_by in commands(g.role, Path("/nonexistent")), g


def test_the_setmqaut_commands_say_what_the_table_says() -> None:
    said: dict[tuple[str, str], set[str]] = {}
    for line in DOC.read_text(encoding="utf-8").splitlines():
        m = re.fullmatch(r"setmqaut -m QM1 -t (qmgr|q)(?: -n '?([^ ']+)'?)? -p (\w+) (.+)", line)
        if m:
            role = {u: r for r, u in USERS.items()}[m[3]]
            said.setdefault((role, m[2] or ""), set()).update(
                a.lstrip("+") for a in m[4].split())
    table: dict[tuple[str, str], set[str]] = {}
    for g in doc_grants():
        table.setdefault((g.role, g.object), set()).update(g.authorities)
    assert said == table


@pytest.mark.slow
@pytest.mark.parametrize("role", sorted(USERS))
def test_each_role_runs_its_commands_with_exactly_the_documented_grants(
        site: Site, role: str) -> None:
    rows = [g for g in doc_grants() if g.role == role]
    cmds = commands(role, site.tmp)
    # each grant is needed: without it, the command the table names is refused, saying so
    for g in rows:
        for auth in g.authorities:
            site.grant(role, rows, without=(g, auth))
            r = site.run(role, *cmds[g.needed_by])
            said = r.stdout + r.stderr
            # exit 4 (refused), or 1 when each message's put was refused (they stayed)
            assert r.returncode in (1, 4) and re.search(rf"\+{auth}\b", said), (
                f"{role} without +{auth} on {g.object or 'the queue manager'}: "
                f"{g.needed_by} gave {r.returncode}: {said}")
    # with every grant, every command of the role works
    site.grant(role, rows)
    for name, args in cmds.items():
        r = site.run(role, *args)
        if role == "viewer" and name == "move --dry-run":
            # it plans, and the plan says what the move would meet: the viewer may not put
            # to APP.OUT (2035 at MQOPEN for output), so the dry run exits 1 (issue 24 item 1)
            assert r.returncode == 1 and "1 on APP.OUT: MQRC_NOT_AUTHORIZED (2035)" in \
                r.stderr, (role, name, r.stdout, r.stderr)
            continue
        assert r.returncode == 0, (role, name, r.stdout, r.stderr)
        if role == "looker":  # every command said once why it looked queues up by MQINQ
            assert "the queue manager refused PCF" in r.stderr or name != "queues", r.stderr
    if role == "looker":
        listed = site.run(role, "queues", "--json")
        assert [q["name"] for q in json.loads(listed.stdout)] == ["APP.IN", "APP.OUT"]
    if role == "handler":
        assert site.admin.inquire_queue(DLQ).depth == 0
        assert site.admin.inquire_queue("APP.IN").depth == 2
