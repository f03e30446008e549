"""Marks name messages, not MsgIds (issue 15, trust 1), on real MQ: the console over the
MQI backend and the stand-in, where a browse returns each message's MsgToken (MQGMO
version 3). The same scenario as tests/tui/test_exact_marks.py on the embedded backend."""

from __future__ import annotations

from mqconsole.ops.dmpfile import read_messages
from mqconsole.tui.app import MQConsoleApp
from mqconsole.tui.context import ProfileInfo, Settings
from tests.support.exact_marks import BODIES, SHARED_ID, bodies, delete_the_second_copy, fill


def test_a_browse_names_each_message_by_its_token(qmgr, qm) -> None:
    queue = qmgr.queue()
    fill(qm, queue)
    with qm.browse(queue) as cursor:
        tokens = [m.token for m in cursor.next_batch(10)]
    assert len(tokens) == 4 and None not in tokens and len(set(tokens)) == 4


async def test_deleting_one_marked_of_three_sharing_a_msgid_deletes_exactly_it(
        qmgr, qm, tmp_path) -> None:
    queue = qmgr.queue()
    fill(qm, queue)
    app = MQConsoleApp(qmgr.connect, profile=ProfileInfo(name="mq"),
                       settings=Settings(refresh_seconds=0, journal_path=tmp_path / "j.jsonl",
                                         backup_dir=tmp_path / "backups", save_dir=tmp_path))
    async with app.run_test(size=(120, 30)) as pilot:
        asked, said = await delete_the_second_copy(app, pilot, queue)
    app.conns.close()
    assert "Delete 1 marked message" in asked and "Deleted 1 of 1 message" in said
    assert bodies(qm, queue) == [b"message 17 body", BODIES[0], BODIES[2]]
    [backup] = (tmp_path / "backups").glob("*")
    [saved] = read_messages(backup)
    assert saved.body == BODIES[1] and bytes(saved.md.msg_id) == SHARED_ID
