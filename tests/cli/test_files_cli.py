"""``mqconsole save`` and ``mqconsole load``, run for real on a copy of the demo."""

from __future__ import annotations

import pytest

from mqconsole.mq.md import MQMD
from mqconsole.mq.message import Message
from mqconsole.ops.dmpfile import check_dmp_file, load_file
from tests.ops.test_dmpfile import REAL

from .conftest import run_cli

DLQ = "SYSTEM.DEAD.LETTER.QUEUE"


def rows(cli, queue: str) -> list[dict]:
    r = cli("browse", queue, "--json", "--limit", "100000")
    assert r.code == 0, r.err
    return r.json


def test_save_then_load_round_trips(cli, tmp_path):
    path = tmp_path / "dlq.dmp"
    before = rows(cli, DLQ)
    r = cli("save", DLQ, str(path), "--json")  # no selection: everything; no --yes needed
    assert r.code == 0, r.err
    assert (r.json["selected"], r.json["done"]) == (len(before), len(before))
    assert r.json["backup"] == str(path) and check_dmp_file(path) == []
    assert rows(cli, DLQ) == before  # saving only browses
    assert cli("queue", "define", "T.COPY").code == 0
    r = cli("load", str(path), "T.COPY", "--yes", "--json")
    assert r.code == 0, r.err
    assert (r.json["operation"], r.json["done"], r.json["destination"]) == \
        ("load", len(before), "T.COPY")
    after = rows(cli, "T.COPY")
    strip = ("position", "backout_count", "token")  # (a token names a message on its queue)
    assert [{k: v for k, v in x.items() if k not in strip} for x in after] == \
        [{k: v for k, v in x.items() if k not in strip} for x in before]
    assert {x["backout_count"] for x in after} == {0}  # a put starts it at 0
    r = cli("save", "T.COPY", str(tmp_path / "again.dmp"))
    assert r.code == 0, r.err
    assert [m.body for m in load_file(tmp_path / "again.dmp")] == \
        [m.body for m in load_file(path)]


def test_save_refuses_existing_file_unless_forced_and_remove_needs_a_selection(cli, tmp_path):
    path = tmp_path / "x.dmp"
    path.write_text("precious")
    r = cli("save", "APP.ORDERS", str(path))
    assert r.code == 2 and "exists" in r.err and path.read_text() == "precious"
    r = cli("save", "APP.ORDERS", str(path), "--force", "--where", "text ~ 'ORD-10000[0-4]'")
    assert r.code == 0, r.err
    assert 0 < len(load_file(path)) < 40
    r = cli("save", "APP.ORDERS", str(tmp_path / "y.dmp"), "--remove", "--yes")
    assert r.code == 2 and "--all" in r.err and not (tmp_path / "y.dmp").exists()
    assert len(rows(cli, "APP.ORDERS")) == 40


def test_save_remove_writes_the_file_then_removes(cli, tmp_path):
    path = tmp_path / "boq.dmp"
    ids = [x["msgid"] for x in rows(cli, "APP.SHARED.BOQ")]
    r = cli("save", "APP.SHARED.BOQ", str(path), "--all", "--remove", "--yes", "--json")
    assert r.code == 0, r.err
    assert r.json["done"] == len(ids) and r.json["backup"] == str(path)
    assert rows(cli, "APP.SHARED.BOQ") == []
    assert [m.msg_id_hex for m in load_file(path)] == ids


def test_real_dmpmqmsg_file_loads(cli):
    expected = load_file(REAL)
    r = cli("load", str(REAL), "APP.AUDIT", "--yes")
    assert r.code == 0, r.err
    got = rows(cli, "APP.AUDIT")
    assert [x["msgid"] for x in got] == [m.msg_id_hex for m in expected]
    assert [x["length"] for x in got] == [len(m.body) for m in expected]


def test_malformed_file_is_refused_naming_the_line_before_any_put(cli, tmp_path):
    text = REAL.read_text(encoding="latin-1")
    lines = text.split("\n")
    lines += lines[4:]  # a second message, then break it
    n = len(lines) - 3
    lines[n - 1] = "Q what is this"
    bad = tmp_path / "bad.txt"
    bad.write_text("\n".join(lines), encoding="latin-1")
    r = cli("load", str(bad), "APP.AUDIT", "--yes")
    assert r.code == 2 and f"line {n}" in r.err and "Traceback" not in r.err
    assert rows(cli, "APP.AUDIT") == []


def test_load_refused_puts_exit_1(cli, tmp_path):
    path = tmp_path / "o.dmp"
    assert cli("save", "APP.ORDERS", str(path), "--limit", "12").code == 0
    r = cli("load", str(path), "APP.LEGACY", "--yes", "--json")  # put-inhibited
    assert r.code == 1
    assert len(r.json["failed"]) == 10 and r.json["done"] == 0
    # the two after the stop were never put: a count of their own (issue 24 item 2)
    assert r.json["not_tried"] == 2 and r.json["skipped"] == 0
    assert r.json["stopped_early"] == ("APP.LEGACY refused 10 puts in a row "
                                       "(MQRC_PUT_INHIBITED (2051))")
    text = cli("load", str(path), "APP.LEGACY", "--yes")
    assert ("not tried: 2 (APP.LEGACY refused 10 puts in a row (MQRC_PUT_INHIBITED (2051)); "
            "2 messages of the file were not put)") in text.err, text.err
    assert {f["reason_name"] for f in r.json["failed"]} == {"MQRC_PUT_INHIBITED"}
    r = cli("load", str(path), "NO.SUCH.QUEUE", "--yes")
    assert r.code == 2 and "2085" in r.err


def test_save_reads_on_a_read_only_profile_and_save_remove_is_refused(tmp_path, demo):
    from .conftest import run_cli

    cfg = tmp_path / "c.yaml"
    cfg.write_text(f"profiles:\n  - name: prod\n    read_only: true\n    backend:\n"
                   f"      type: embedded\n      path: {demo}\n")
    path = tmp_path / "ro.dmp"
    r = run_cli("--config", str(cfg), "save", "APP.ORDERS", str(path), home=tmp_path)
    assert r.code == 0, r.err
    assert len(load_file(path)) == 40 and f"file: {path}" in r.err
    r = run_cli("--config", str(cfg), "save", "APP.ORDERS", str(tmp_path / "x.dmp"), "--all",
                "--remove", "--yes", home=tmp_path)
    assert r.code == 4 and "read-only" in r.err and not (tmp_path / "x.dmp").exists()


def test_save_remove_and_load_say_what_they_did(cli, tmp_path):
    path = tmp_path / "r.dmp"
    r = cli("save", "APP.ORDERS", str(path), "--limit", "3", "--all", "--remove", "--yes")
    assert r.code == 0, r.err
    assert "saved and removed 3 of 3 selected messages from APP.ORDERS" in r.err
    assert f"file: {path}" in r.err
    r = cli("load", str(path), "APP.AUDIT", "--yes")
    assert r.code == 0 and "loaded 3 of 3" in r.err and "APP.AUDIT  3" in r.err
    r = cli("load", str(tmp_path / "none.dmp"), "APP.AUDIT", "--yes")
    assert r.code == 2 and r.err == f"mqconsole: there is no file {tmp_path / 'none.dmp'}\n"


def test_a_malformed_file_is_bad_input_before_the_question(cli, tmp_path):
    """Without --yes and without a terminal a good load is refused for want of --yes (4);
    a malformed file is said first (2), naming the line."""
    bad = tmp_path / "bad.txt"
    bad.write_text(REAL.read_text(encoding="latin-1").replace("A MST 8", "Q what", 1),
                   encoding="latin-1")
    r = cli("load", str(bad), "APP.AUDIT")
    assert r.code == 2 and "line" in r.err and "--yes" not in r.err, r.err
    r = cli("load", str(REAL), "APP.AUDIT")
    assert r.code == 4 and "--yes" in r.err
    assert rows(cli, "APP.AUDIT") == []


def test_save_by_token_saves_that_message_only(cli, tmp_path):
    row = rows(cli, "APP.ORDERS")[1]
    token = row.get("token")
    assert token, row  # the embedded queue manager gives MsgTokens
    path = tmp_path / "one.dmp"
    r = cli("save", "APP.ORDERS", str(path), "--token", token, "--remove", "--yes")
    assert r.code == 0, r.err
    assert [m.msg_id_hex for m in load_file(path)] == [row["msgid"]]
    assert len(rows(cli, "APP.ORDERS")) == 39


# -- resuming a load (issue 22 item 9) ----------------------------------------------------


def test_the_command_an_exit_5_load_names_resumes_it_without_duplicates(tmp_path):
    """A load whose second commit MQ could not confirm (2549; it did commit, as MQCMIT may:
    IBM MQ, MQCMIT reason codes): the warning names a command; run exactly as named
    (with --yes: no terminal here), it loads the rest and every message is there once."""
    import shlex
    from collections import Counter

    from mqconsole.backends.embedded import create_queue_manager
    from mqconsole.backends.open import open_embedded
    from mqconsole.mq.queue import QueueAttrs
    from mqconsole.ops.exit_codes import ExitCode
    from mqconsole.ops.operation import Load, Operation, Save
    from mqconsole.ops.selection import Selection
    from tests.support.faulty import Faults, FaultyQueueManager

    db, home, dump = tmp_path / "qm.sqlite", tmp_path / "home", tmp_path / "in.dmp"
    qm = create_queue_manager(db, name="QM1")
    for name in ("IN", "OUT"):
        qm.define_queue(QueueAttrs(name=name, max_depth=10_000))
    for i in range(25):
        qm.put("IN", Message(MQMD(format="MQSTR", msg_id=b"R%023d" % i), b"body %d" % i),
               syncpoint=False)
    Operation(Save("IN", str(dump), Selection(all=True)), journal=None).run(qm)
    first = Operation(Load(str(dump), "OUT", batch=10), journal=None, profile="site").run(
        FaultyQueueManager(qm, Faults(commit_after={2: 2549})))
    qm.close()
    assert first.exit_code == ExitCode.UNKNOWN_OUTCOME
    [said] = [w for w in first.result.warnings if "unknown outcome" in w]
    command = said.split("; ")[-1].removesuffix(" loads the rest without duplicates")
    assert command == (f"mqconsole --profile site load {dump} OUT --range 11-25 "
                       "--skip-present")
    home.mkdir()
    (home / "config.yaml").write_text(
        f"profiles:\n  - name: site\n    backend:\n      type: embedded\n      path: {db}\n")
    again = run_cli(*shlex.split(command)[1:], "--yes", home=home)
    assert again.code == 0, again.err
    assert "already on OUT: 10 (same MsgId and body: not put again)" in again.err

    def contents(queue):
        q = open_embedded(db)
        try:
            with q.browse(queue) as cursor:
                return Counter((bytes(m.md.msg_id), bytes(m.body))
                               for m in iter(cursor.next, None))
        finally:
            q.close()

    assert contents("OUT") == contents("IN")


@pytest.mark.parametrize(("span", "said"), [
    ("x", "mqconsole: --range 'x' is not N-M"),
    ("9-3", "the first number cannot be greater than the last"),
    ("1-99", "does not hold: it holds"),
])
def test_a_bad_range_is_exit_2_before_anything_is_put(cli, tmp_path, span, said):
    dump = tmp_path / "q.dmp"
    assert cli("save", "APP.SHIPPING", str(dump)).code == 0
    before = rows(cli, "APP.AUDIT")
    r = cli("load", str(dump), "APP.AUDIT", "--range", span, "--yes")
    assert r.code == 2, r.err
    assert said in r.err and "Traceback" not in r.err
    assert rows(cli, "APP.AUDIT") == before
