"""A journal record's contents: :class:`JournalEntry` (one change) and :class:`Outcome` (one
message), with the time format the journal uses. The file format is in the package doc."""

from __future__ import annotations

import getpass
import json
import os
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from mqconsole.mq import boundedjson

OUTCOMES = ("done", "failed", "skipped")
DETAILS_DEPTH = 32  # a record's details nest no deeper (deeper: not a record we wrote)


def _now() -> datetime:
    return datetime.now(UTC)


def _operator() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError, ImportError):  # no login name and no passwd entry
        return str(os.getuid()) if hasattr(os, "getuid") else "unknown"


def _sudo_user() -> str | None:
    return os.environ.get("SUDO_USER") or None


def format_time(when: datetime) -> str:
    """ISO 8601 in UTC with milliseconds and a ``Z``: ``2026-11-02T09:14:03.512Z`` (the one
    style, ``ops.timefmt.iso_utc``)."""
    from mqconsole.ops.timefmt import iso_utc

    if when.tzinfo is None:
        when = when.astimezone()  # a naive time is local time
    return str(iso_utc(when))


def parse_time(text: str) -> datetime:
    """An ISO 8601 time (``Z`` or an offset; naive means UTC here) as an aware UTC datetime."""
    when = datetime.fromisoformat(text.strip().replace("z", "Z"))
    if when.tzinfo is None:
        return when.replace(tzinfo=UTC)
    return when.astimezone(UTC)


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=True, default=str)


def _outcomes_json(outcomes: list[Outcome]) -> str:
    """``_dumps([o.to_dict() for o in outcomes])``, the usual outcome (a hex MsgId, no
    reason) formatted directly: a tenth of the time."""
    dests: dict[str, str] = {}
    parts = []
    for o in outcomes:
        m = o.msgid  # in hex: letters and digits, nothing to escape in JSON
        if o.reason is None and o.reason_name is None and m.isalnum() and m.isascii():
            head = f'{{"msgid":"{m}","outcome":"{o.outcome}"'
            d = o.destination
            if d is None:
                parts.append(head + "}")
            else:
                text = dests.get(d)
                if text is None:
                    text = dests[d] = _dumps(d)
                parts.append(f'{head},"destination":{text}}}')
        else:
            parts.append(_dumps(o.to_dict()))
    return "[" + ",".join(parts) + "]"


@dataclass(slots=True)
class Outcome:
    """What happened to one message: ``done``, ``failed`` (with the MQ reason) or ``skipped``."""

    msgid: str
    outcome: str = "done"
    reason: int | None = None
    reason_name: str | None = None
    destination: str | None = None

    def __post_init__(self) -> None:
        if isinstance(self.msgid, bytes | bytearray):
            self.msgid = bytes(self.msgid).hex().upper()
        if self.outcome not in OUTCOMES:
            raise ValueError(f"outcome {self.outcome!r} is not one of {', '.join(OUTCOMES)}")

    def reason_text(self) -> str:
        """The reason as every face says one (``mq.names.reason_label``: ``MQRC_Q_FULL
        (2053)``, a number MQ has no name for alone), whatever name the record kept (an
        older one wrote ``UNKNOWN_65535``); a name of mqconsole's own (a plugin's refusal)
        with its number; empty when there is none."""
        from mqconsole.mq.names import known_reason_name, reason_label

        if self.reason is None:
            return self.reason_name or ""
        name = self.reason_name
        if not name or name.startswith("UNKNOWN_") or name == known_reason_name(self.reason):
            return reason_label(self.reason)
        return f"{name} ({self.reason})"

    def to_dict(self) -> dict[str, Any]:
        """Without the fields that are not set (a done message has no reason): a move of
        100,000 messages writes a line of 100,000 of these."""
        out: dict[str, Any] = {"msgid": self.msgid, "outcome": self.outcome}
        if self.reason is not None:
            out["reason"] = self.reason
        if self.reason_name is not None:
            out["reason_name"] = self.reason_name
        if self.destination is not None:
            out["destination"] = self.destination
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Outcome:
        if not isinstance(data, dict):
            raise ValueError("an outcome is not an object")
        return cls(msgid=str(data.get("msgid", "")), outcome=data.get("outcome", "done"),
                   reason=_opt_int(data.get("reason")), reason_name=data.get("reason_name"),
                   destination=data.get("destination"))


def _opt_int(value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"reason {value!r} is not a number")
    return value


@dataclass(slots=True)
class JournalEntry:
    """One change. ``time``, ``operator`` and ``sudo_user`` default to now and whoever runs us."""

    operation: str
    qmgr: str | None = None
    profile: str | None = None
    source: str | None = None
    destinations: list[str] = field(default_factory=list)
    msgids: list[str] = field(default_factory=list)
    outcomes: list[Outcome] = field(default_factory=list)
    backup: str | None = None
    details: dict[str, Any] = field(default_factory=dict)
    dry_run: bool = False
    time: datetime = field(default_factory=_now)
    operator: str = field(default_factory=_operator)
    sudo_user: str | None = field(default_factory=_sudo_user)
    # read from start/unit/commit/end records (None: a record of one line, written whole)
    op: str | None = None
    state: str = "complete"  # or "interrupted": a start record and no end record
    in_doubt: list[str] = field(default_factory=list)  # its last unit's commit not recorded
    ended: datetime | None = None
    unlisted_done: int = 0  # done messages whose ids were not read (``read(ids=False)``)

    def __post_init__(self) -> None:
        if not self.operation:
            raise ValueError("a journal entry needs an operation")
        self.msgids = [m.hex().upper() if isinstance(m, bytes | bytearray) else str(m)
                       for m in self.msgids]
        self.outcomes = [o if isinstance(o, Outcome) else Outcome.from_dict(o)
                         for o in self.outcomes]
        if self.backup is not None:
            self.backup = str(self.backup)
        if self.time.tzinfo is None:
            self.time = self.time.astimezone()
        # kept to the millisecond, as the record holds it
        self.time = self.time.astimezone(UTC).replace(
            microsecond=self.time.microsecond // 1000 * 1000)

    def counts(self) -> dict[str, int]:
        """How many messages were done, failed and skipped (skipped: the outcomes listed, or
        the operation's own count in ``details`` when larger — a count that is not a
        whole number, as a hand-edited or foreign record may hold, is not one)."""
        out = dict.fromkeys(OUTCOMES, 0)
        for o in self.outcomes:
            out[o.outcome] += 1
        out["done"] += self.unlisted_done
        said = (self.details or {}).get("skipped")
        if isinstance(said, int) and not isinstance(said, bool):
            out["skipped"] = max(out["skipped"], said)
        return out

    def stopped(self) -> str | None:
        """Why a change that ended stopped before the end of what it selected, in words —
        ``"by SIGTERM"``, ``"by the operator"`` (a Ctrl-C or escape), the journal that could
        not be written, the error that stopped it — from its details; None when it did not
        stop early (or the record does not say)."""
        d = self.details or {}
        error = d.get("error")
        if isinstance(error, str) and error:
            return error
        if d.get("cancelled") is True:
            by = d.get("stopped_by")
            return f"by {by}" if isinstance(by, str) and by else "by the operator"
        why = d.get("stopped_early")
        return why if isinstance(why, str) and why else None

    def to_dict(self, *, outcomes: bool = True) -> dict[str, Any]:
        """The record's fields in file order (``outcomes=False``: all but the outcomes)."""
        d = {
            "time": format_time(self.time),
            "operator": self.operator,
            "sudo_user": self.sudo_user,
            "profile": self.profile,
            "qmgr": self.qmgr,
            "operation": self.operation,
            "source": self.source,
            "destinations": list(self.destinations),
            "msgids": list(self.msgids),
            "outcomes": [o.to_dict() for o in self.outcomes] if outcomes else None,
            "backup": self.backup,
            "details": self.details,
            "dry_run": self.dry_run,
        }
        if not outcomes:
            del d["outcomes"]
        if self.op is not None:
            d.update(op=self.op, state=self.state,
                     ended=None if self.ended is None else format_time(self.ended),
                     in_doubt=list(self.in_doubt))
        return d

    def to_json(self, head: dict[str, Any] | None = None) -> str:
        """The record as one line of JSON (ASCII, no line end): ``json.dumps`` of
        ``to_dict()`` (after ``time``, the keys of ``head`` when given), with the outcomes
        (many, after a large move) written by ``_outcomes_json``: the same text faster."""
        items = list(self.to_dict(outcomes=False).items())
        if head:
            items[1:1] = list(head.items())
        cut = next(i for i, (k, _) in enumerate(items) if k == "msgids") + 1
        first, tail = _dumps(dict(items[:cut])), _dumps(dict(items[cut:]))
        return f'{first[:-1]},"outcomes":{_outcomes_json(self.outcomes)},{tail[1:]}'

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> JournalEntry:
        if not isinstance(data, dict):
            raise ValueError("the record is not a JSON object")
        for key in ("time", "operation"):
            if not data.get(key):
                raise ValueError(f"the record has no {key!r}")
        if not isinstance(data["time"], str):
            raise ValueError("'time' is not text")
        lists = {}
        for key in ("destinations", "msgids", "outcomes"):
            value = data.get(key) or []
            if not isinstance(value, list):
                raise ValueError(f"{key!r} is not a list")
            lists[key] = value
        details = data.get("details") or {}
        if not isinstance(details, dict):
            raise ValueError("'details' is not an object")
        boundedjson.check_depth(details, DETAILS_DEPTH, "'details'")
        return cls(
            operation=str(data["operation"]),
            qmgr=data.get("qmgr"),
            profile=data.get("profile"),
            source=data.get("source"),
            destinations=[str(d) for d in lists["destinations"]],
            msgids=[str(m) for m in lists["msgids"]],
            outcomes=[Outcome.from_dict(o) for o in lists["outcomes"]],
            backup=data.get("backup"),
            details=details,
            dry_run=bool(data.get("dry_run", False)),
            time=parse_time(data["time"]),
            operator=str(data.get("operator") or ""),
            sudo_user=data.get("sudo_user"),
        )


__all__ = ["OUTCOMES", "JournalEntry", "Outcome", "format_time", "parse_time"]
