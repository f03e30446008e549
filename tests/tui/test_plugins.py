"""Site plugins in the console: the Decoded tab, actions in the command palette (dangerous
ones confirmed by typing the queue name, absent in read-only profiles), plugin problems as
one notification each, and ``operation_done`` after an operation run from the console.
Plugins are registered per test (the ``register_plugins`` fixture)."""

from __future__ import annotations

import threading

from textual.command import CommandInput, CommandPalette

from mqconsole.ops.journal import Journal
from mqconsole.plugins import Action, ActionSummary, Decoded, hookimpl
from mqconsole.tui.screens.detail import DetailScreen
from mqconsole.tui.screens.dialogs import ConfirmDialog, InputDialog, TextDialog, TypeNameDialog
from mqconsole.tui.widgets.payload import PayloadView

from .conftest import DLQ, all_segments, depth, open_queue, screen_text, settle, wait_for

HOSTILE = "order \x1b[31mRED\x1b[0m [bold]not bold[/bold] \x1b]52;c;cGF5bG9hZA==\x07"


class OrderDecoder:
    @hookimpl
    def mqconsole_decode_payload(self, message, payload):
        if payload.startswith(b"{"):
            return Decoded("Order record", HOSTILE)
        return None


class BrokenDecoder:
    @hookimpl
    def mqconsole_decode_payload(self, message, payload):
        raise RuntimeError("layout file missing")


class Tickets:
    """A harmless action on the selection, and a dangerous one on the whole queue."""

    def __init__(self) -> None:
        self.got: dict[str, list] = {}

    def _run(self, name):
        def run(context, messages):
            self.got[name] = [bytes(m.md.msg_id) for m in messages]
            return ActionSummary(done=len(messages), sentence=f"{name}: ticket T-1 written")
        return run

    @hookimpl
    def mqconsole_actions(self):
        return [Action("ticket", "Write a ticket", "selection", False, self._run("ticket")),
                Action("purge", "Purge with care", "queue", True, self._run("purge"))]


class Done:
    def __init__(self) -> None:
        self.summaries: list = []

    @hookimpl
    def mqconsole_operation_done(self, summary):
        self.summaries.append(summary)


def journal(tmp_path) -> list:
    return list(Journal(tmp_path / "journal.jsonl").read())


async def to_detail(app, pilot, queue: str) -> None:
    await settle(app, pilot)
    await open_queue(app, pilot, queue)
    await settle(app, pilot)
    await pilot.press("enter")
    await wait_for(app, pilot, lambda: isinstance(app.screen, DetailScreen))


async def palette(app, pilot, query: str) -> None:
    await pilot.press("colon")
    await wait_for(app, pilot, lambda: isinstance(app.screen, CommandPalette))
    app.screen.query_one(CommandInput).value = query
    await pilot.pause()


# -- the Decoded tab ---------------------------------------------------------------------------

async def test_the_decoded_tab_shows_a_decoder_result_as_plain_safe_text(
        make_app, register_plugins):
    app = make_app(plugins=register_plugins(OrderDecoder()))
    async with app.run_test(size=(120, 30)) as pilot:
        await to_detail(app, pilot, "APP.ORDERS")
        await pilot.press("7")
        view = app.screen.query_one("#decoded-view", PayloadView)
        await wait_for(app, pilot, lambda: "Order record" in view.text)
        assert "\\x1b[31mRED" in view.text and "[bold]not bold[/bold]" in view.text
        assert "\x1b" not in view.text and "\x07" not in view.text
        text = screen_text(app)
        assert "7 Decoded" in text and "OrderDecoder" in text
        assert not any("\x1b" in s.text for s in all_segments(app))


async def test_the_decoded_tab_says_when_no_decoder_recognised_the_payload(
        make_app, register_plugins):
    app = make_app(plugins=register_plugins(OrderDecoder()))
    async with app.run_test(size=(120, 30)) as pilot:
        await to_detail(app, pilot, DLQ)  # its messages are not JSON records
        await pilot.press("7")
        await wait_for(app, pilot,
                       lambda: "No site decoder recognised this payload" in screen_text(app))


async def test_without_a_decoder_there_is_no_decoded_tab(make_app, register_plugins):
    app = make_app(plugins=register_plugins(Tickets()))
    async with app.run_test(size=(120, 30)) as pilot:
        await to_detail(app, pilot, "APP.ORDERS")
        assert "Decoded" not in screen_text(app)
        await pilot.press("7")
        await pilot.pause()
        assert any("No site plugin decodes" in str(n.message) for n in app._notifications)


async def test_a_raising_decoder_is_one_notification_and_the_view_goes_on(
        make_app, register_plugins):
    app = make_app(plugins=register_plugins(BrokenDecoder()))
    async with app.run_test(size=(120, 30)) as pilot:
        await to_detail(app, pilot, "APP.ORDERS")
        await pilot.press("escape", "down", "enter")  # a second message: no second report
        await wait_for(app, pilot, lambda: isinstance(app.screen, DetailScreen))
        await settle(app, pilot)
        said = [n for n in app._notifications if "layout file missing" in str(n.message)]
        assert len(said) == 1 and "BrokenDecoder" in str(said[0].message)
        assert isinstance(app.screen, DetailScreen)


async def test_a_plugin_that_did_not_load_is_one_notification(make_app, register_plugins):
    host = register_plugins(Tickets())
    host.record("site_layouts", source="/etc/mqconsole/plugins/site_layouts.py",
                status="error: site_layouts could not be imported: SyntaxError: line 3")
    app = make_app(plugins=host)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(app, pilot)
        said = [n for n in app._notifications if "site_layouts" in str(n.message)]
        assert len(said) == 1 and "SyntaxError" in str(said[0].message)


# -- actions in the command palette -----------------------------------------------------------

async def test_a_plugin_action_runs_from_the_palette_on_the_marked_messages(
        make_app, tmp_path, register_plugins):
    tickets, done = Tickets(), Done()
    app = make_app(plugins=register_plugins(tickets, done))
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(app, pilot)
        await open_queue(app, pilot, "APP.ORDERS")
        await settle(app, pilot)
        marked = [app.screen.model.row(i).msgid for i in (0, 1)]
        await pilot.press("space", "space")
        await palette(app, pilot, "ticket")
        await wait_for(app, pilot, lambda: "Write a ticket" in screen_text(app))
        assert "2 marked messages" in screen_text(app)
        await pilot.press("down", "enter")
        await wait_for(app, pilot, lambda: isinstance(app.screen, TextDialog))
        text = str(app.screen.body)
        assert "Handled 2 of 2 messages" in text and "ticket: ticket T-1 written" in text
    assert tickets.got["ticket"] == marked
    rec = journal(tmp_path)[-1]
    assert rec.operation == "action" and rec.details["action"] == "ticket"
    assert [s.kind for s in done.summaries] == ["action"]


class Peek:
    """A message action: exactly one message, the one under the cursor."""

    def __init__(self) -> None:
        self.got: list[bytes] = []

    def _run(self, context, messages):
        self.got.extend(bytes(m.md.msg_id) for m in messages)
        return ActionSummary(done=len(messages), sentence="peeked")

    @hookimpl
    def mqconsole_actions(self):
        return [Action("peek", "Peek at it", "message", False, self._run)]


async def test_a_message_action_gets_the_message_under_the_cursor(make_app, register_plugins):
    """The operation holds a message action to one message; the console gives it one."""
    peek = Peek()
    app = make_app(plugins=register_plugins(peek))
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(app, pilot)
        await open_queue(app, pilot, "APP.ORDERS")
        await settle(app, pilot)
        await pilot.press("down")
        row = app.screen.model.row(1).msgid
        await palette(app, pilot, "peek")
        await wait_for(app, pilot, lambda: "Peek at it" in screen_text(app))
        await pilot.press("down", "enter")
        await wait_for(app, pilot, lambda: isinstance(app.screen, TextDialog))
        assert "Handled 1 of 1 message" in str(app.screen.body)
    assert peek.got == [row]


async def test_a_dangerous_plugin_action_is_confirmed_by_typing_the_queue_name(
        make_app, register_plugins):
    tickets = Tickets()
    app = make_app(plugins=register_plugins(tickets))
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(app, pilot)
        await open_queue(app, pilot, "APP.SHIPPING")
        await settle(app, pilot)
        await palette(app, pilot, "purge")
        await wait_for(app, pilot, lambda: "Purge with care" in screen_text(app))
        await pilot.press("down", "enter")
        await wait_for(app, pilot, lambda: isinstance(app.screen, TypeNameDialog))
        app.screen.query_one("#name").value = "APP.SHIPPIN"  # a typo: nothing runs
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, TypeNameDialog) and "purge" not in tickets.got
        app.screen.query_one("#name").value = "APP.SHIPPING"
        await pilot.press("enter")
        await wait_for(app, pilot, lambda: isinstance(app.screen, TextDialog))
        assert "Handled 8 of 8 messages" in str(app.screen.body)
    assert len(tickets.got["purge"]) == 8


async def test_a_read_only_profile_has_no_dangerous_plugin_action(make_app, register_plugins):
    tickets = Tickets()
    app = make_app(read_only=True, plugins=register_plugins(tickets))
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(app, pilot)
        await open_queue(app, pilot, "APP.SHIPPING")
        await settle(app, pilot)
        await palette(app, pilot, "purge")
        await wait_for(app, pilot, lambda: "No matches found" in screen_text(app))
        assert "Purge with care" not in screen_text(app)
        app.screen.query_one(CommandInput).value = "ticket"  # a harmless one stays
        await wait_for(app, pilot, lambda: "Write a ticket" in screen_text(app))
    assert tickets.got == {}


async def test_the_queues_screen_offers_queue_actions_only(make_app, register_plugins):
    app = make_app(plugins=register_plugins(Tickets()))
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(app, pilot)
        await palette(app, pilot, "ticket")
        await wait_for(app, pilot, lambda: "No matches found" in screen_text(app))
        app.screen.query_one(CommandInput).value = "purge"
        await wait_for(app, pilot, lambda: "Purge with care" in screen_text(app))


# -- put checks -------------------------------------------------------------------------------

class Guard:
    @hookimpl
    def mqconsole_check_put(self, operation, message, destination):
        return f"nothing goes to {destination} by {operation}" if destination == "APP.AUDIT" \
            else None


async def test_a_refusing_check_in_a_console_move_is_planned_and_leaves_the_message(
        make_app, qm, tmp_path, register_plugins):
    """The console's move asks the same operation: the plan in the confirmation says the
    refusal with the plugin's sentence, the message stays, the summary and journal say why."""
    app = make_app(plugins=register_plugins(Guard()))
    before = depth(qm, "APP.ORDERS")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        await open_queue(app, pilot, "APP.ORDERS")
        await settle(app, pilot)
        await pilot.press("m")
        await wait_for(app, pilot, lambda: isinstance(app.screen, InputDialog))
        app.screen.query_one("#value").value = "APP.AUDIT"
        await pilot.press("enter")
        await wait_for(app, pilot, lambda: isinstance(app.screen, ConfirmDialog))
        said = "refused by plugin Guard: nothing goes to APP.AUDIT by move"
        assert f"✗ 1 on APP.AUDIT: {said}" in str(app.screen.body)
        await pilot.press("y")
        await wait_for(app, pilot, lambda: isinstance(app.screen, TextDialog))
        text = str(app.screen.body)
        assert "Moved 0 of 1 message" in text and "Failed: 1" in text and said in text
    assert depth(qm, "APP.ORDERS") == before and depth(qm, "APP.AUDIT") == 0
    rec = journal(tmp_path)[-1]
    assert rec.operation == "move" and [o.reason_name for o in rec.outcomes] == [
        "REFUSED_BY_PLUGIN"]


# -- operation_done ---------------------------------------------------------------------------

async def test_operation_done_follows_an_operation_run_in_the_console(
        make_app, qm, register_plugins):
    done = Done()
    app = make_app(plugins=register_plugins(done))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await open_queue(app, pilot, "APP.ORDERS")
        await settle(app, pilot)
        await pilot.press("c")
        await wait_for(app, pilot, lambda: isinstance(app.screen, InputDialog))
        app.screen.query_one("#value").value = "APP.AUDIT"
        await pilot.press("enter")
        await wait_for(app, pilot, lambda: isinstance(app.screen, ConfirmDialog))
        await pilot.press("y")
        await wait_for(app, pilot, lambda: isinstance(app.screen, TextDialog))
    assert [(s.kind, s.counts["done"], s.dry_run) for s in done.summaries] == [
        ("copy", 1, False)]
    assert depth(qm, "APP.AUDIT") == 1


async def test_switching_profile_loads_that_profiles_plugins(demo_file, tmp_path, register_plugins):
    from mqconsole.backends.open import open_embedded
    from mqconsole.tui.app import MQConsoleApp
    from mqconsole.tui.context import REPO_THEMES, ProfileInfo, Settings

    test_host = register_plugins(Tickets())
    prod_host = register_plugins(Done())
    prod_host.record("site_layouts", status="error: site_layouts could not be imported")
    profiles = [ProfileInfo("test"), ProfileInfo("prod", read_only=True)]
    app = MQConsoleApp(lambda: open_embedded(str(demo_file)), profile=profiles[0],
                       profiles=profiles, connect_for=lambda p: open_embedded(str(demo_file)),
                       settings=Settings(refresh_seconds=0, themes_dirs=[REPO_THEMES],
                                         journal_path=tmp_path / "j.jsonl"),
                       plugins=test_host,
                       plugins_for=lambda p: prod_host if p.name == "prod" else test_host)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        assert app.ctx.plugins is test_host
        await pilot.press("P")
        await wait_for(app, pilot, lambda: type(app.screen).__name__ == "ProfileScreen")
        await pilot.press("down", "enter")
        await settle(app, pilot)
        assert app.read_only and app.ctx.plugins is prod_host
        assert any("site_layouts" in str(n.message) for n in app._notifications)


class HangingDecoder:
    """A decoder that does not return until the test lets it go."""

    def __init__(self) -> None:
        self.release = threading.Event()

    @hookimpl
    def mqconsole_decode_payload(self, message, payload):
        self.release.wait()
        return Decoded("Too late", "x")


async def test_a_decoder_that_never_returns_times_out_and_the_others_are_shown(
        make_app, register_plugins, monkeypatch):
    """Issue 28 item 8: each decoder has a time limit; one that does not answer is said to
    have timed out (once, and on the tab), the others' results are shown, and it is left
    running in a daemon thread, which neither the console nor the process's exit waits
    for."""
    monkeypatch.setattr(DetailScreen, "decode_limit", 0.5)
    hanging = HangingDecoder()
    app = make_app(plugins=register_plugins(hanging, OrderDecoder()))
    try:
        async with app.run_test(size=(120, 30)) as pilot:
            try:
                await to_detail(app, pilot, "APP.ORDERS")
                await pilot.press("7")
                view = app.screen.query_one("#decoded-view", PayloadView)
                await wait_for(app, pilot, lambda: "Order record" in view.text,
                               workers=False)
                assert ("decoder HangingDecoder timed out (no answer in 0.5 s)"
                        in screen_text(app))
                said = [n for n in app._notifications if "did not answer" in str(n.message)]
                assert len(said) == 1 and "HangingDecoder" in str(said[0].message)
                hung = [t for t in threading.enumerate()
                        if t.name == "mqconsole decoder HangingDecoder"]
                assert hung and all(t.daemon and t.is_alive() for t in hung)
            except BaseException:
                hanging.release.set()  # (a failure: let the console end)
                raise
            await pilot.press("escape", "q")
        assert all(t.is_alive() for t in hung)  # the console ended without waiting
    finally:
        hanging.release.set()
