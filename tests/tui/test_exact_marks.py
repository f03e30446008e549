"""Marks name messages, not MsgIds (issue 15, trust 1), on the embedded backend: the
real-MQ stand-in runs the same scenario in tests/backends/mqi/test_mqi_exact_marks.py."""

from __future__ import annotations

from mqconsole.mq.queue import QueueAttrs
from mqconsole.ops.dmpfile import read_messages
from tests.support.exact_marks import BODIES, SHARED_ID, bodies, delete_the_second_copy, fill

from .conftest import open_queue, settle, wait_for

QUEUE = "APP.REPLAYED"


async def test_deleting_one_marked_of_three_sharing_a_msgid_deletes_exactly_it(
        make_app, qm, tmp_path):
    qm.define_queue(QueueAttrs(name=QUEUE))
    fill(qm, QUEUE)
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        asked, said = await delete_the_second_copy(app, pilot, QUEUE)
    assert "Delete 1 marked message of APP.REPLAYED" in asked
    assert "MsgId" not in asked.split(".", 1)[1]  # no note about others sharing it
    assert "Deleted 1 of 1 message" in said
    assert bodies(qm, QUEUE) == [b"message 17 body", BODIES[0], BODIES[2]]
    [backup] = (tmp_path / "backups").glob("*")
    [saved] = read_messages(backup)
    assert saved.body == BODIES[1] and bytes(saved.md.msg_id) == SHARED_ID


async def test_a_mark_of_a_message_that_left_selects_nothing_else(make_app, qm, tmp_path):
    qm.define_queue(QueueAttrs(name=QUEUE))
    fill(qm, QUEUE)
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await open_queue(app, pilot, QUEUE)
        await wait_for(app, pilot, lambda: app.screen.model.done)
        await pilot.press("down", "space")  # copy one
        target = app.screen.targets()
        other = qm.new_connection()  # another application takes copy one meanwhile
        got = other.get_by_msgid(QUEUE, SHARED_ID, syncpoint=False)
        assert got.body == BODIES[0]
        other.close()
        assert target.selection.describe() == "1 marked message"
    from mqconsole.ops.operation import Delete, Operation

    summary = Operation(Delete(QUEUE, target.selection, backup_dir=tmp_path / "b"),
                        journal=None).run(qm)
    assert summary.counts["selected"] == 0  # not copy two, which has its MsgId
    assert len(bodies(qm, QUEUE)) == 3



async def _mark_the_first_then_take_it(app, pilot, qm) -> None:
    """APP.ORDERS read to its end, its first message marked, then taken by another process."""
    from mqconsole.ops.operation import Delete, Operation
    from mqconsole.ops.selection import Selection

    await settle(app, pilot)
    await open_queue(app, pilot, "APP.ORDERS")
    await wait_for(app, pilot, lambda: app.screen.model.done)
    await pilot.press("space")
    gone = app.screen.model.row(0).msgid.hex()
    Operation(Delete("APP.ORDERS", Selection.build(msgids=[gone]), backup_dir=None),
              journal=None).run(qm)  # another process takes it


async def test_a_mark_whose_message_left_is_said_instead_of_an_empty_plan(make_app, qm):
    """Issue 24: a mark whose message was deleted elsewhere gave "Move 1 marked message"
    with an empty plan, then "Moved 0 of 0" with no reason; now one sentence, no question."""
    from mqconsole.tui.screens.dialogs import ConfirmDialog, InputDialog

    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await _mark_the_first_then_take_it(app, pilot, qm)
        depth = qm.inquire_queue("APP.AUDIT").depth
        await pilot.press("m")
        await wait_for(app, pilot, lambda: isinstance(app.screen, InputDialog))
        app.screen.query_one("Input").value = "APP.AUDIT"
        await pilot.press("enter")
        said = ("Nothing to move: 1 of the marked messages is no longer there (moved, got or "
                "expired since they were marked).")
        await wait_for(app, pilot, lambda: any(str(n.message) == said
                                               for n in app._notifications))
        await settle(app, pilot)
        assert not isinstance(app.screen, ConfirmDialog)  # nothing asked
    assert qm.inquire_queue("APP.AUDIT").depth == depth


async def test_a_delete_of_a_mark_whose_message_left_is_said_instead_of_asked(make_app, qm):
    """Issue 24: as for a move — a delete of a mark whose message another process took says
    so in one sentence and asks nothing (it asked "Delete 1 marked message", then said
    "Deleted 0 of 0")."""
    from mqconsole.tui.screens.dialogs import ConfirmDialog

    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await _mark_the_first_then_take_it(app, pilot, qm)
        depth = qm.inquire_queue("APP.ORDERS").depth
        await pilot.press("d")
        said = ("Nothing to delete: 1 of the marked messages is no longer there (moved, got "
                "or expired since they were marked).")
        await wait_for(app, pilot, lambda: any(str(n.message) == said
                                               for n in app._notifications))
        await settle(app, pilot)
        assert not isinstance(app.screen, ConfirmDialog)  # nothing asked
    assert qm.inquire_queue("APP.ORDERS").depth == depth


def test_a_result_that_selected_nothing_says_so_and_why():
    """The result of a change that found none of its messages: 'Nothing was saved' and the
    reason, never 'Saved 0 of 0' alone."""
    from mqconsole.ops.exit_codes import ExitCode
    from mqconsole.ops.operation.core import Description, Summary
    from mqconsole.ops.result import OperationResult
    from mqconsole.tui.summary import summary_text

    r = OperationResult("save", "APP.ORDERS", warnings=[
        "1 of the marked messages is no longer there (moved, got or expired since they were "
        "marked)"])
    text = summary_text(Summary(Description("save", "saving", "APP.ORDERS"), r,
                                ExitCode.OK)).plain
    assert text.startswith("Nothing was saved: no message of APP.ORDERS was selected")
    assert "0 of 0" not in text and "no longer there" in text
