"""Moving to a queue of another queue manager from the console (the CLI's
``--dest-embedded``): opened as the CLI opens it, warned of as the CLI warns."""

from __future__ import annotations

from mqconsole.backends.embedded import create_queue_manager
from mqconsole.backends.open import open_embedded
from mqconsole.mq.queue import QueueAttrs
from mqconsole.ops.browse import iter_views
from mqconsole.tui.screens.dialogs import ChoiceDialog, ConfirmDialog, InputDialog

from .conftest import depth, open_queue, screen_text, settle, wait_for
from .test_actions import answer, result


def other_qm(tmp_path):
    """Another embedded queue manager, QM2, with a queue IN.Q: its file."""
    other = tmp_path / "other.sqlite"
    qm2 = create_queue_manager(str(other), name="QM2")
    qm2.define_queue(QueueAttrs(name="IN.Q"))
    qm2.close()
    return other


async def test_move_a_message_to_another_embedded_queue_manager(make_app, qm, tmp_path):
    other = other_qm(tmp_path)
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        await open_queue(app, pilot, "APP.ORDERS")
        await settle(app, pilot)
        msgid = app.screen.model.row(0).msgid
        await pilot.press("m")
        await answer(app, pilot, InputDialog, "enter", value="@")  # another queue manager
        await answer(app, pilot, ChoiceDialog, "enter")  # an embedded file (no profiles)
        await answer(app, pilot, InputDialog, "enter", value=str(other))
        await wait_for(app, pilot, lambda: isinstance(app.screen, InputDialog)
                       and "QM2" in app.screen.title_text.plain)
        await answer(app, pilot, InputDialog, "enter", value="NO SUCH")  # a bad name: said
        assert "is not an MQ name" in screen_text(app)
        await answer(app, pilot, InputDialog, "enter", value="IN.Q")
        await answer(app, pilot, ConfirmDialog)
        body = str(app.screen.body)
        assert "to IN.Q on QM2" in body and "not atomic" in body
        await pilot.press("y")
        assert "Moved 1 of 1 message" in await result(app, pilot)
    assert depth(qm, "APP.ORDERS") == 39
    there = open_embedded(str(other))
    try:
        assert [bytes(v.md.msg_id) for v in iter_views(there, "IN.Q")] == [msgid]
    finally:
        there.close()


async def test_to_another_profile_and_a_read_only_one_is_refused(demo_file, qm, tmp_path):
    from mqconsole.backends.spec import BackendSpec
    from mqconsole.ops.destination import open_profile_destination
    from mqconsole.tui.app import MQConsoleApp
    from mqconsole.tui.context import REPO_THEMES, ProfileInfo, Settings

    from .conftest import NOW

    other = other_qm(tmp_path)
    profiles = {name: BackendSpec.embedded(str(other), profile=name)
                for name in ("other", "locked")}
    app = MQConsoleApp(lambda: open_embedded(str(demo_file)),
                       profile=ProfileInfo(name="test"),
                       profiles=[ProfileInfo(name=n) for n in ("test", "other", "locked")],
                       open_profile=lambda name, verb, ask: open_profile_destination(
                           profiles[name], verb, read_only=name == "locked",
                           ask_password=ask),
                       settings=Settings(refresh_seconds=0, clock=lambda: NOW,
                                         themes_dirs=[REPO_THEMES], save_dir=tmp_path,
                                         journal_path=tmp_path / "journal.jsonl",
                                         backup_dir=tmp_path / "backups"))
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        await open_queue(app, pilot, "APP.ORDERS")
        await settle(app, pilot)
        await pilot.press("m")
        await answer(app, pilot, InputDialog, "enter", value="@")
        await answer(app, pilot, ChoiceDialog)
        assert "Profile locked" in screen_text(app) and "Profile test" not in screen_text(app)
        await pilot.press("down", "enter")  # locked
        await wait_for(app, pilot, lambda: any("read-only: moving messages to it refused"
                                               in str(n.message) for n in app._notifications))
        await pilot.press("m")
        await answer(app, pilot, InputDialog, "enter", value="@")
        await answer(app, pilot, ChoiceDialog, "enter")  # other
        await wait_for(app, pilot, lambda: isinstance(app.screen, InputDialog)
                       and "QM2" in app.screen.title_text.plain)
        await answer(app, pilot, InputDialog, "enter", value="IN.Q")
        await answer(app, pilot, ConfirmDialog, "y")
        assert "Moved 1 of 1 message" in await result(app, pilot)
    assert depth(qm, "APP.ORDERS") == 39
    there = open_embedded(str(other))
    try:
        assert depth(there, "IN.Q") == 1
    finally:
        there.close()


async def test_off_the_dead_letter_queue_to_another_queue_manager_the_header_can_go(
        make_app, qm, tmp_path):
    """The choice the console offers on its own queue manager (``--strip-dlh``) is offered
    when the destination is on another one too."""
    from mqconsole.mq.chain import format_key

    from .test_actions import DLQ

    other = other_qm(tmp_path)
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        await open_queue(app, pilot, DLQ)
        await settle(app, pilot)
        msgid = app.screen.model.row(0).msgid
        await pilot.press("m")
        await answer(app, pilot, InputDialog, "enter", value="@")
        await answer(app, pilot, ChoiceDialog, "enter")  # an embedded file
        await answer(app, pilot, InputDialog, "enter", value=str(other))
        await wait_for(app, pilot, lambda: isinstance(app.screen, InputDialog)
                       and "QM2" in app.screen.title_text.plain)
        await answer(app, pilot, InputDialog, "enter", value="IN.Q")
        await wait_for(app, pilot, lambda: isinstance(app.screen, ChoiceDialog))
        assert "--strip-dlh" in screen_text(app)
        await pilot.press("enter")  # strip
        await answer(app, pilot, ConfirmDialog)
        body = str(app.screen.body)
        assert "headers are removed" in body and "not atomic" in body
        await pilot.press("y")
        assert "Moved 1 of 1 message" in await result(app, pilot)
    there = open_embedded(str(other))
    try:
        [view] = list(iter_views(there, "IN.Q"))
        assert bytes(view.md.msg_id) == msgid and format_key(view.md.format) != "MQDEAD"
    finally:
        there.close()


async def test_the_other_queue_managers_queues_complete_and_an_unknown_one_is_refused_first(
        make_app, qm, tmp_path):
    """Its queues are offered (a pick list and completion), a name it does not have is
    refused in the same dialog — before the dead-letter header's question — and the titles
    keep MQ names as they are (they were lower-cased: "copy to in.q on qm2")."""
    other = other_qm(tmp_path)
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        await open_queue(app, pilot, "SYSTEM.DEAD.LETTER.QUEUE")
        await settle(app, pilot)
        await pilot.press("c")
        await answer(app, pilot, InputDialog, "enter", value="@")
        await answer(app, pilot, ChoiceDialog, "enter")
        await answer(app, pilot, InputDialog, "enter", value=str(other))
        await wait_for(app, pilot, lambda: isinstance(app.screen, InputDialog)
                       and "QM2" in app.screen.title_text.plain)
        dialog = app.screen
        assert "IN.Q" in [value for value, _ in dialog.choices]
        await answer(app, pilot, InputDialog, "enter", value="NOT.THERE")
        assert isinstance(app.screen, InputDialog)  # still asking: no header question yet
        assert "QM2 has no queue NOT.THERE" in screen_text(app)
        await answer(app, pilot, InputDialog, "enter", value="IN.Q")
        await wait_for(app, pilot, lambda: isinstance(app.screen, ChoiceDialog | ConfirmDialog))
        assert "in.q" not in screen_text(app) and "qm2" not in screen_text(app)
