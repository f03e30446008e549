"""Every action from the keyboard, on the embedded demo, checked on the queues themselves."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import DataTable, Input

from mqconsole.ops.browse import iter_views
from mqconsole.ops.dmpfile import read_messages
from mqconsole.ops.journal import Journal
from mqconsole.tui.screens.detail import DetailScreen
from mqconsole.tui.screens.dialogs import (
    ChoiceDialog,
    ConfirmDialog,
    FormDialog,
    InputDialog,
    TextDialog,
    TypeNameDialog,
)
from mqconsole.tui.screens.edit import EditScreen
from mqconsole.tui.screens.messages import MessagesScreen
from mqconsole.tui.widgets.payload import PayloadView

from .conftest import DLQ, depth, open_queue, screen_text, settle, wait_for


def journal(tmp_path: Path) -> list:
    return list(Journal(tmp_path / "journal.jsonl").read())


async def answer(app, pilot, dialog_type, *keys: str, value: str | None = None) -> None:
    await wait_for(app, pilot, lambda: isinstance(app.screen, dialog_type))
    if value is not None:
        # (the dialog may be the screen before its field is mounted: on a busy machine the
        # query came first — NoMatches 'Input' in the loaded run)
        await wait_for(app, pilot, lambda: bool(app.screen.query(Input)))
        app.screen.query_one(Input).value = value
    await pilot.press(*keys)


async def result(app, pilot) -> str:
    """Wait for the result of an operation; return its text and close it."""
    await wait_for(app, pilot, lambda: isinstance(app.screen, TextDialog))
    text = str(app.screen.body)
    await pilot.press("enter")
    await settle(app, pilot)
    return text


async def test_move_marked_messages(make_app, qm, tmp_path):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await open_queue(app, pilot, DLQ)
        await settle(app, pilot)
        ids = [app.screen.model.row(i).msgid for i in (0, 1)]
        await pilot.press("space", "space", "m")
        await answer(app, pilot, InputDialog, "enter", value="APP.ORDERS")
        # off the dead-letter queue: strip the header or keep it (kept here, and warned)
        await wait_for(app, pilot, lambda: isinstance(app.screen, ChoiceDialog))
        assert "--strip-dlh" in screen_text(app)
        await pilot.press("down", "enter")
        await wait_for(app, pilot, lambda: isinstance(app.screen, ConfirmDialog))
        assert "2 marked messages" in str(app.screen.body)
        assert "The dead-letter header is kept" in str(app.screen.body)
        assert "→ APP.ORDERS: 2" in str(app.screen.body)  # the plan
        await pilot.press("y")
        text = await result(app, pilot)
        assert "Moved 2 of 2 messages" in text and "APP.ORDERS: 2" in text
        await wait_for(app, pilot, lambda: isinstance(app.screen, MessagesScreen)
                       and app.screen.model is not None and app.screen.model.done
                       and app.screen.model.count == 238)
    assert depth(qm, DLQ) == 238 and depth(qm, "APP.ORDERS") == 42
    on_orders = {bytes(v.md.msg_id) for v in iter_views(qm, "APP.ORDERS")}
    assert set(ids) <= on_orders
    records = journal(tmp_path)  # one entry, written by the operation
    assert len(records) == 1
    assert records[-1].operation == "move" and len(records[-1].msgids) == 2
    assert records[-1].destinations == ["APP.ORDERS"] and records[-1].profile == "test"


async def test_copy_the_message_under_the_cursor(make_app, qm):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await open_queue(app, pilot, "APP.ORDERS")
        await settle(app, pilot)
        await pilot.press("c")
        await answer(app, pilot, InputDialog, "enter", value="APP.AUDIT")
        await answer(app, pilot, ConfirmDialog, "y")
        assert "Copied 1 of 1 message" in await result(app, pilot)
    assert depth(qm, "APP.ORDERS") == 40 and depth(qm, "APP.AUDIT") == 1


async def test_moving_everything_needs_the_queue_name_typed(make_app, qm):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await open_queue(app, pilot, "APP.PAYMENTS")
        await settle(app, pilot)
        await pilot.press("asterisk", "m")
        await answer(app, pilot, InputDialog, "enter", value="APP.AUDIT")
        await answer(app, pilot, TypeNameDialog, "enter", value="APP.PAYMENT")  # a typo
        await pilot.pause()
        assert isinstance(app.screen, TypeNameDialog)
        assert "nothing was done" in screen_text(app)
        assert depth(qm, "APP.PAYMENTS") == 25
        app.screen.query_one(Input).value = "APP.PAYMENTS"
        await pilot.press("enter")
        assert "Moved 25 of 25 messages" in await result(app, pilot)
    assert depth(qm, "APP.PAYMENTS") == 0 and depth(qm, "APP.AUDIT") == 25


async def test_resubmit_a_filtered_selection_shows_its_plan_first(make_app, qm, tmp_path):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await open_queue(app, pilot, DLQ)
        await pilot.press("slash")
        app.screen.query_one("#filter-input").value = "dest = ZOS.INBOUND"
        await pilot.press("enter")
        await wait_for(app, pilot, lambda: app.screen.model.where_text is not None
                       and app.screen.model.done)
        await pilot.press("asterisk", "R")
        await wait_for(app, pilot, lambda: isinstance(app.screen, ConfirmDialog))
        body = str(app.screen.body)
        assert "every message matching dest = ZOS.INBOUND" in body
        assert "→ ZOS.INBOUND: 20" in body
        await pilot.press("y")
        text = await result(app, pilot)
        assert "Resubmitted 20 of 20 messages" in text
    assert depth(qm, DLQ) == 220 and depth(qm, "ZOS.INBOUND") == 20
    assert all(v.dlh is None for v in iter_views(qm, "ZOS.INBOUND"))  # header removed
    rec = journal(tmp_path)[-1]
    assert rec.operation == "resubmit" and {o.destination for o in rec.outcomes} == {
        "ZOS.INBOUND"}


async def test_resubmit_counts_a_given_up_destinations_messages_as_not_tried(make_app, qm,
                                                                            tmp_path):
    """Issue 24 item 2: the demo's dead-letter queue resubmitted whole; APP.SMALL and three
    more are given up after ten refusals — their later messages are 'Not tried' with why,
    never 'Skipped', in the result and in the journal."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await open_queue(app, pilot, DLQ)
        await pilot.press("asterisk", "R")
        await answer(app, pilot, ConfirmDialog, "y")
        text = await result(app, pilot)
    flat = " ".join(text.split())
    assert "Skipped" not in flat
    assert ("Not tried: 105 (APP.SMALL refused 10 messages in a row (last: MQRC_Q_FULL "
            "(2053)), so it was given up: 50 messages for it were not tried;") in flat
    assert f"they stayed on {DLQ})" in flat
    assert depth(qm, DLQ) == 145
    rec = journal(tmp_path)[-1]
    assert rec.operation == "resubmit" and rec.details["not_tried"] == 105
    assert rec.details["skipped"] == 0 and "given up" in rec.details["not_tried_why"]


async def test_resubmit_from_a_shared_backout_queue_asks_where_to(make_app, qm):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await open_queue(app, pilot, "APP.SHARED.BOQ")
        await settle(app, pilot)
        await pilot.press("R")
        await wait_for(app, pilot, lambda: isinstance(app.screen, ChoiceDialog))
        assert "APP.INVOICES" in screen_text(app) and "APP.SHIPPING" in screen_text(app)
        await pilot.press("enter")  # the first: APP.INVOICES
        await answer(app, pilot, ConfirmDialog, "y")
        assert "Resubmitted 1 of 1 message" in await result(app, pilot)
    assert depth(qm, "APP.SHARED.BOQ") == 5 and depth(qm, "APP.INVOICES") == 13


async def test_delete_saves_a_backup_first(make_app, qm, tmp_path):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await open_queue(app, pilot, "APP.ORDERS.BOQ")
        await settle(app, pilot)
        doomed = app.screen.model.row(0).msgid
        await pilot.press("enter")  # from the detail screen
        await wait_for(app, pilot, lambda: isinstance(app.screen, DetailScreen))
        await pilot.press("d")
        await answer(app, pilot, ConfirmDialog, "y")
        text = await result(app, pilot)
        assert "Deleted 1 of 1 message" in text and "Saved to" in text
        assert isinstance(app.screen, MessagesScreen)  # the detail of a deleted message closed
    assert depth(qm, "APP.ORDERS.BOQ") == 4
    backups = list((tmp_path / "backups").glob("*"))
    assert len(backups) == 1
    assert [bytes(m.md.msg_id) for m in read_messages(backups[0])] == [doomed]
    assert journal(tmp_path)[-1].backup == str(backups[0])


async def test_a_move_from_the_detail_goes_back_to_the_list(make_app, qm):
    """As delete and edit do (issue 15 item 11): the moved message is not there any more;
    a copy leaves it, and stays on its detail."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await open_queue(app, pilot, "APP.ORDERS.BOQ")
        await settle(app, pilot)
        await pilot.press("enter")
        await wait_for(app, pilot, lambda: isinstance(app.screen, DetailScreen))
        await pilot.press("c")
        await answer(app, pilot, InputDialog, "enter", value="APP.AUDIT")
        await answer(app, pilot, ConfirmDialog, "y")
        assert "Copied 1 of 1 message" in await result(app, pilot)
        assert isinstance(app.screen, DetailScreen)  # a copy: the message is still there
        await pilot.press("m")
        await answer(app, pilot, InputDialog, "enter", value="APP.AUDIT")
        await answer(app, pilot, ConfirmDialog, "y")
        assert "Moved 1 of 1 message" in await result(app, pilot)
        assert isinstance(app.screen, MessagesScreen)  # the detail of a moved message closed
    assert depth(qm, "APP.ORDERS.BOQ") == 4 and depth(qm, "APP.AUDIT") == 2


async def test_edit_a_payload_in_the_text_area(make_app, qm, tmp_path):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await open_queue(app, pilot, "APP.ORDERS")
        await settle(app, pilot)
        target = app.screen.model.row(0).msgid
        await pilot.press("e")
        await wait_for(app, pilot, lambda: isinstance(app.screen, EditScreen))
        assert app.screen.kind == "json"
        app.screen.query_one("#payload", PayloadView).load_text('{"order": "fixed"}')
        app.screen.query_one("#md-priority", Input).value = "7"
        await pilot.press("ctrl+o")
        await wait_for(app, pilot, lambda: isinstance(app.screen, ConfirmDialog))
        import re

        assert re.search(r"MQMD: Priority: \d+ → 7", str(app.screen.body))  # old and new
        await pilot.press("y")
        assert "Replaced 1 of 1 message" in await result(app, pilot)
    views = [v for v in iter_views(qm, "APP.ORDERS") if bytes(v.md.msg_id) == target]
    assert len(views) == 1 and views[0].text == '{"order": "fixed"}'
    assert views[0].priority == 7 and depth(qm, "APP.ORDERS") == 40
    # the journal says what `mqconsole edit` would: each field before and after
    rec = journal(tmp_path)[-1]
    assert rec.operation == "edit" and rec.msgids == [bytes(target).hex().upper()]
    assert rec.details["changes"]["priority"]["after"] == 7
    assert rec.details["changes"]["priority"]["before"] != 7
    assert rec.details["payload_changed"] is True and rec.details["tui"] is True
    assert rec.details["context"] == "set_all" and rec.details["position"] >= 1


async def test_save_then_load(make_app, qm, tmp_path):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await open_queue(app, pilot, "APP.SHIPPING")
        await settle(app, pilot)
        await pilot.press("asterisk", "w")
        target = tmp_path / "shipping.dmp"
        await answer(app, pilot, InputDialog, "enter", value=str(target))
        assert "Saved 8 of 8 messages" in await result(app, pilot)
        assert len(list(read_messages(target))) == 8
        assert depth(qm, "APP.SHIPPING") == 8  # saving never changes the queue
        await pilot.press("escape")
        await settle(app, pilot)
        table = app.screen.query_one("#queues", DataTable)
        names = [str(table.get_row_at(i)[0]).strip() for i in range(table.row_count)]
        table.move_cursor(row=names.index("APP.AUDIT"))
        await pilot.press("l")
        await answer(app, pilot, InputDialog, "enter", value=str(target))
        await wait_for(app, pilot, lambda: isinstance(app.screen, FormDialog))
        assert "Put 8 messages" in str(app.screen.note)
        await pilot.press("ctrl+o")
        assert "Loaded 8 of 8 messages" in await result(app, pilot)
    assert depth(qm, "APP.AUDIT") == 8


async def test_load_takes_a_range_and_skips_what_is_there(make_app, qm, tmp_path):
    """The CLI's --range and --skip-present in the console's load form (issue 22 item 9):
    a bad range is said in the form; messages 3-8 with 1-5 already there put 6-8 only."""
    from textual.widgets import Checkbox

    from mqconsole.ops.operation import Load, Operation, Save
    from mqconsole.ops.selection import Selection

    target = tmp_path / "shipping.dmp"
    Operation(Save("APP.SHIPPING", str(target), Selection(all=True)), journal=None).run(qm)
    Operation(Load(str(target), "APP.AUDIT", last=5), journal=None).run(qm)
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await open_queue(app, pilot, "APP.AUDIT")
        await settle(app, pilot)
        await pilot.press("l")
        await answer(app, pilot, InputDialog, "enter", value=str(target))
        await wait_for(app, pilot, lambda: isinstance(app.screen, FormDialog))
        app.screen.query_one("#f_range", Input).value = "3-80"
        await pilot.press("ctrl+o")
        await wait_for(app, pilot, lambda: "does not hold: it holds 8 messages"
                       in str(app.screen.query_one("#problem").render()))
        assert isinstance(app.screen, FormDialog)  # not started: the form says why
        app.screen.query_one("#f_range", Input).value = "3-8"
        app.screen.query_one("#f_skip_present", Checkbox).value = True
        await pilot.press("ctrl+o")
        text = await result(app, pilot)
        assert "Loaded 3 of 6 messages" in text
        assert "Already on APP.AUDIT: 3 (same MsgId and body: not put again)" in text
    bodies = [bytes(m.body) for m in read_messages(target)]
    on = [bytes(v.message.body) for v in iter_views(qm, "APP.AUDIT")]
    assert on == bodies[:8]
    rec = journal(tmp_path)[-1]
    assert rec.details["range"] == "3-8" and rec.details["skip_present"] is True


async def test_set_queue_attributes(make_app, qm, tmp_path):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        table = app.screen.query_one("#queues", DataTable)
        names = [str(table.get_row_at(i)[0]).strip() for i in range(table.row_count)]
        table.move_cursor(row=names.index("APP.PAYMENTS"))
        await pilot.press("a")
        await wait_for(app, pilot, lambda: isinstance(app.screen, FormDialog))
        app.screen.query_one("#f_bothresh", Input).value = "3"
        app.screen.query_one("#f_boqname", Input).value = "APP.ORDERS.BOQ"
        await pilot.press("ctrl+o")
        await wait_for(app, pilot, lambda: isinstance(app.screen, ConfirmDialog))
        assert "BOTHRESH: 0 → 3" in str(app.screen.body)
        await pilot.press("y")
        await wait_for(app, pilot, lambda: any("BOTHRESH: 0 → 3" in str(n.message)
                                               for n in app._notifications))
    attrs = qm.inquire_queue("APP.PAYMENTS")
    assert attrs.bothresh == 3 and attrs.boqname.strip() == "APP.ORDERS.BOQ"
    rec = journal(tmp_path)[-1]
    assert rec.operation == "queue-set" and rec.details["changes"]["bothresh"] == {
        "before": 0, "after": 3}


async def test_put_new_messages_on_the_queue_shown(make_app, qm, tmp_path):
    """p: the command line's put (the same operation: checked, journaled) from a form."""
    app = make_app()
    before = depth(qm, "APP.AUDIT")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await open_queue(app, pilot, "APP.AUDIT")
        await settle(app, pilot)
        await pilot.press("p")
        await wait_for(app, pilot, lambda: isinstance(app.screen, FormDialog))
        app.screen.query_one("#f_text", Input).value = "hello \x1b[31m"
        app.screen.query_one("#f_count", Input).value = "0"
        await pilot.press("ctrl+o")
        await wait_for(app, pilot, lambda: "A put needs a count of at least 1, not 0."
                       in screen_text(app))
        app.screen.query_one("#f_count", Input).value = "2"
        await pilot.press("ctrl+o")
        await wait_for(app, pilot, lambda: any("Put 2 of 2 messages on APP.AUDIT"
                                               in str(n.message) for n in app._notifications))
    assert depth(qm, "APP.AUDIT") == before + 2
    bodies = [v.payload for v in iter_views(qm, "APP.AUDIT")][-2:]
    assert bodies == [b"hello \x1b[31m"] * 2
    rec = journal(tmp_path)[-1]
    assert rec.operation == "put" and rec.destinations == ["APP.AUDIT"] and len(rec.msgids) == 2


async def test_define_a_queue_from_the_queues_screen(make_app, qm, tmp_path):
    """N: the command line's queue define from a form; bad input is said in the form."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await pilot.press("N")
        await wait_for(app, pilot, lambda: isinstance(app.screen, FormDialog))
        app.screen.query_one("#f_name", Input).value = "bad name!"
        await pilot.press("ctrl+o")
        await wait_for(app, pilot, lambda: "is not a valid MQ queue name" in screen_text(app))
        app.screen.query_one("#f_name", Input).value = "APP.NEW"
        app.screen.query_one("#f_max_depth", Input).value = "50"
        await pilot.press("ctrl+o")
        await wait_for(app, pilot, lambda: any("Queue APP.NEW defined" in str(n.message)
                                               for n in app._notifications))
    assert qm.inquire_queue("APP.NEW").max_depth == 50
    rec = journal(tmp_path)[-1]
    assert rec.operation == "queue-define" and rec.details["attributes"]["max_depth"] == 50


async def test_a_read_only_profile_neither_puts_nor_defines(make_app, qm):
    app = make_app(read_only=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await pilot.press("N", "p")
        await pilot.pause()
        assert not isinstance(app.screen, FormDialog)
        commands = {c.action for c in app.screen.commands()}
        assert not commands & {"put", "define_queue"}
    assert "APP.NEW" not in {q.name for q in qm.list_queues("*")}


async def test_a_boqname_naming_no_queue_is_warned_of(make_app, qm, tmp_path):
    """Issue 15 item 5: MQ allows a BOQNAME that names no queue (it may be defined later);
    the confirmation warns of it as the CLI does, and the change is made when confirmed."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        table = app.screen.query_one("#queues", DataTable)
        names = [str(table.get_row_at(i)[0]).strip() for i in range(table.row_count)]
        table.move_cursor(row=names.index("APP.PAYMENTS"))
        await pilot.press("a")
        await wait_for(app, pilot, lambda: isinstance(app.screen, FormDialog))
        app.screen.query_one("#f_boqname", Input).value = "APP.PAYMENTS.BOQ"
        await pilot.press("ctrl+o")
        await wait_for(app, pilot, lambda: isinstance(app.screen, ConfirmDialog))
        body = str(app.screen.body)
        assert "Warning: BOQNAME APP.PAYMENTS.BOQ names a queue that does not exist on QM1" \
            in body
        await pilot.press("y")
        await wait_for(app, pilot, lambda: any("BOQNAME" in str(n.message)
                                               for n in app._notifications))
    assert qm.inquire_queue("APP.PAYMENTS").boqname.strip() == "APP.PAYMENTS.BOQ"
    rec = journal(tmp_path)[-1]
    assert rec.operation == "queue-set" and any(
        "APP.PAYMENTS.BOQ names a queue that does not exist" in w
        for w in rec.details.get("warnings", []))


async def test_a_refused_put_is_reported_with_its_reason(make_app, qm):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await open_queue(app, pilot, DLQ)
        await settle(app, pilot)
        await pilot.press("m")
        await answer(app, pilot, InputDialog, "enter", value="APP.LEGACY")  # put-inhibited
        await answer(app, pilot, ChoiceDialog, "down", "enter")  # keep the header
        await wait_for(app, pilot, lambda: isinstance(app.screen, ConfirmDialog))
        # the plan predicts what the CLI's dry run predicts: one planner
        assert "✗ 1 on APP.LEGACY: MQRC_PUT_INHIBITED (2051)" in str(app.screen.body)
        await pilot.press("y")
        text = await result(app, pilot)
        assert "Failed: 1" in text and "MQRC_PUT_INHIBITED (2051)" in text
    assert depth(qm, DLQ) == 240


class Slow:
    """A kind of operation that reports progress until it is stopped."""

    journaled = True

    def describe(self):
        from mqconsole.ops.operation import Description

        return Description("move", "moving slowly", source="APP.ORDERS",
                           destination="APP.AUDIT")

    def validate(self, qm) -> None:
        pass

    def execute(self, step):
        from mqconsole.ops.result import OperationResult

        for n in range(1000):
            step.control.report(n, 1000)
            if step.control.cancel.wait(0.01):
                return OperationResult("move", "APP.ORDERS", "APP.AUDIT", selected=1000,
                                       done=n, cancelled=True)
        raise AssertionError("never stopped")


async def test_a_running_operation_shows_progress_and_can_be_stopped(make_app, tmp_path):
    from mqconsole.tui.screens.operation import OperationDialog

    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        app.screen.actions.start(Slow(), "Move APP.ORDERS → APP.AUDIT")
        await wait_for(app, pilot, lambda: isinstance(app.screen, OperationDialog),
                       workers=False)
        await wait_for(app, pilot, lambda: "of 1,000 messages" in screen_text(app),
                       workers=False)
        await pilot.press("escape")
        text = await result(app, pilot)
        assert "Stopped by the operator" in text
    rec = journal(tmp_path)[-1]  # written by the operation, once
    assert rec.details.get("cancelled") is True and rec.details.get("tui") is True
    assert rec.stopped() == "by escape"  # the journal says who stopped it (issue 17)
    assert len(journal(tmp_path)) == 1


async def test_the_journal_screen_lists_what_was_done(make_app, qm):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await open_queue(app, pilot, "APP.ORDERS")
        await settle(app, pilot)
        await pilot.press("c")
        await answer(app, pilot, InputDialog, "enter", value="APP.AUDIT")
        await answer(app, pilot, ConfirmDialog, "y")
        await result(app, pilot)
        await pilot.press("J")
        await wait_for(app, pilot, lambda: "1 of 1 records" in screen_text(app))
        assert "copy" in screen_text(app) and "APP.ORDERS → APP.AUDIT" in screen_text(app)
        await pilot.press("enter")  # the record: its counts, then its MsgIds
        from mqconsole.tui.screens.journal_record import JournalRecordScreen

        await wait_for(app, pilot, lambda: isinstance(app.screen, JournalRecordScreen)
                       and app.screen.outcomes is not None)
        await pilot.pause()
        assert "1 done · 0 failed · 0 skipped" in screen_text(app)
        [outcome] = app.screen.outcomes
        assert (outcome.outcome, outcome.destination) == ("done", "APP.AUDIT")


async def test_the_attributes_dialog_does_what_its_hint_says(make_app, qm):
    """'enter / ctrl+o: OK': enter on a focused checkbox is OK, not a toggle (space ticks
    it); the change asked is then HARDENBO: NOHARDENBO → HARDENBO, once."""
    from textual.widgets import Checkbox

    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        table = app.screen.query_one("#queues", DataTable)
        names = [str(table.get_row_at(i)[0]).strip() for i in range(table.row_count)]
        table.move_cursor(row=names.index("APP.PAYMENTS"))
        await pilot.press("a")
        await wait_for(app, pilot, lambda: isinstance(app.screen, FormDialog))
        tick = app.screen.query_one("#f_hardenbo", Checkbox)
        tick.focus()
        await pilot.pause()
        await pilot.press("space")
        await pilot.pause()
        assert tick.value is True
        await pilot.press("enter")
        await wait_for(app, pilot, lambda: isinstance(app.screen, ConfirmDialog))
        assert "HARDENBO: NOHARDENBO → HARDENBO" in str(app.screen.body)
        await pilot.press("n")
    assert qm.inquire_queue("APP.PAYMENTS").hardenbo is False  # answered no


async def test_at_80x24_the_define_queue_form_keeps_its_key_hints_on_screen(make_app):
    """Five fields are taller than 24 rows: they scroll, and the hints under them stay."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await pilot.press("N")
        await wait_for(app, pilot, lambda: isinstance(app.screen, FormDialog))
        await pilot.pause()
        assert "enter / ctrl+o: OK" in screen_text(app)
        assert "escape: cancel" in screen_text(app)
