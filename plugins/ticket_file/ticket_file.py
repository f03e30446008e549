"""An action that writes a JSON ticket file for the selected messages.

Settings (``plugins.settings.ticket_file`` in the mqconsole config)::

    folder: ~/tickets           # required: where ticket files go (must exist)
    payload_as: base64          # or hex: how payloads are written (never raw bytes)

Each run writes one new file ``ticket-<QUEUE>-<UTC time>.json`` (``-2``, ``-3``... when
that name is taken: an existing file is never overwritten), readable by its owner only
(mode 0600): who, where, when, and per message its ids, put time, dead-letter reason and
payload. Nothing on the queue manager changes, so the action is not dangerous.
"""

from __future__ import annotations

import base64
import json
import os
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from mqconsole.mq.chain import dead_letter_header, parse_body_lenient
from mqconsole.mq.names import reason_name
from mqconsole.ops.timefmt import iso_utc, parse_put_datetime
from mqconsole.plugins import Action, ActionSummary, hookimpl

__version__ = "1.0.0"
MQCONSOLE_API_VERSION = 1

ENCODINGS = ("base64", "hex")
MAX_NAME_TRIES = 1000


def _text(value: object) -> str:
    return str(value or "").rstrip(" \x00")


def _encode(data: bytes, how: str) -> str:
    return base64.b64encode(data).decode("ascii") if how == "base64" else data.hex().upper()


def message_entry(message, how: str) -> dict[str, Any]:
    """One message as the ticket lists it: ids in hex, the payload encoded."""
    md = message.md
    parsed = parse_body_lenient(md, message.body)
    entry: dict[str, Any] = {
        "msg_id": md.msg_id.hex().upper(),
        "correl_id": md.correl_id.hex().upper(),
        "put_time": iso_utc(parse_put_datetime(md.put_date, md.put_time)),
        "put_application": _text(md.put_appl_name),
        "format": _text(parsed.format) or None,
        "backout_count": md.backout_count,
        "length": len(message.body),
    }
    dlh = dead_letter_header(md, message.body)
    if dlh is not None:
        entry["dead_letter"] = {
            "reason": dlh.reason, "reason_name": reason_name(dlh.reason),
            "destination_queue": _text(dlh.dest_q_name),
            "destination_queue_manager": _text(dlh.dest_qmgr_name),
            "put_time": iso_utc(parse_put_datetime(dlh.put_date, dlh.put_time)),
        }
    entry["payload_encoding"] = how
    entry["payload"] = _encode(bytes(parsed.payload), how)
    return entry


def _safe_name(queue: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]", "_", queue) or "queue"


def write_new(folder: Path, stem: str, text: str) -> Path:
    """Write ``text`` to a file named after ``stem`` that did not exist (mode 0600)."""
    for n in range(1, MAX_NAME_TRIES + 1):
        path = folder / (f"{stem}.json" if n == 1 else f"{stem}-{n}.json")
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            continue
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            os.fchmod(f.fileno(), 0o600)
            f.write(text)
        return path
    raise FileExistsError(f"{MAX_NAME_TRIES} ticket files named {stem} already exist in "
                          f"{folder}")


def write_ticket(context, messages) -> ActionSummary:
    """The action's run: one ticket file for ``messages``."""
    settings = context.settings
    how = settings.get("payload_as", "base64")
    if how not in ENCODINGS:
        return ActionSummary(failed=len(messages), sentence=(
            f"plugins.settings.ticket_file.payload_as is {how!r}, not base64 or hex: "
            "no ticket written"))
    if not settings.get("folder"):
        return ActionSummary(failed=len(messages), sentence=(
            "set plugins.settings.ticket_file.folder to the folder for ticket files: "
            "no ticket written"))
    folder = Path(str(settings["folder"])).expanduser()
    if not folder.is_dir():
        return ActionSummary(failed=len(messages), sentence=(
            f"the ticket folder {folder} does not exist: no ticket written"))
    entries = []
    for i, message in enumerate(messages):
        if context.cancelled():
            return ActionSummary(failed=0, sentence="cancelled: no ticket written")
        entries.append(message_entry(message, how))
        context.progress(i + 1, len(messages))
    now = datetime.now(UTC)
    ticket = {
        "created": iso_utc(now), "profile": context.profile,
        "queue_manager": _text(getattr(context.connection, "name", "")) or None,
        "queue": context.queue, "count": len(entries), "messages": entries,
    }
    stem = f"ticket-{_safe_name(context.queue)}-{now:%Y%m%dT%H%M%SZ}"
    try:
        path = write_new(folder, stem, json.dumps(ticket, indent=2) + "\n")
    except OSError as e:
        return ActionSummary(failed=len(messages), sentence=(
            f"the ticket could not be written in {folder} ({e.strerror or e})"))
    return ActionSummary(done=len(entries), sentence=(
        f"ticket {path} written for {len(entries)} message{'' if len(entries) == 1 else 's'} "
        f"of {context.queue}"),
        files=[str(path)])


@hookimpl
def mqconsole_actions() -> list[Action]:
    return [Action("ticket", "Write a ticket file for the selection", "selection", False,
                   write_ticket)]
