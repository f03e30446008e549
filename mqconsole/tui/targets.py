"""What an action works on: the marked messages, every message the filter matches, or the
one under the cursor, and how to say which they are in a confirmation.

A mark names a message, never a MsgId (MsgIds need not be unique: a reload or a replay
repeats them): an ``ops.selection.Mark`` — the message's token when the browse gave one,
else its position with its MsgId, CorrelId and put time checked. Marking one of three
messages that share a MsgId acts on exactly that one, and the headline's count is the
number of messages marked.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from mqconsole.ops.selection import Mark, Selection
from mqconsole.ops.views import MessageView
from mqconsole.tui.safe import clean

if TYPE_CHECKING:
    from mqconsole.tui.rows import RowSource
    from mqconsole.tui.widgets.message_list import MessageList


def hidden_marks(lst: MessageList, model: RowSource | None) -> int:
    """How many marks a filter hides: marked before the filter changed, not listed now."""
    if model is None or model.where is None or not lst.marks:
        return 0
    listed = set(model.index.positions[:model.count])
    return sum(1 for p in lst.marks if p not in listed)


def _messages(n: int) -> str:
    return f"{n:,} marked message{'' if n == 1 else 's'}"


@dataclass
class Targets:
    """The messages an action works on, and how to say which they are."""

    queue: str
    selection: Selection
    label: str  # "3 marked messages", "message 17", ...
    count: int | None = None
    everything: bool = False  # every message of the queue: confirm by typing its name
    notes: list[str] = field(default_factory=list)
    view: MessageView | None = None  # the one message, when there is one

    @classmethod
    def single(cls, queue: str, view: MessageView) -> Targets:
        return cls(queue, Selection(marks=frozenset([Mark.of(view)])),
                   f"message {view.position} (MsgId {view.msgid})", 1, view=view)

    @classmethod
    def whole_queue(cls, queue: str) -> Targets:
        return cls(queue, Selection(all=True), "every message", everything=True)

    @classmethod
    def under_cursor(cls, queue: str, lst: MessageList,
                     model: RowSource | None) -> Targets | None:
        """The message under the cursor (whatever is marked)."""
        if model is None or not model.has_row(lst.cursor):
            return None  # past the end, or on a page not read yet
        try:
            row = model.row(lst.cursor)
            mark = model.index.mark(lst.cursor)
        except LookupError:  # its page was dropped meanwhile (the queue changed)
            return None
        return cls(queue, Selection(marks=frozenset([mark])),
                   f"message {row.position} (MsgId {row.msgid_hex})", 1,
                   view=model.view(lst.cursor))

    @classmethod
    def from_list(cls, queue: str, lst: MessageList, model: RowSource | None
                  ) -> Targets | None:
        if model is None:
            return None
        if lst.all_marked:
            if model.where is not None:
                n = f"{model.count:,} " if model.done else ""
                return cls(queue, Selection(where=model.where, where_text=model.where_text),
                           f"every message matching {model.where_text} ({n}listed"
                           f"{'' if model.done else ' so far'}; messages that match when the "
                           "action runs are included)",
                           model.count if model.done else None)
            return cls(queue, Selection(all=True),
                       f"every message ({model.total_label()})",
                       model.scanned if model.done else None, everything=True)
        if lst.marks:
            t = cls(queue, Selection(marks=frozenset(lst.marks.values())),
                    _messages(len(lst.marks)), len(lst.marks))
            hidden = hidden_marks(lst, model)
            if hidden:
                t.notes.append(f"{hidden:,} marked, not shown by the current filter "
                               f"({clean(model.where_text or '')}): they are included.")
            return t
        return cls.under_cursor(queue, lst, model)


__all__ = ["Targets"]
