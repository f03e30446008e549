"""The change journal: one JSON line per change, appended safely by any number of processes.

Every change (move, copy, resubmit, delete, edit, load, queue set) appends one record to
``<state folder>/journal.jsonl`` (:func:`mqconsole.paths.default_journal_path`)::

    {"time": "2026-11-02T09:14:03.512Z", "operator": "alice", "sudo_user": null,
     "profile": "prod", "qmgr": "QM1", "operation": "move", "source": "APP.DLQ",
     "destinations": ["APP.IN"], "msgids": ["414D51…"],
     "outcomes": [{"msgid": "414D51…", "outcome": "done", "reason": null,
                   "reason_name": null, "destination": "APP.IN"}],
     "backup": null, "details": {}, "dry_run": false}

Appending is safe when the TUI and a script write at once: the file is opened with
``O_APPEND`` and each record is written with a single ``os.write`` of the whole line while an
exclusive ``flock`` is held (where the platform has one), so lines never interleave, whatever
their size. ``fsync=True`` also syncs each record to disk.

Reading skips a line that is not a record and notes it in :attr:`Journal.problems`; a last
line without its line end (a write in progress) is ignored.
"""

from __future__ import annotations

import getpass
import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

from mqconsole import paths
from mqconsole.mq import boundedjson

try:  # not on Windows
    import fcntl
except ImportError:  # pragma: no cover - exercised on Windows only
    fcntl = None  # type: ignore[assignment]

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
    """ISO 8601 in UTC with milliseconds and a ``Z``: ``2026-11-02T09:14:03.512Z``."""
    if when.tzinfo is None:
        when = when.astimezone()  # a naive time is local time
    return when.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


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
        """How many messages were done, failed and skipped."""
        out = dict.fromkeys(OUTCOMES, 0)
        for o in self.outcomes:
            out[o.outcome] += 1
        return out

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
        return d

    def to_json(self) -> str:
        """The record as one line of JSON (ASCII, no line end): ``json.dumps`` of
        ``to_dict()``, with the outcomes (100,000 of them after a large move) written by
        ``_outcomes_json``, which gives the same text faster."""
        items = list(self.to_dict(outcomes=False).items())
        cut = next(i for i, (k, _) in enumerate(items) if k == "msgids") + 1
        head, tail = _dumps(dict(items[:cut])), _dumps(dict(items[cut:]))
        return f'{head[:-1]},"outcomes":{_outcomes_json(self.outcomes)},{tail[1:]}'

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


class Journal:
    """The journal file at ``path`` (default: :func:`mqconsole.paths.default_journal_path`)."""

    def __init__(self, path: str | os.PathLike | None = None, *, fsync: bool = False) -> None:
        self.path = Path(path) if path is not None else paths.default_journal_path()
        self.fsync = fsync
        self.problems: list[str] = []

    def append(self, entry: JournalEntry) -> None:
        """Append one record: one ``os.write`` of the whole line under an exclusive lock."""
        line = (entry.to_json() + "\n").encode("ascii")
        if not self.path.parent.is_dir():
            paths.ensure_dir(self.path.parent)
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_CLOEXEC", 0)
        fd = os.open(self.path, flags, 0o600)
        try:
            if fcntl is not None:
                fcntl.flock(fd, fcntl.LOCK_EX)
            written = os.write(fd, line)
            while written < len(line):  # a short write (disk nearly full): finish it under the lock
                written += os.write(fd, line[written:])
            if self.fsync:
                os.fsync(fd)
        finally:
            os.close(fd)  # closing releases the lock

    def read(self, since: datetime | None = None,
             operation: str | None = None) -> Iterator[JournalEntry]:
        """Records in file order, from ``since`` on and of ``operation`` when given.

        A line that is not a record is skipped and described in :attr:`problems` (which is
        reset on each call); a missing file holds no records.
        """
        self.problems = []
        if since is not None and since.tzinfo is None:
            since = since.astimezone()
        try:
            fp = open(self.path, "rb")  # noqa: SIM115
        except FileNotFoundError:
            return
        with fp:
            for number, raw in enumerate(fp, 1):
                if not raw.endswith(b"\n"):
                    if not raw.strip():
                        continue
                    try:
                        entry = JournalEntry.from_dict(boundedjson.loads(raw, limit=None))
                    except (ValueError, TypeError):
                        continue  # the last record is still being written
                elif not raw.strip():
                    continue
                else:
                    try:
                        entry = JournalEntry.from_dict(boundedjson.loads(raw, limit=None))
                    except (ValueError, TypeError) as exc:
                        self.problems.append(f"{self.path} line {number}: not a journal "
                                             f"record ({_short(exc)}), skipped")
                        continue
                if since is not None and entry.time < since:
                    continue
                if operation is not None and entry.operation != operation:
                    continue
                yield entry


def _short(exc: Exception) -> str:
    text = str(exc).split("\n")[0]
    return text if len(text) <= 80 else text[:80] + "…"


# -- --since ------------------------------------------------------------------------------

_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}
_RELATIVE = re.compile(r"(?:\s*(\d+)\s*([smhdw]))+\s*", re.IGNORECASE)
_PART = re.compile(r"(\d+)\s*([smhdw])", re.IGNORECASE)


def parse_since(text: str, *, now: datetime | None = None) -> datetime:
    """A ``--since`` value as an aware UTC datetime.

    ``2h``, ``30m``, ``1h30m``, ``3d``, ``1w``, ``45s`` (ago); ``today``, ``yesterday``
    (local midnight); ``2026-11-01`` (local midnight); an ISO time, local when it has no
    offset (``2026-11-01T08:00``, ``2026-11-01T08:00Z``, ``…+01:00``).
    """
    value = (text or "").strip()
    now = now or datetime.now(UTC)
    if now.tzinfo is None:
        now = now.astimezone()
    if not value:
        raise ValueError("--since needs a value such as 2h, 3d, 2026-11-01 or an ISO time")
    if _RELATIVE.fullmatch(value):
        seconds = sum(int(n) * _UNITS[u.lower()] for n, u in _PART.findall(value))
        return (now - timedelta(seconds=seconds)).astimezone(UTC)
    word = value.lower()
    if word in ("today", "yesterday"):
        local = now.astimezone()
        day = local.date() - timedelta(days=1 if word == "yesterday" else 0)
        return _local_midnight(day)
    try:
        if len(value) == 10:
            return _local_midnight(date.fromisoformat(value))
        when = datetime.fromisoformat(value.replace("z", "Z"))
    except ValueError:
        raise ValueError(f"--since {value!r} is not a duration (2h, 30m, 3d), a date "
                         "(2026-11-01) or an ISO time (2026-11-01T08:00Z)") from None
    if when.tzinfo is None:
        when = when.astimezone()
    return when.astimezone(UTC)


def _local_midnight(day: date) -> datetime:
    return datetime(day.year, day.month, day.day).astimezone().astimezone(UTC)


__all__ = ["OUTCOMES", "Journal", "JournalEntry", "Outcome", "format_time", "parse_since",
           "parse_time"]
