"""Say what happened (issue 17 item 12): a FIFO is told from a missing file; a read-only
profile refusing a copy says "copying"; a save's disk or permission error names the file
the operator gave, not a temporary name; a killed save's temporary file is gone on the next
run; raw control characters typed by the operator come back escaped."""

from __future__ import annotations

import errno
import os
import subprocess
import sys

import pytest

from mqconsole.ops.inputs import not_a_file
from mqconsole.ops.savefile import publish as savefile  # its os.fsync is patched
from mqconsole.ops.savefile import write_messages_file
from tests.support.faulty import make_message

from .conftest import run_cli


def test_not_a_file_says_what_it_is(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    assert not_a_file(fifo) == f"{fifo} is a FIFO (a named pipe), not a file"
    assert not_a_file(tmp_path) == f"{tmp_path} is a folder, not a file"
    assert not_a_file("/dev/null") == "/dev/null is a device, not a file"
    assert not_a_file(tmp_path / "none") == f"there is no file {tmp_path / 'none'}"
    (tmp_path / "f").write_text("x")
    assert not_a_file(tmp_path / "f") is None


def test_load_of_a_fifo_is_told_from_a_missing_file(cli, tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    r = cli("load", str(fifo), "APP.AUDIT", "--yes")
    assert r.code == 2 and r.err == f"mqconsole: {fifo} is a FIFO (a named pipe), not a file\n"
    r = cli("load", str(tmp_path / "none.dmp"), "APP.AUDIT", "--yes")
    assert r.code == 2 and "there is no file" in r.err


def test_a_read_only_profile_refusing_a_copy_says_copying(tmp_path, demo):
    config = tmp_path / "config.yaml"
    config.write_text(f"profiles:\n  - name: ro\n    read_only: true\n    backend: "
                      f"{{type: embedded, path: {demo}}}\n")
    r = run_cli("--embedded", str(demo), "--config", str(config), "copy", "APP.INVOICES",
                "APP.AUDIT", "--all", "--dest-profile", "ro", "--yes", home=tmp_path / "h")
    assert r.code == 4 and "profile ro is read-only: copying messages to it refused" in r.err


def test_a_full_disk_names_the_file_asked_for(tmp_path, monkeypatch):
    target = tmp_path / "out.dmp"

    def full(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(savefile.os, "fsync", full)
    with pytest.raises(OSError) as caught:
        write_messages_file(target, [make_message(1)], qmgr="QM1", queue="Q")
    assert caught.value.filename == str(target) and caught.value.errno == errno.ENOSPC
    assert os.listdir(tmp_path) == []  # no temporary file left


def test_a_killed_saves_temporary_file_is_removed_on_the_next_run(tmp_path):
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True).stdout.strip()
    stale = tmp_path / f".out.dmp.{dead}.partial"
    stale.write_text("half a file")
    backup = tmp_path / f".QM1-Q-20261125T180000.000Z.dmp.{dead}.partial"  # a delete's
    backup.write_text("half a backup")
    alive = tmp_path / f".other.dmp.{os.getpid()}.partial"  # a save still writing: kept
    alive.write_text("x")
    write_messages_file(tmp_path / "out.dmp", [make_message(1)], qmgr="QM1", queue="Q")
    assert not stale.exists() and not backup.exists() and alive.exists()
    assert (tmp_path / "out.dmp").exists()


def test_control_characters_typed_by_the_operator_are_escaped(cli):
    r = cli("move", "APP.\x1b[2JDLQ", "APP.AUDIT", "--all", "--yes")
    assert r.code == 2 and "\x1b" not in r.err and "\\x1b" in r.err


def test_save_to_an_empty_name_says_so(cli):
    for name in ("", "  "):
        r = cli("save", "APP.INVOICES", name, "--all")
        assert r.code == 2 and r.err == "mqconsole: the file name is empty: name the file " \
            "to write\n"


def test_one_message_is_one_message(cli):
    """'1 message', never '1 messages' or 'message(s)' (issue 15 item 14)."""
    assert cli("queue", "define", "ONE.SRC").code == 0
    assert cli("queue", "define", "ONE.DST").code == 0
    r = cli("put", "ONE.SRC", "--text", "x")
    assert r.code == 0 and "put 1 message on ONE.SRC" in r.err
    r = cli("move", "ONE.SRC", "ONE.DST", "--all", "--yes")
    assert r.code == 0 and "moved 1 of 1 selected message from ONE.SRC" in r.err
    r = cli("summary", "ONE.DST")
    assert r.out.startswith("Queue ONE.DST: 1 message,")
    for text in (r.out, r.err):
        assert "1 messages" not in text and "message(s)" not in text


def test_show_hex_all_includes_the_headers(cli):
    """show --hex-all dumps the whole body, the dead-letter header first, and says where the
    payload starts (the console's Hex tab with h); --hex the payload only (issue 15 item 14)."""
    dlq = "SYSTEM.DEAD.LETTER.QUEUE"
    msgid = cli("browse", dlq, "--limit", "1", "--json").json[0]["msgid"]
    doc = cli("show", dlq, msgid, "--json").json
    offset, length = doc["payload"]["offset"], doc["payload"]["length"]
    whole = cli("show", dlq, msgid, "--hex-all")
    assert whole.code == 0, whole.err
    dump = whole.out.split(f"payload starts at byte {offset:,} (0x{offset:x}))\n")[1]
    assert dump.startswith("00000000  44 4c 48 20")  # "DLH "
    assert len(dump.strip().splitlines()) == -(-(offset + length) // 16)
    payload = cli("show", dlq, msgid, "--hex").out.split("(the payload in hex)\n")[1]
    assert not payload.startswith("00000000  44 4c 48 20")
    assert len(payload.strip().splitlines()) == -(-length // 16)


def test_show_says_mqmd_names_before_numbers(cli):
    """show's MQMD: 'MsgType  MQMT_DATAGRAM (8)', as the console's MQMD tab (issue 15
    item 14); --json keeps the numbers and the names apart."""
    msgid = cli("browse", "APP.ORDERS", "--limit", "1", "--json").json[0]["msgid"]
    text = cli("show", "APP.ORDERS", msgid).out
    fields = {line.split()[0]: line.split(None, 1)[1] for line in
              text.split("\n\n")[0].splitlines()[1:] if len(line.split()) > 1}
    assert fields["MsgType"] == "MQMT_DATAGRAM (8)"
    assert fields["Persistence"].startswith("MQPER_") and fields["Persistence"].endswith(")")
    assert "MsgTypeName" not in fields and "PersistenceName" not in fields
    md = cli("show", "APP.ORDERS", msgid, "--json").json["md"]
    assert md["MsgType"] == 8 and md["MsgTypeName"] == "MQMT_DATAGRAM"
    # the dead-letter header's reason too, as the console's Headers tab says it
    dlq = "SYSTEM.DEAD.LETTER.QUEUE"
    dead = cli("browse", dlq, "--where", "reason = 2087", "--limit", "1", "--json").json[0]
    text = cli("show", dlq, dead["msgid"]).out
    assert "  reason              MQRC_UNKNOWN_REMOTE_Q_MGR (2087)" in text
    assert "reason_name" not in text


def test_resubmit_says_each_goes_back_to_its_destination(cli):
    """The question of a resubmit says where the messages go, as the console's does (issue
    15 item 14): each back to its destination, not 'where they came from'."""
    r = cli("resubmit", "SYSTEM.DEAD.LETTER.QUEUE", "--all")
    assert r.code == 4
    assert ("resubmitting all messages from SYSTEM.DEAD.LETTER.QUEUE, each back to its "
            "destination") in r.err


def test_show_saves_the_payload(cli, tmp_path):
    """show --save-payload FILE writes the payload's bytes as they are (the console's W),
    never over an existing file (exit 2, one sentence)."""
    dlq = "SYSTEM.DEAD.LETTER.QUEUE"
    msgid = cli("browse", dlq, "--limit", "1", "--json").json[0]["msgid"]
    doc = cli("show", dlq, msgid, "--json").json
    target = tmp_path / "payload.bin"
    r = cli("show", dlq, msgid, "--save-payload", str(target))
    assert r.code == 0, r.err
    assert target.read_bytes() == bytes.fromhex(doc["payload"]["hex"])
    assert f"wrote the payload ({doc['payload']['length']:,} bytes) to {target}" in r.err
    again = cli("show", dlq, msgid, "--save-payload", str(target))
    assert again.code == 2 and "exists (choose another name" in again.err
    assert len(again.err.strip().splitlines()) == 1
