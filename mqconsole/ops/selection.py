"""Which messages an operation works on: explicit MsgIds, a --where expression, a limit, or all.

No selection is a usage error, never "everything": ``--all`` must be said.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from mqconsole.ops.views import MessageView
from mqconsole.ops.where import Where, compile_where


class SelectionError(ValueError):
    """A selection that cannot be used (one sentence for the user)."""


@dataclass(frozen=True)
class Selection:
    msgids: frozenset[bytes] = frozenset()
    where: Where | None = None
    where_text: str | None = None
    limit: int | None = None
    all: bool = False

    @property
    def needs_text(self) -> bool:
        return bool(self.where is not None and self.where.needs_text)

    def matches(self, view: MessageView) -> bool:
        """Every criterion given must hold (MsgIds and --where combine with AND)."""
        if self.msgids and view.message.md.msg_id not in self.msgids:
            return False
        return not (self.where is not None and not self.where.matches(view))

    def describe(self) -> str:
        parts = []
        if self.all:
            parts.append("all messages")
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
