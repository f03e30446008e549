"""Issue 14 item 3: big messages over a client channel.

A client channel carries the smaller of the client's MQCD.MaxMsgLength (ibmmq and pymqi
default to 4 MB) and the server-connection channel's MAXMSGL; a longer message, or a longer
MQGET buffer, is refused with 2010. The stand-in negotiates the same way
(``QMgrDef.channel_max_msg_length``, 100 MB by default).
"""

from __future__ import annotations

import pytest

from mqconsole.backends.base import Context
from mqconsole.mq.errors import MQError
from mqconsole.mq.md import MQMD
from mqconsole.mq.message import Message
from mqconsole.ops.browse import iter_views
from mqconsole.ops.delete import delete_messages
from mqconsole.ops.savefile import save_queue
from mqconsole.ops.selection import Selection
from mqconsole.ops.transfer import transfer

MB = 1024 * 1024


def _big(n: int, fill: bytes = b"x") -> Message:
    return Message(MQMD(format="MQSTR   "), fill * n)


def test_a_5_mb_message_comes_over_a_100_mb_channel(qmgr, qm, engine) -> None:
    q = qmgr.queue(max_msg_length=100 * MB)
    qmgr.admin().put(q, _big(5 * MB), context=Context.NEW, syncpoint=False)
    assert engine.calls_named("MQCONNX")[-1].info["cd"]["MaxMsgLength"] == 100 * MB
    [view] = list(iter_views(qm, q))
    assert len(view.message.body) == 5 * MB and view.message.truncated_from is None
    assert len(qm.get(q, syncpoint=False).body) == 5 * MB


def test_a_buffer_that_failed_is_not_remembered(make_qmgr) -> None:
    qmgr = make_qmgr(channel_max_msg_length=1 * MB)
    qm = qmgr.connect()
    q = qmgr.queue(max_msg_length=100 * MB)
    admin = qmgr.admin()
    admin.put(q, _big(2 * MB), context=Context.NEW, syncpoint=False)
    admin.put(q, _big(10, b"s"), context=Context.NEW, syncpoint=False)
    views = list(iter_views(qm, q))
    assert [v.message.truncated_from for v in views] == [2 * MB, None]
    assert views[1].message.body == b"s" * 10
    assert qm._buffer <= 1 * MB  # the 2 MB buffer that 2010 refused is not kept


def test_over_a_smaller_channel_a_preview_that_nothing_moves_or_saves(make_qmgr,
                                                                      tmp_path) -> None:
    qmgr = make_qmgr(channel_max_msg_length=1 * MB)
    qm = qmgr.connect()
    q, other = qmgr.queue(max_msg_length=100 * MB), qmgr.queue(max_msg_length=100 * MB)
    qmgr.admin().put(q, _big(3 * MB), context=Context.NEW, syncpoint=False)
    [view] = list(iter_views(qm, q))
    m = view.message
    assert m.truncated_from == 3 * MB and 0 < len(m.body) <= 1 * MB
    assert m.body == b"x" * len(m.body)
    r = transfer(qm, q, other, Selection.build(all_=True))
    assert r.done == 0 and [f.reason for f in r.failed] == [2010]
    assert "cannot be moved over" in r.failed[0].detail
    with pytest.raises(MQError) as info:
        save_queue(qm, q, tmp_path / "s.dmp", Selection.build(all_=True))
    assert info.value.reason == 2010 and not (tmp_path / "s.dmp").exists()
    with pytest.raises(MQError):
        delete_messages(qm, q, Selection.build(all_=True), backup_dir=tmp_path)
    with pytest.raises(MQError) as info:
        qm.put(other, m)
    assert info.value.reason == 2010
    with pytest.raises(MQError) as info:
        qm.get(q, syncpoint=False)
    assert info.value.reason == 2010 and "MAXMSGL" in str(info.value)
    assert qm.inquire_queue(q).depth == 1 and qm.inquire_queue(other).depth == 0


def test_show_says_a_preview_is_truncated(make_qmgr) -> None:
    from mqconsole.cli.render import format_show_text

    qmgr = make_qmgr(channel_max_msg_length=1 * MB)
    qm = qmgr.connect()
    q = qmgr.queue(max_msg_length=100 * MB)
    qmgr.admin().put(q, _big(2 * MB), context=Context.NEW, syncpoint=False)
    [view] = list(iter_views(qm, q))
    doc = view.show()
    assert doc["truncated"]["length"] == 2 * MB
    assert "cannot be moved" in format_show_text(doc)


def test_the_console_detail_says_a_preview_is_truncated(make_qmgr) -> None:
    from mqconsole.tui.screens.detail import summary_rows

    qmgr = make_qmgr(channel_max_msg_length=1 * MB)
    qm = qmgr.connect()
    q = qmgr.queue(max_msg_length=100 * MB)
    qmgr.admin().put(q, _big(2 * MB), context=Context.NEW, syncpoint=False)
    [view] = list(iter_views(qm, q))
    rows = dict(summary_rows(view))
    assert "cannot be moved" in rows["Truncated"]
