"""What a queue holds, read cheaply, for the tests that check thousands of messages after
a killed or stopped process (tests/ops/test_transfer_kill.py, tests/cli's signal tests).

Each message's MsgId and body come from the packed browse (``BrowsesPacked.next_packed``,
the MD as stored, MsgId at its offset in ``mq.md`` LAYOUT) instead of a ``Message`` with
its unpacked MQMD each: a third of the CPU of reading a 20,000-message queue back. The
browse is the same (expired messages discarded, the same order); a backend without the
packed browse is read through ``next_batch``.
"""

from __future__ import annotations

from mqconsole.backends.base import QueueManager, packed_browse
from mqconsole.mq.md import OFFSETS

_AT = OFFSETS["msg_id"]
PAGE = 1000


def msgids_and_bodies(qm: QueueManager, queue: str) -> list[tuple[bytes, bytes]]:
    """``(MsgId, body)`` of every message on ``queue``, in browse order."""
    out: list[tuple[bytes, bytes]] = []
    with qm.browse(queue) as cur:
        packed = packed_browse(cur)
        while True:
            if packed is not None:
                page = [(md[_AT:_AT + 24], body) for md, body in packed.next_packed(PAGE)]
            else:
                page = [(m.md.msg_id, m.body) for m in cur.next_batch(PAGE)]
            out.extend(page)
            if len(page) < PAGE:
                return out


def msgids(qm: QueueManager, queue: str) -> list[bytes]:
    """The MsgId of every message on ``queue``, in browse order."""
    return [msg_id for msg_id, _ in msgids_and_bodies(qm, queue)]
