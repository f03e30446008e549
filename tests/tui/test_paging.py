"""A deep queue on the embedded backend, read page by page at positions (tui/paging.py),
and filtered by the backend's selection (issue 16; issue 15 item 10): End, PageDown and
Home jump without reading what lies between, a filter's matches are the ones a browse
finds at the same positions, its summary follows the filter, E counts the whole queue; the
rows listed without bodies are drawn as the messages' views would be."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given
from hypothesis import strategies as st

from mqconsole.backends.open import open_embedded
from mqconsole.mq.md import MQMD
from mqconsole.mq.message import Message
from mqconsole.mq.queue import QueueAttrs
from mqconsole.ops.browse import iter_views_plain, page_reader, row_reader
from mqconsole.ops.where import compile_where
from mqconsole.tui.browsing import BrowseModel
from mqconsole.tui.paging import PagedModel
from mqconsole.tui.widgets.message_list import MessageList, cells
from tests.ops.test_summary_routes import messages as hostile_messages
from tests.support.examples import examples

from .conftest import NOW, open_queue, screen_text, settle, wait_for

DEPTH = 6000


@pytest.fixture(scope="module")
def demo_template(demo_template: Path, tmp_path_factory) -> Path:
    """The demo scene with APP.DEEP's 6,000 messages (every seventh is longer: what the
    filter looks for), built once per module: each test's ``demo_file`` is a copy of it
    (the tests of this module that use the demo all use ``deep``) instead of 6,000 puts
    of its own."""
    path = tmp_path_factory.mktemp("deep") / "qm.sqlite"
    for suffix in ("", "-wal", "-shm"):
        src = Path(str(demo_template) + suffix)
        if src.exists():
            shutil.copy(src, str(path) + suffix)
    qm = open_embedded(str(path))
    qm.define_queue(QueueAttrs(name="APP.DEEP", max_depth=100_000))
    for n in range(DEPTH):
        body = b"long message %05d" % n if n % 7 == 3 else b"m%05d" % n
        qm.put("APP.DEEP", Message(MQMD(format="MQSTR", ccsid=1208, priority=n % 3), body),
               syncpoint=True)
    qm.commit()
    qm.close()
    return path


@pytest.fixture
def deep(qm) -> str:
    """APP.DEEP, filled in this module's demo template."""
    assert qm.inquire_queue("APP.DEEP").depth == DEPTH
    return "APP.DEEP"


async def test_a_filter_on_a_deep_queue_is_selected_by_the_backend(make_app, deep, qm,
                                                                   monkeypatch):
    from mqconsole.tui.screens import messages as messages_screen

    monkeypatch.setattr(messages_screen, "AUTO_COUNT", 100)  # E counts, not the opening
    app = make_app(page_size=100)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        await open_queue(app, pilot, deep)
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen.model, PagedModel)
        await wait_for(app, pilot, lambda: "6,000 messages · E counts the whole queue's "
                       "summary" in screen_text(app))
        await pilot.press("slash", *"length > 10", "enter")
        await wait_for(app, pilot, lambda: screen.model.where_text == "length > 10"
                       and screen.model.count > 0)
        model = screen.model
        assert isinstance(model, BrowseModel) and model._select is not None  # selected
        await pilot.press("end")  # the filter's whole list: read on to the end
        await wait_for(app, pilot, lambda: model.done)
        await settle(app, pilot)
        plain = [(v.position, v.msgid) for v in
                 iter_views_plain(qm, deep, where=compile_where("length > 10"), now=NOW)]
        listed = [(model.row(i).position, model.row(i).msgid_hex) for i in range(model.count)]
        assert listed == plain and len(plain) == sum(1 for n in range(DEPTH) if n % 7 == 3)
        assert model.scanned == DEPTH  # "of 6,000": the queue's count, not the matches'
        text = screen_text(app)
        assert f"showing {len(plain):,} of 6,000 · matching length > 10" in text
        assert f"{len(plain):,} messages" in text  # the summary follows the filter
        assert model.summary.result()["total"] == len(plain)
        lst = screen.query_one(MessageList)
        assert lst.cursor == len(plain) - 1
        await pilot.press("home")
        assert lst.cursor == 0
        await pilot.press("slash", *["backspace"] * 20, "enter")  # no filter: pages again
        await wait_for(app, pilot, lambda: isinstance(screen.model, PagedModel)
                       and screen.model.known)
        await pilot.press("E")  # the whole queue's summary, counted by the backend
        await wait_for(app, pilot, lambda: screen.model.counted)
        await settle(app, pilot)
        assert "6,000 messages" in screen_text(app) and "E counts" not in screen_text(app)
        assert screen.model.summary.result()["total"] == DEPTH


async def test_marks_on_a_deep_queue_name_the_messages_under_the_cursor(make_app, deep):
    app = make_app(page_size=100)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        await open_queue(app, pilot, deep)
        await settle(app, pilot)
        screen = app.screen
        lst = screen.query_one(MessageList)
        await pilot.press("end")
        await wait_for(app, pilot, lambda: screen.model.has_row(DEPTH - 1))
        await pilot.press("space")
        assert lst.marked_count == 1 and DEPTH in lst.marks
        assert lst.marks[DEPTH].token is not None  # the message itself, not its MsgId
        await pilot.press("U", "asterisk")
        assert lst.all_marked
        await pilot.press("space")  # the rows are not all read: "all" stays as it is
        assert lst.all_marked
        await wait_for(app, pilot, lambda: any("not all of them are read" in str(n.message)
                                               for n in app._notifications))


def test_a_page_says_when_the_queue_changed(qm, deep):
    model = PagedModel(page_reader(qm, deep), deep, now=NOW, page_size=100)
    model.load([0, 59])
    assert model.count == DEPTH and model.has_row(0) and model.has_row(5999)
    assert model.row(5999).position == DEPTH
    qm.get(deep, syncpoint=False)  # the first message goes: every position moves
    model.load([1])
    assert model.count == DEPTH - 1
    assert not model.has_row(0) and not model.has_row(5999)  # dropped: positions moved
    assert model.missing(0, 200) == [0]
    assert model.fetch(150).position == 151


async def test_a_page_that_cannot_be_read_is_reported_once(make_app, deep, qm, monkeypatch):
    """A page read that fails (the queue get-inhibited meanwhile) is reported, and not asked
    for again and again while the view stays where it is."""
    from mqconsole.backends.embedded.positions import Positioning

    calls = []
    page_at, rows_at = Positioning.page_at, Positioning.rows_at

    def counted(self, queue, position, n):
        calls.append(position)
        return page_at(self, queue, position, n)

    def listed(self, queue, position, n):  # what End reads: the rows, without bodies
        calls.append(position)
        return rows_at(self, queue, position, n)

    monkeypatch.setattr(Positioning, "page_at", counted)
    monkeypatch.setattr(Positioning, "rows_at", listed)
    app = make_app(page_size=100)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        await open_queue(app, pilot, deep)
        await settle(app, pilot)
        qm.change_queue(deep, get_inhibited=True)
        before = len(calls)
        await pilot.press("end")
        await wait_for(app, pilot, lambda: any("2016" in str(n.message) or "inhibited" in
                                               str(n.message) for n in app._notifications))
        await settle(app, pilot)
        await pilot.pause(0.3)
        await settle(app, pilot)
        assert len(calls) - before == 1  # one read, one report: no loop
        assert "reading" in screen_text(app)  # the rows not read say so


@examples(40, suppress_health_check=[
    HealthCheck.function_scoped_fixture])
@given(batch=st.lists(hostile_messages(), min_size=1, max_size=30),
       forget=st.sets(st.integers(0, 30)), local=st.sampled_from(["QM1", "", "QM9"]),
       pages=st.lists(st.integers(0, 7), max_size=5))
def test_listed_rows_are_drawn_as_the_messages_views_are(make_qm, batch, forget, local,
                                                         pages) -> None:
    """The rows End and PageDown read without bodies (``ListsByPosition.rows_at``) are the
    rows the list draws from the same messages' full views (``LightIndex``), cell for
    cell, with the same marks: dead-letter headers that do not parse, other formats,
    put times that are not times, rows whose facts were never kept, any queue manager."""
    qm = make_qm("Q")
    for m in batch:
        qm.put("Q", m, syncpoint=False)
    with qm._guard(), qm._write() as db:
        for i in forget:
            db.execute("UPDATE messages SET f_format = NULL WHERE id = ?", (i + 1,))
    full = PagedModel(page_reader(qm, "Q"), "Q", now=NOW, page_size=4, local_qmgr=local)
    light = PagedModel(page_reader(qm, "Q"), "Q", read_rows=row_reader(qm, "Q"), now=NOW,
                       page_size=4, local_qmgr=local)
    light.load(pages or [0])  # some pages first, as the keys ask for them
    light.load(list(range(8)))
    full.load(list(range(8)))
    assert light.count == full.count == len(batch)
    for i in range(len(batch)):
        assert light.row(i) == full.row(i)
        assert cells(light.row(i), NOW) == cells(full.row(i), NOW)
        assert light.index.mark(i) == full.index.mark(i)
        assert light.index.msgid(i) == full.index.msgid(i)
        assert light.view(i) is None  # no body read for a listed row...
        opened = light.fetch(i)  # ...until its message is opened
        assert opened.position == i + 1
        assert opened.message.body == full.fetch(i).message.body


async def test_a_screenful_is_listed_on_the_event_loop_until_a_read_is_slow(
        make_app, deep, monkeypatch):
    """End reads the last screenful's rows on the event loop (no hand-off to a thread before
    they are drawn); once a read takes longer than ``QUICK_READ``, the pages go to a worker
    thread again, and the rows still arrive."""
    import threading

    from mqconsole.backends.embedded.positions import Positioning
    from mqconsole.tui.screens import messages as messages_screen

    threads: list[bool] = []
    rows_at = Positioning.rows_at

    def where(self, queue, position, n):
        threads.append(threading.current_thread() is threading.main_thread())
        return rows_at(self, queue, position, n)

    monkeypatch.setattr(Positioning, "rows_at", where)
    # Every read counts as quick until the test says otherwise: on a busy machine a read
    # can take longer than the real 0.02 s (the test is about the route, not the speed).
    monkeypatch.setattr(messages_screen, "QUICK_READ", float("inf"))
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        await open_queue(app, pilot, deep)
        await settle(app, pilot)
        screen = app.screen
        model = screen.model
        assert isinstance(model, PagedModel) and model.quick
        threads.clear()
        await pilot.press("end")
        assert model.has_row(DEPTH - 1)  # read before the key's handling ended
        assert threads == [True]
        monkeypatch.setattr(messages_screen, "QUICK_READ", -1.0)  # every read is "slow"
        await pilot.press("home", *["pagedown"] * 6)
        await settle(app, pilot)
        assert not model.quick and threads[1] is True  # the slow read, then...
        lst = screen.query_one(MessageList)
        await pilot.press("end", "pageup", "pageup", "pageup")
        await wait_for(app, pilot, lambda: model.has_row(lst.cursor))
        assert False in threads[2:]  # ...pages read by a worker thread
        await settle(app, pilot)
        assert f"  {lst.cursor + 1} " in screen_text(app)
