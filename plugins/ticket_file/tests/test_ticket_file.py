"""ticket_file: one new 0600 JSON file per run, payloads encoded, never overwriting."""

from __future__ import annotations

import base64
import json
import stat
import types
from pathlib import Path

import pytest

from mqconsole.mq.chain import add_dead_letter_header
from mqconsole.mq.md import MQMD
from mqconsole.mq.message import Message
from mqconsole.plugins import ActionContext
from mqconsole.plugins.testing import import_plugin

ticket_file = import_plugin(Path(__file__).resolve().parents[1] / "ticket_file.py")

RAW = b"\x1b[31mred\x07 \x00\xff <b>bold</b>"


def messages() -> list[Message]:
    md, body = add_dead_letter_header(MQMD(format="MQSTR", msg_id=b"A" * 24), RAW,
                                      reason=2053, dest_q_name="APP.ORDERS",
                                      put_date="20261124", put_time="10300000")
    return [Message(md=md, body=body), Message(md=MQMD(msg_id=b"B" * 24), body=b"plain")]


@pytest.fixture
def run_ticket(tmp_path: Path, register_plugins):
    """Run the plugin's registered action with these settings; (summary, context)."""
    def run(selected=None, cancel=False, **settings):
        host = register_plugins(ticket_file, settings={"ticket_file": settings})
        [registered] = host.actions()
        assert (registered.plugin, registered.id) == ("ticket_file", "ticket")
        context = ActionContext(connection=types.SimpleNamespace(name="QM1"), profile="prod",
                                queue="DEV/DLQ", settings=host.settings_of("ticket_file"))
        if cancel:
            context.cancel.set()
        return registered.action.run(context, messages() if selected is None else selected)
    return run


def test_a_ticket_is_a_new_private_json_file_with_encoded_payloads(run_ticket, tmp_path
                                                                   ) -> None:
    summary = run_ticket(folder=str(tmp_path))
    [file] = summary.files
    path = Path(file)
    assert (summary.done, summary.failed) == (2, 0)
    assert summary.sentence == f"ticket {path} written for 2 messages of DEV/DLQ"
    assert path.parent == tmp_path and path.name.startswith("ticket-DEV_DLQ-")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    text = path.read_text()
    assert "\x1b" not in text and "red" not in text       # payloads never written raw
    ticket = json.loads(text)
    assert (ticket["profile"], ticket["queue_manager"], ticket["queue"], ticket["count"]) == \
        ("prod", "QM1", "DEV/DLQ", 2)
    first, second = ticket["messages"]
    assert first["msg_id"] == "41" * 24
    assert base64.b64decode(first["payload"]) == RAW      # the bytes after the DLH
    assert first["dead_letter"] == {
        "reason": 2053, "reason_name": "MQRC_Q_FULL", "destination_queue": "APP.ORDERS",
        "destination_queue_manager": "", "put_time": "2026-11-24T10:30:00.000Z"}
    assert "dead_letter" not in second and base64.b64decode(second["payload"]) == b"plain"


def test_payloads_as_hex(run_ticket, tmp_path) -> None:
    summary = run_ticket(folder=str(tmp_path), payload_as="hex")
    ticket = json.loads(Path(summary.files[0]).read_text())
    assert ticket["messages"][0]["payload"] == RAW.hex().upper()


def test_an_existing_file_is_never_overwritten(tmp_path) -> None:
    taken = tmp_path / "ticket-Q-1.json"
    taken.write_text("keep me")
    written = ticket_file.write_new(tmp_path, "ticket-Q-1", "{}")
    assert written == tmp_path / "ticket-Q-1-2.json"
    assert taken.read_text() == "keep me" and written.read_text() == "{}"


@pytest.mark.parametrize(("settings", "sentence"), [
    ({}, "set plugins.settings.ticket_file.folder to the folder for ticket files: "
         "no ticket written"),
    ({"folder": "/nonexistent/tickets"},
     "the ticket folder /nonexistent/tickets does not exist: no ticket written"),
    ({"folder": "/tmp", "payload_as": "raw"},
     "plugins.settings.ticket_file.payload_as is 'raw', not base64 or hex: no ticket written"),
])
def test_bad_settings_fail_the_selection_in_one_sentence(run_ticket, settings, sentence
                                                         ) -> None:
    summary = run_ticket(**settings)
    assert (summary.done, summary.failed, summary.sentence, list(summary.files)) == \
        (0, 2, sentence, [])


def test_a_cancelled_run_writes_nothing(run_ticket, tmp_path) -> None:
    summary = run_ticket(folder=str(tmp_path), cancel=True)
    assert summary.sentence == "cancelled: no ticket written"
    assert list(tmp_path.iterdir()) == []
