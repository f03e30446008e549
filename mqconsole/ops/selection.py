"""Which messages an operation works on: explicit MsgIds, marked messages, a --where
expression, a limit, or all.

No selection is a usage error, never "everything": ``--all`` must be said.

MsgIds need not be unique (a reload or a replay repeats them), so a message an operator
marked is named by a :class:`Mark`, not by its MsgId: by its token (MQ's MsgToken, the
embedded store's identity) when the browse gave one, else by its position with its MsgId,
CorrelId and put time checked there. A mark never selects another message.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from mqconsole.ops.views import MessageView
from mqconsole.ops.where import Where, compile_where


class SelectionError(ValueError):
    """A selection that cannot be used (one sentence for the user)."""


@dataclass(frozen=True)
class Mark:
    """One message, exactly: its ``token`` when the browse that showed it gave one (with its
    MsgId, so a token can never name another message), else its ``position`` on the queue
    with its MsgId, CorrelId and put time (``put_date`` + ``put_time``) checked there."""

    msgid: bytes
    token: bytes | None = None
    position: int | None = None
    correlid: bytes | None = None
    put: str | None = None

    @classmethod
    def of(cls, view: MessageView) -> Mark:
        md = view.message.md
        return cls(bytes(md.msg_id), view.message.token, view.position, bytes(md.correl_id),
                   md.put_date + md.put_time)

    def matches(self, view: MessageView) -> bool:
        message = view.message
        if message.md.msg_id != self.msgid:
            return False
        if self.token is not None and message.token is not None:
            return message.token == self.token
        md = message.md
        return (view.position == self.position
                and (self.correlid is None or md.correl_id == self.correlid)
                and (self.put is None or md.put_date + md.put_time == self.put))


@dataclass(frozen=True)
class Selection:
    msgids: frozenset[bytes] = frozenset()
    where: Where | None = None
    where_text: str | None = None
    limit: int | None = None
    all: bool = False
    marks: frozenset[Mark] = field(default_factory=frozenset)

    @property
    def needs_text(self) -> bool:
        return bool(self.where is not None and self.where.needs_text)

    @property
    def everything(self) -> bool:
        """Every message (no look at one is needed)."""
        return not self.msgids and not self.marks and self.where is None

    @cached_property
    def _marks_by_msgid(self) -> dict[bytes, list[Mark]]:
        out: dict[bytes, list[Mark]] = {}
        for mark in self.marks:
            out.setdefault(mark.msgid, []).append(mark)
        return out

    def matches(self, view: MessageView) -> bool:
        """Every criterion given must hold (MsgIds, marks and --where combine with AND)."""
        if self.msgids and view.message.md.msg_id not in self.msgids:
            return False
        if self.marks and not any(
                m.matches(view) for m in self._marks_by_msgid.get(view.message.md.msg_id, ())):
            return False
        return not (self.where is not None and not self.where.matches(view))

    def describe(self) -> str:
        parts = []
        if self.all:
            parts.append("all messages")
        if self.marks:
            parts.append(f"{len(self.marks)} marked message{'' if len(self.marks) == 1 else 's'}")
        if self.msgids:
            parts.append(f"{len(self.msgids)} MsgId(s)")
        if self.where_text:
            parts.append(f"where {self.where_text}")
        if self.limit is not None:
            parts.append(f"at most {self.limit}")
        return ", ".join(parts)

    @classmethod
    def build(cls, *, msgids: Iterable[str] = (), msgids_from: str | None = None,
              where: str | None = None, limit: int | None = None, all_: bool = False
              ) -> Selection:
        """From command-line style options; raises SelectionError (or WhereError)."""
        ids = [parse_msgid(m, "--msgid") for m in msgids]
        if msgids_from:
            ids.extend(read_msgids_file(msgids_from))
        compiled = compile_where(where) if where else None
        if limit is not None and limit < 1:
            raise SelectionError("--limit must be at least 1")
        if not (ids or compiled or all_):
            raise SelectionError("no messages selected: give --msgid, --msgids-from, --where "
                                 "or --all (an operation never defaults to every message)")
        if all_ and (ids or compiled):
            raise SelectionError("--all cannot be combined with --msgid, --msgids-from or "
                                 "--where")
        return cls(msgids=frozenset(ids), where=compiled, where_text=where, limit=limit,
                   all=all_)


def parse_msgid(text: str, what: str) -> bytes:
    t = text.strip()
    if t.lower().startswith("0x"):
        t = t[2:]
    try:
        raw = bytes.fromhex(t)
    except ValueError:
        raise SelectionError(f"{what} {text!r} is not hexadecimal") from None
    if not raw or len(raw) > 24:
        raise SelectionError(f"{what} {text!r} must be 1 to 24 bytes of hex")
    return raw.ljust(24, b"\x00")


def read_msgids_file(path: str) -> list[bytes]:
    """One MsgId in hex per line; blank lines and lines starting with '#' are skipped."""
    try:
        text = Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError as e:
        raise SelectionError(f"cannot read --msgids-from {path}: {e.strerror}") from None
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        s = line.strip()
        if not s or s.startswith("#"):
            continue
        out.append(parse_msgid(s.split()[0], f"{path} line {n}:"))
    if not out:
        raise SelectionError(f"--msgids-from {path} holds no MsgIds")
    return out
