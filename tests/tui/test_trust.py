"""What an operator must be able to trust in the console (issue 15, trust 3, 6, 7)."""

from __future__ import annotations

from mqconsole.ops.browse import iter_views
from mqconsole.tui.screens.dialogs import ChoiceDialog, ConfirmDialog, InputDialog, TextDialog

from .conftest import DLQ, depth, open_queue, screen_text, settle, wait_for


async def move_first_dlq_message(app, pilot, dest: str) -> bytes:
    """Open the DLQ, press m on its first message and name ``dest``; its MsgId."""
    await settle(app, pilot)
    await open_queue(app, pilot, DLQ)
    await settle(app, pilot)
    first = app.screen.model.row(0).msgid
    await pilot.press("m")
    await wait_for(app, pilot, lambda: isinstance(app.screen, InputDialog))
    app.screen.query_one("#value").value = dest
    await pilot.press("enter")
    return first


async def test_moving_off_the_dead_letter_queue_offers_to_strip_the_header(make_app, qm):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        moved = await move_first_dlq_message(app, pilot, "APP.AUDIT")
        await wait_for(app, pilot, lambda: isinstance(app.screen, ChoiceDialog))
        assert "APP.AUDIT is not a dead-letter queue" in screen_text(app)
        await pilot.press("enter")  # the first choice: strip
        await wait_for(app, pilot, lambda: isinstance(app.screen, ConfirmDialog))
        body = str(app.screen.body)
        assert "Dead-letter headers are removed" in body and "kept" not in body
        await pilot.press("y")
        await wait_for(app, pilot, lambda: isinstance(app.screen, TextDialog))
        assert "Moved 1 of 1 message" in str(app.screen.body)
    [arrived] = list(iter_views(qm, "APP.AUDIT"))
    assert arrived.dlh is None and bytes(arrived.md.msg_id) == moved
    assert depth(qm, DLQ) == 239


async def test_moving_between_ordinary_queues_asks_nothing_about_headers(make_app, qm):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await open_queue(app, pilot, "APP.ORDERS")
        await settle(app, pilot)
        await pilot.press("m")
        await wait_for(app, pilot, lambda: isinstance(app.screen, InputDialog))
        app.screen.query_one("#value").value = "APP.AUDIT"
        await pilot.press("enter")
        await wait_for(app, pilot, lambda: isinstance(app.screen, ConfirmDialog))
        assert "dead-letter" not in str(app.screen.body).lower()


async def test_a_destination_on_another_queue_manager_is_named_with_it(make_app, qm):
    from mqconsole.mq.chain import add_dead_letter_header
    from mqconsole.mq.message import Message
    from mqconsole.mq.queue import QueueAttrs
    from tests.support.faulty import make_message

    qm.define_queue(QueueAttrs(name="REMOTE.DLQ"))
    for i, qmgr in enumerate(("QM9", "QM1")):  # APP.ORDERS is also a local queue of QM1
        m = make_message(i)
        md, body = add_dead_letter_header(m.md, m.body, reason=2087, dest_q_name="APP.ORDERS",
                                          dest_qmgr_name=qmgr)
        qm.put("REMOTE.DLQ", Message(md, body), syncpoint=False)
    app = make_app()
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(app, pilot)
        await open_queue(app, pilot, "REMOTE.DLQ")
        # read to the end and the summary counted (drawn after the last read)
        await wait_for(app, pilot, lambda: app.screen.model.done
                       and "→APP.ORDERS" in screen_text(app))
        model = app.screen.model
        assert sorted(model.row(i).dest for i in range(2)) == ["APP.ORDERS", "APP.ORDERS@QM9"]
        text = screen_text(app)
        assert "→APP.ORDERS@QM9 1" in text  # the summary's reasons
        assert "APP.ORDERS@QM9" in text.split("Age ")[1]  # and the list's column
