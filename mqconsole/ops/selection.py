"""Which messages an operation works on: explicit MsgIds, marked messages, a --where
expression, a limit, or all.

No selection is a usage error, never "everything": ``--all`` must be said.

MsgIds need not be unique (a reload or a replay repeats them), so a message an operator
marked is named by a :class:`Mark`, not by its MsgId: by its token (MQ's MsgToken, the
embedded store's identity) when the browse gave one, else by its position with its MsgId,
CorrelId and put time checked there. A mark never selects another message.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property

from mqconsole.backends.base import finds_messages
from mqconsole.ops.views import MessageView
from mqconsole.ops.where import Field, Where, compile_where


class SelectionError(ValueError):
    """A selection that cannot be used (one sentence for the user)."""


@dataclass(frozen=True)
class Mark:
    """One message, exactly: its ``token`` when the browse that showed it gave one (with its
    MsgId, so a token can never name another message), else its ``position`` on the queue
    with its MsgId, CorrelId and put time (``put_date`` + ``put_time``) checked there."""

    msgid: bytes | None  # None: any (a token the operator gave, which names one message)
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
        if self.msgid is not None and message.md.msg_id != self.msgid:
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
    all_duplicates: bool = False  # a --msgid carried by several messages takes them all

    @property
    def needs_text(self) -> bool:
        return bool(self.where is not None and self.where.needs_text)

    @property
    def everything(self) -> bool:
        """Every message (no look at one is needed)."""
        return not self.msgids and not self.marks and self.where is None

    @cached_property
    def _marks_by_msgid(self) -> dict[bytes | None, list[Mark]]:
        out: dict[bytes | None, list[Mark]] = {}
        for mark in self.marks:
            out.setdefault(mark.msgid, []).append(mark)
        return out

    def matches(self, view: MessageView) -> bool:
        """Every criterion given must hold (MsgIds, marks and --where combine with AND)."""
        if self.msgids and view.message.md.msg_id not in self.msgids:
            return False
        if self.marks:
            by_id = self._marks_by_msgid
            if not any(m.matches(view) for m in (*by_id.get(view.message.md.msg_id, ()),
                                                 *by_id.get(None, ()))):
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
              where: str | None = None, limit: int | None = None, all_: bool = False,
              positions: Iterable[int] = (), tokens: Iterable[str] = (),
              all_duplicates: bool = False, columns: tuple[Field, ...] = ()) -> Selection:
        """From command-line style options; raises SelectionError (or WhereError).

        ``positions`` pair with ``msgids`` in order (``--msgid X --position 7``: the message
        at position 7, checked to carry X); ``tokens`` name messages by MsgToken;
        ``columns`` are more ``--where`` fields (``where_columns.py``)."""
        ids = [parse_msgid(m, "--msgid") for m in msgids]
        places = list(positions)
        marks = [Mark(None, token=parse_token(t)) for t in tokens]
        if places:
            if msgids_from or len(places) != len(ids):
                raise SelectionError("--position goes with a --msgid each: give as many "
                                     "--position as --msgid, in the same order")
            marks.extend(Mark(i, position=p) for i, p in zip(ids, places, strict=True))
            ids = []
        if msgids_from:
            ids.extend(read_msgids_file(msgids_from))
        compiled = compile_where(where, columns) if where else None
        if limit is not None and limit < 1:
            raise SelectionError("--limit must be at least 1")
        if not (ids or marks or compiled or all_):
            raise SelectionError("no messages selected: give --msgid, --msgids-from, --token, "
                                 "--where or --all (an operation never defaults to every "
                                 "message)")
        if all_ and (ids or marks or compiled):
            raise SelectionError("--all cannot be combined with --msgid, --msgids-from, "
                                 "--token or --where")
        return cls(msgids=frozenset(ids), where=compiled, where_text=where, limit=limit,
                   all=all_, marks=frozenset(marks), all_duplicates=all_duplicates)


SCAN_BATCH = 500


def check_unique(qm: object, queue: str, selection: Selection) -> None:
    """A --msgid names one message: a MsgId carried by several messages on ``queue`` is
    refused (SelectionError) unless ``all_duplicates`` says to take them all — MsgIds need
    not be unique, and an operator who gives one means one message. MsgIds none of which is
    on ``queue`` are refused too (SelectionError), so a script hears it before any question
    rather than after it."""
    if not selection.msgids:
        return
    wanted = {m.hex().upper() for m in selection.msgids}
    counts: Counter[str] = Counter()
    with qm.browse(queue) as cursor:  # type: ignore[attr-defined]
        finder = finds_messages(cursor)
        if finder is not None:  # each MsgId's messages asked for (MQMO_MATCH_MSG_ID)
            for msg_id in selection.msgids:
                first = True
                while finder.browse_msg_id(msg_id, first) is not None:
                    first = False
                    counts[msg_id.hex().upper()] += 1
        else:
            while True:
                batch = cursor.next_batch(SCAN_BATCH)
                for m in batch:
                    h = m.msg_id_hex
                    if h in wanted:
                        counts[h] += 1
                if len(batch) < SCAN_BATCH:
                    break
    if not counts:
        if len(wanted) == 1:
            raise SelectionError(f"no message with MsgId {next(iter(wanted))} on {queue}")
        raise SelectionError(f"none of the {len(wanted)} MsgIds given is on {queue}")
    shared = sorted((h, n) for h, n in counts.items() if n > 1)
    if shared and not selection.all_duplicates:
        h, n = shared[0]
        more = f" (and {len(shared) - 1} more MsgIds like it)" if len(shared) > 1 else ""
        raise SelectionError(f"MsgId {h} is carried by {n} messages on {queue}{more}: name "
                             "one with --position (browse shows positions) or --token, or "
                             f"give --all-duplicates to take all {n}")


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


def parse_token(text: str) -> bytes:
    """A MsgToken in hex (16 bytes; ``browse --json`` shows each message's)."""
    t = text.strip()
    try:
        raw = bytes.fromhex(t[2:] if t.lower().startswith("0x") else t)
    except ValueError:
        raise SelectionError(f"--token {text!r} is not hexadecimal") from None
    if len(raw) != 16:
        raise SelectionError(f"--token {text!r} must be 16 bytes of hex (32 digits)")
    return raw


def read_msgids_file(path: str) -> list[bytes]:
    """One MsgId in hex per line; blank lines and lines starting with '#' are skipped."""
    from mqconsole.ops.inputs import MAX_MSGIDS_FILE, InputTooLarge, NotAFile, read_limited

    try:
        text = read_limited(path, MAX_MSGIDS_FILE, "--msgids-from").decode("utf-8", "replace")
    except OSError as e:
        raise SelectionError(f"cannot read --msgids-from {path}: {e.strerror}") from None
    except (InputTooLarge, NotAFile) as e:
        raise SelectionError(str(e)) from None
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        s = line.strip()
        if not s or s.startswith("#"):
            continue
        out.append(parse_msgid(s.split()[0], f"{path} line {n}:"))
    if not out:
        raise SelectionError(f"--msgids-from {path} holds no MsgIds")
    return out
