"""The queue manager the suites run once more with every optional capability switched off
(issue 22 item 12, tests/support/plain.py): it is a ``QueueManager`` whose cursors are
``BrowseCursor``s and nothing more — every optional protocol of backends/base.py (one
added later too: they are found by looking) answers False, as on the MQI backend."""

from __future__ import annotations

from mqconsole.backends import base
from mqconsole.mq.md import MQMD
from mqconsole.mq.message import Message
from tests.support.plain import HIDDEN, plain


def _optional_protocols() -> list[type]:
    return [o for o in vars(base).values()
            if isinstance(o, type) and getattr(o, "_is_runtime_protocol", False)
            and o.__name__ not in ("QueueManager", "BrowseCursor")]


def test_every_optional_capability_is_off_on_the_connection_and_its_cursors(make_qm):
    real = make_qm("Q")
    real.put("Q", Message(MQMD(format="MQSTR"), b"x"), syncpoint=False)
    qm = plain(real)
    protocols = _optional_protocols()
    assert len(protocols) >= 10 and HIDDEN
    assert any(isinstance(real, p) for p in protocols)  # the embedded one has them
    assert isinstance(qm, base.QueueManager)
    assert not [p.__name__ for p in protocols if isinstance(qm, p)]
    assert base.put_resolution(qm) is None
    with qm.browse("Q", for_get=True) as cursor:
        assert isinstance(cursor, base.BrowseCursor)
        assert not [p.__name__ for p in protocols if isinstance(cursor, p)]
        assert base.move_step(cursor) is None and base.moves_many(cursor) is None
        assert base.packed_browse(cursor) is None and base.finds_messages(cursor) is None
        assert cursor.next().body == b"x"
        cursor.get_current(syncpoint=False)
    assert not [p.__name__ for p in protocols if isinstance(qm.new_connection(), p)]
    assert qm.inquire_queue("Q").depth == 0
