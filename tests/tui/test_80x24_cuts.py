"""Issue 24 item 4: at 80x24 nothing is cut where the meaning is — a snapshot of each screen
the trial named, and the words that matter asserted on the text the operator sees (a
snapshot alone does not say which words must be there). ``pytest --snapshot-update`` after
a deliberate change (look at the SVGs in ``__snapshots__`` before committing them)."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Input

from mqconsole.ops.journal import Journal, JournalEntry, Outcome
from mqconsole.tui.screens.dialogs import FormDialog
from mqconsole.tui.screens.edit import EditScreen
from mqconsole.tui.screens.replay import ReplayScreen
from mqconsole.tui.widgets.payload import PayloadView

from .conftest import DLQ, open_queue, screen_text, settle, wait_for
from .test_journal_snapshot import at

SIZE = (80, 24)
SCENARIO = Path(__file__).resolve().parents[2] / "examples" / "scenarios" / \
    "sib-blocked-retry.yaml"
LONG_ENDPOINT = "the model activation specification"  # ops.doctor.DEFAULT_ENDPOINT


async def quiet(app, pilot) -> None:
    """No notification on the picture: one lives 8 s, so whether it is still there would
    depend on the machine's speed."""
    app.clear_notifications()
    await settle(app, pilot)


def words(app) -> str:
    """The screen's words, its lines joined (a wrapped sentence reads whole)."""
    return " ".join(screen_text(app).split())


def test_the_status_line_keeps_the_marks_behind_a_msgid_filter(snap_compare, make_app):
    """A MsgId filter is 60 characters: the marks and how many it hides come before it."""

    async def ready(pilot):
        app = pilot.app
        await settle(app, pilot)
        await open_queue(app, pilot, DLQ)
        await wait_for(app, pilot, lambda: app.screen.model.done)
        lst = app.screen.query_one("#messages")
        for i in (1, 2):
            lst.cursor = i
            await pilot.press("space")
        shown = app.screen.model.row(0).msgid.hex().upper()
        await pilot.press("slash")
        app.screen.query_one("#filter-input").value = f"msgid = '{shown}'"
        await pilot.press("enter")
        await wait_for(app, pilot, lambda: app.screen.model.where_text is not None
                       and app.screen.model.done)
        lst.cursor = 0
        await pilot.press("space")
        await wait_for(app, pilot, lambda: lst.marked_count == 3)
        await settle(app, pilot)
        status = next(line for line in screen_text(app).split("\n") if "showing" in line)
        assert "showing 1 of 240 · 3 marked (2 hidden by the filter)" in status, status
        await quiet(app, pilot)

    assert snap_compare(make_app(), terminal_size=SIZE, run_before=ready)


def test_the_edit_check_wraps_its_reason_and_names_the_key(snap_compare, make_app):
    async def ready(pilot):
        app = pilot.app
        await settle(app, pilot)
        await open_queue(app, pilot, "APP.ORDERS")
        await settle(app, pilot)
        await pilot.press("e")
        await wait_for(app, pilot, lambda: isinstance(app.screen, EditScreen))
        app.screen.query_one("#payload", PayloadView).load_text('{"order": broken')
        await pilot.press("ctrl+o")
        await wait_for(app, pilot, lambda: isinstance(app.screen, EditScreen)
                       and app.screen.can_force)
        await settle(app, pilot)
        said = str(app.screen.query_one("#problem").content)
        reason = " ".join(said.split("\n")[0].split())
        assert reason in words(app), (reason, words(app))
        assert "ctrl+f: apply anyway" in words(app) and "--force" not in words(app)
        app.set_focus(None)  # a blinking cursor is on or off by chance: none in the picture
        await quiet(app, pilot)

    assert snap_compare(make_app(), terminal_size=SIZE, run_before=ready)


def test_the_journal_shows_180000_done_uncut(snap_compare, make_app, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the status names the journal's path: the same each run
    journal = Journal(tmp_path / "journal.jsonl")
    done = [Outcome(f"{i:06X}", "done", destination="APP.HOLD") for i in range(180_000)]
    entry = JournalEntry("move", qmgr="QM1", profile="test",
                         source="SYSTEM.DEAD.LETTER.QUEUE", destinations=["APP.HOLD"],
                         outcomes=done, time=at(10, 0), operator="alice", sudo_user=None)
    entry.msgids = [o.msgid for o in done]
    journal.append(entry)
    app = make_app(journal_path=Path("journal.jsonl"))

    async def ready(pilot):
        await settle(app, pilot)
        await pilot.press("J")
        await wait_for(app, pilot, lambda: "1 of 1 record" in screen_text(app))
        line = next(line for line in screen_text(app).split("\n") if " move " in line)
        assert line.split()[-3:] == ["180k", "0", "0"], line  # never 1800…
        assert "…" not in line.split("APP.HOLD")[-1]
        await quiet(app, pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=ready)


def test_the_define_queue_form_shows_its_key_hints(snap_compare, make_app):
    async def ready(pilot):
        app = pilot.app
        await settle(app, pilot)
        await pilot.press("N")
        await wait_for(app, pilot, lambda: isinstance(app.screen, FormDialog))
        await settle(app, pilot)
        assert "enter / ctrl+o: OK" in screen_text(app)
        assert "escape: cancel" in screen_text(app)
        await quiet(app, pilot)

    assert snap_compare(make_app(), terminal_size=SIZE, run_before=ready)


def test_replay_events_and_summary_keep_their_meaning(snap_compare, make_app, tmp_path,
                                                      monkeypatch):
    """A long endpoint name is shortened at a word in the list ("model AS") and said whole
    beside it; the summary says first why the replay ended ("ended: limits")."""
    monkeypatch.chdir(tmp_path)  # the scenario named relatively: the same picture each run
    Path("limits.yaml").write_text(SCENARIO.read_text().replace("PayMDB", LONG_ENDPOINT))

    async def ready(pilot):
        app = pilot.app
        await settle(app, pilot)
        app.open_replay("APP.ORDERS")
        await wait_for(app, pilot, lambda: isinstance(app.screen, ReplayScreen)
                       and bool(app.screen.query("#r-events")))
        app.screen.query_one("#r-queue", Input).value = "limits.yaml"
        await pilot.press("ctrl+o")
        await wait_for(app, pilot, lambda: app.screen.view is not None)
        await settle(app, pilot)
        text = screen_text(app)
        assert "ended: limits" in text
        listed = [line for line in text.split("\n") if " gets poison" in line]
        assert listed and all("model AS/1 gets poison" in line for line in listed)
        assert "activation specifi " not in text and not any(
            line.rstrip().endswith(("specifi", "activation specifi")) for line in
            text.split("\n"))
        pane = " ".join(str(app.screen.query_one("#r-contents").content).split())
        assert f"after event 1: {LONG_ENDPOINT}/1 gets poison from SIB.PAY" in pane
        await quiet(app, pilot)

    assert snap_compare(make_app(), terminal_size=SIZE, run_before=ready)


def test_the_dead_letter_plan_says_what_would_fail_now(snap_compare, make_app, tmp_path,
                                                       monkeypatch):
    """The handler's plan onto a queue that fills: its status line says first how many
    would fail now, each such row's outcome starts with it and its reason, and the line
    under the table says the highlighted row's outcome whole."""
    from mqconsole.tui.screens.dlq import DlqHandlerScreen

    monkeypatch.chdir(tmp_path)
    Path("site.rules").write_text("REASON(MQRC_Q_FULL) ACTION(FWD) FWDQ(APP.SMALL) "
                                  "HEADER(NO)\nACTION(IGNORE)\n")

    async def ready(pilot):
        app = pilot.app
        await settle(app, pilot)
        await open_queue(app, pilot, DLQ)
        await settle(app, pilot)
        await pilot.press("H")
        await wait_for(app, pilot, lambda: isinstance(app.screen, DlqHandlerScreen))
        app.screen.query_one("#d-rules", Input).value = "site.rules"
        app.screen.query_one("#d-rules", Input).focus()
        await pilot.press("enter")
        await wait_for(app, pilot, lambda: app.screen.plan is not None)
        await settle(app, pilot)
        app.clear_notifications()
        await settle(app, pilot)
        text = screen_text(app)
        status = " ".join(str(app.screen.query_one("#d-status").content).split())
        assert status.startswith("Plan of one pass over SYSTEM.DEAD.LETTER.QUEUE: 80 would "
                                 "fail now"), status
        assert status in words(app)
        assert sum("would fail now" in line for line in text.split("\n")) > 5
        # each such row keeps its reason whole (the FORMAT column had cut it to MQRC_Q_F),
        # and the line under the table says the highlighted one's outcome whole
        rows = [ln for ln in text.split("\n") if "would fail now:" in ln
                and not ln.startswith(" #")]
        assert len(rows) > 5 and all("would fail now: MQRC_Q_FULL —" in ln for ln in rows)
        assert ("#1 …EDB150C9: would fail now: MQRC_Q_FULL — would forward to APP.SMALL "
                "(header removed)") in words(app)

    assert snap_compare(make_app(), terminal_size=SIZE, run_before=ready)
