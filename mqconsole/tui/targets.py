"""What an action works on: the marked messages, every message the filter matches, or the
one under the cursor, and how to say which they are in a confirmation.

Marked messages are selected by MsgId (``ops.Selection``): MsgIds need not be unique, so
when a marked MsgId is also carried by an unmarked message the confirmation says so.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from mqconsole.ops.selection import Selection
from mqconsole.ops.views import MessageView

if TYPE_CHECKING:
    from mqconsole.tui.browsing import BrowseModel
    from mqconsole.tui.widgets.message_list import MessageList

DUPLICATE_CHECK_LIMIT = 5000  # marks above this are not checked for shared MsgIds


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
        return cls(queue, Selection(msgids=frozenset([bytes(view.md.msg_id)])),
                   f"message {view.position} (MsgId {view.msgid})", 1, view=view)

    @classmethod
    def whole_queue(cls, queue: str) -> Targets:
        return cls(queue, Selection(all=True), "every message", everything=True)

    @classmethod
    def under_cursor(cls, queue: str, lst: MessageList, model: BrowseModel | None
                     ) -> Targets | None:
        """The message under the cursor (whatever is marked)."""
        if model is None or lst.cursor >= model.count:
            return None
        row = model.row(lst.cursor)
        t = cls(queue, Selection(msgids=frozenset([row.msgid])),
                f"message {row.position} (MsgId {row.msgid_hex})", 1,
                view=model.view(lst.cursor))
        t.notes.extend(duplicate_notes(model, {row.position: row.msgid}))
        return t

    @classmethod
    def from_list(cls, queue: str, lst: MessageList, model: BrowseModel | None
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
            ids = frozenset(lst.marks.values())
            t = cls(queue, Selection(msgids=ids), f"{len(lst.marks):,} marked message"
                    f"{'s' if len(lst.marks) != 1 else ''}", len(lst.marks))
            t.notes.extend(duplicate_notes(model, lst.marks))
            return t
        return cls.under_cursor(queue, lst, model)


def duplicate_notes(model: BrowseModel, marks: dict[int, bytes]) -> list[str]:
    """Say when a selected MsgId is also carried by a message that is not selected."""
    if len(marks) > DUPLICATE_CHECK_LIMIT:
        return ["Messages are selected by MsgId; MsgIds need not be unique, and with this "
                "many marks they were not checked for duplicates."]
    wanted = set(marks.values())
    extra: Counter[bytes] = Counter()
    ids = model.index.msgids
    for i in range(model.count):
        mid = bytes(ids[i * 24:(i + 1) * 24])
        if mid in wanted and model.index.positions[i] not in marks:
            extra[mid] += 1
    notes = []
    if extra:
        n = sum(extra.values())
        notes.append(f"MsgIds need not be unique: {n} other listed message"
                     f"{'s' if n != 1 else ''} carr{'y' if n != 1 else 'ies'} a selected MsgId "
                     "and will be included too.")
    if not model.done:
        notes.append("Messages are selected by MsgId; the queue was not read to its end, so a "
                     "message further on with the same MsgId would be included too.")
    return notes


__all__ = ["Targets", "duplicate_notes"]
