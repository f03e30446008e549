"""The console as a whole: start, queues, errors in one place, profiles, themes, keys, size."""

from __future__ import annotations

from textual.command import CommandList, CommandPalette
from textual.widgets import DataTable

from mqconsole.backends.open import open_embedded
from mqconsole.tui.app import MQConsoleApp, settings_from_config
from mqconsole.tui.context import REPO_THEMES, ProfileInfo, Settings
from mqconsole.tui.screens.misc import ProfileScreen, TooSmallScreen
from mqconsole.tui.screens.queues import QueuesScreen

from .conftest import DLQ, screen_text, settle, wait_for


async def test_opens_on_the_queue_manager_with_its_queues(make_app):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        assert isinstance(app.screen, QueuesScreen)
        table = app.screen.query_one("#queues", DataTable)
        names = [str(table.get_row_at(i)[0]).strip() for i in range(table.row_count)]
        assert DLQ in names and "APP.SHARED.BOQ" in names
        text = screen_text(app)
        assert "QM1" in text and f"Dead-letter queue {DLQ}: 240 messages" in text
        row = next(r for r in app.screen.rows if r["name"] == "APP.SMALL")
        assert row["depth"] == 10 and row["max_depth"] == 10  # 100% full: shown in red
        assert "100%" in text
        await pilot.press("q")
    assert app.return_code == 0


async def test_sort_filter_and_refresh_of_the_queue_list(make_app, qm):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        screen = app.screen
        await pilot.press("s")  # next column: depth, largest first
        assert screen.sort_key == "depth"
        assert screen.visible_rows()[0]["name"] == DLQ
        await pilot.press("S")
        assert screen.visible_rows()[-1]["name"] == DLQ
        await pilot.press("slash", *"boq", "enter")
        assert {r["name"] for r in screen.visible_rows()} == {
            "APP.ORDERS.BOQ", "APP.SHARED.BOQ", "ZOS.INBOUND.BOQ"}
        qm.get("APP.ORDERS.BOQ", syncpoint=False)  # someone else takes a message
        await pilot.press("r")
        await settle(app, pilot)
        assert next(r for r in screen.rows if r["name"] == "APP.ORDERS.BOQ")["depth"] == 4


async def test_a_refresh_reading_the_same_queues_leaves_the_table_as_it_is(make_app, qm):
    """The timer's refresh (and one back from another screen) that finds the queues as shown
    does not clear and fill the table again (Textual would draw it all again); one that
    finds a change does, and keeps the cursor on its queue."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        screen = app.screen
        table = screen.query_one("#queues", DataTable)
        cleared: list[int] = []
        clear = table.clear
        table.clear = lambda *a, **k: (cleared.append(1), clear(*a, **k))[1]  # type: ignore[method-assign]
        names = [str(table.get_row_at(i)[0]).strip() for i in range(table.row_count)]
        table.move_cursor(row=names.index("APP.ORDERS.BOQ"))
        await pilot.press("r")
        await settle(app, pilot)
        assert cleared == []
        assert screen.current_queue() == "APP.ORDERS.BOQ"
        qm.get("APP.ORDERS.BOQ", syncpoint=False)
        await pilot.press("r")
        await settle(app, pilot)
        assert cleared == [1]
        assert screen.current_queue() == "APP.ORDERS.BOQ"
        row = table.get_row("APP.ORDERS.BOQ")
        assert str(row[1]).strip() == "4"


async def test_backend_failure_is_a_notification_not_a_crash(tmp_path):
    def broken():
        return open_embedded(str(tmp_path / "missing.sqlite"))

    app = MQConsoleApp(broken, settings=Settings(refresh_seconds=0))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        messages = [str(n.message) for n in app._notifications]
        assert any("2058" in m or "2059" in m for m in messages), messages
        assert isinstance(app.screen, QueuesScreen)


async def test_profile_chooser_when_the_config_names_several(demo_file):
    opened = []

    def connect_for(p: ProfileInfo):
        opened.append(p.name)
        return open_embedded(str(demo_file))

    profiles = [ProfileInfo("test-qm", environment="test"),
                ProfileInfo("prod-qm", environment="production", read_only=True)]
    app = MQConsoleApp(profiles=profiles, connect_for=connect_for,
                       settings=Settings(refresh_seconds=0, themes_dirs=[REPO_THEMES]))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, ProfileScreen)
        await pilot.press("down", "enter")
        await settle(app, pilot)
        assert isinstance(app.screen, QueuesScreen)
        assert opened == ["prod-qm"] and app.read_only
        text = screen_text(app)
        assert "prod-qm (production) READ-ONLY" in text and "QM1" in text
        banner = app.screen.query_one("Banner")
        assert banner.styles.background.a > 0 and banner.has_class("-coloured")


async def test_terminal_too_small_then_big_enough(make_app):
    app = make_app()
    async with app.run_test(size=(79, 24)) as pilot:
        await settle(app, pilot)
        assert isinstance(app.screen, TooSmallScreen)
        assert "Terminal too small: 79x24" in screen_text(app)
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        assert isinstance(app.screen, QueuesScreen)


async def test_keymap_remaps_a_binding_by_its_id(make_app):
    app = make_app(keymap={"refresh": "f", "nonsense": "x"})
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        assert any("nonsense" in str(n.message) for n in app._notifications)
        keys = {b.binding.id: k for k, b in app.screen.active_bindings.items()}
        assert keys["refresh"] == "f"


async def test_themes_from_yaml_and_a_broken_file_falls_back(make_app, tmp_path):
    user = tmp_path / "themes"
    user.mkdir()
    (user / "broken.yaml").write_text("name: broken\nprimary: not-a-colour\n")
    (user / "mine.yaml").write_text('name: mine\nprimary: "#FF8800"\ndark: true\n')
    app = make_app(themes_dirs=[REPO_THEMES, user], theme="broken")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        assert {"mqconsole-dark", "mqconsole-light", "mqconsole-high-contrast",
                "mine"} <= set(app.available_themes)
        messages = " ".join(str(n.message) for n in app._notifications)
        assert "broken.yaml" in messages and "not a colour" in messages
        assert app.theme == "mqconsole-dark"  # the default, not a crash


def test_a_theme_file_that_is_not_yaml_is_named_with_its_line(tmp_path):
    """Theme files are read through libyaml where PyYAML has it; one it refuses is read
    again by PyYAML's own parser: the same words as before, file and line."""
    import pytest

    from mqconsole.tui.themes import ThemeFileError, load_theme_file

    bad = tmp_path / "bad.yaml"
    bad.write_text("name: bad\n  primary: [\n")
    with pytest.raises(ThemeFileError) as caught:
        load_theme_file(bad)
    assert str(caught.value) == f"{bad} line 2: mapping values are not allowed here"


async def test_profile_theme_wins_and_no_color_is_respected(make_app, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    app = make_app(theme="mqconsole-light")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        assert app.theme == "mqconsole-light"
        assert app.no_color  # Textual renders in monochrome


def test_settings_from_a_config_object(tmp_path):
    class Tui:
        refresh_seconds = 2.5
        page_size = 50

    class Journal:
        path = tmp_path / "j.jsonl"

    class Config:
        tui = Tui()
        journal = Journal()
        themes_dir = tmp_path / "t"
        theme = "mqconsole-high-contrast"
        keymap = {"quit": "ctrl+x"}
        backup_dir = tmp_path / "b"

    s = settings_from_config(Config())
    assert s.refresh_seconds == 2.5 and s.page_size == 50 and s.keymap == {"quit": "ctrl+x"}
    assert s.theme == "mqconsole-high-contrast" and s.themes_dirs[-1] == tmp_path / "t"


async def test_lost_terminal_exits_cleanly(make_app):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        app.terminal_lost("lost terminal")
        await pilot.pause()
    assert app.return_code == 129


async def test_journal_screen_from_anywhere(make_app):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await pilot.press("J")
        await wait_for(app, pilot, lambda: app.screen.__class__.__name__ == "JournalScreen"
                       and "0 of 0 records" in screen_text(app))
        await pilot.press("escape")
        assert isinstance(app.screen, QueuesScreen)


async def test_help_lists_the_keys_of_the_screen_with_their_ids(make_app):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        text = screen_text(app)
        assert "Keys of queues" in text
        rows = {(k, d, i) for k, d, i in app.screen.rows}
        assert ("s", "Sort", "sort") in rows and ("a", "Attributes", "set_attrs") in rows
        assert all(i for _, _, i in rows)  # every listed key can be remapped by its id
        await pilot.press("escape")
        assert isinstance(app.screen, QueuesScreen)


async def test_command_palette_opens_a_queue(make_app):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        titles = [c.title for c in app.get_system_commands(app.screen)]
        assert {"Queues", "Journal", "Keys", "Theme", "Quit", "Attributes",
                f"Open {DLQ}"} <= set(titles)
        await pilot.press("colon")
        await pilot.pause()
        palette = app.screen
        assert isinstance(palette, CommandPalette)
        await pilot.press(*"open app.smal")

        def searched() -> bool:
            """The search for the whole text has ended and its best hit is highlighted. The
            list of an earlier, shorter text stays on screen while the next search runs (and
            names APP.SMALL among others): Enter then would pick that list's first line."""
            if any(w.node is palette and not w.is_finished for w in app.workers):
                return False
            hits = palette.query_one(CommandList)
            if hits.highlighted is None:
                return False
            prompt = hits.get_option_at_index(hits.highlighted).prompt
            return str(prompt).startswith("Open APP.SMALL")

        await wait_for(app, pilot, searched)
        await pilot.press("enter")
        await wait_for(app, pilot, lambda: getattr(app.screen, "queue", None) == "APP.SMALL")


def test_build_app_from_a_cli_session(demo_file, tmp_path, monkeypatch):
    from mqconsole.cli.session import Session
    from mqconsole.tui.app import build_app

    app = build_app(Session(embedded_path=str(demo_file)))
    assert app.profile.name == "embedded" and not app.read_only
    app.conns.close()
    config = tmp_path / "config.yaml"
    config.write_text(
        "profiles:\n"
        f"  - name: dev\n    backend: {{type: embedded, path: {demo_file}}}\n"
        f"  - name: prod\n    read_only: true\n    environment: production\n"
        f"    banner: '#aa0000'\n    backend: {{type: embedded, path: {demo_file}}}\n"
        "keymap: {refresh: f}\ntui: {refresh_seconds: 0}\n")
    session = Session(config_file=str(config))
    chooser = build_app(session)
    assert chooser._choose_profile and [p.name for p in chooser.profiles] == ["dev", "prod"]
    assert chooser.settings.keymap == {"refresh": "f"}
    session2 = Session(config_file=str(config), profile_name="prod")
    direct = build_app(session2)
    assert direct.read_only and direct.profile.banner == "#aa0000"
    session.close()
    session2.close()


async def test_switch_profile_with_p(demo_file):
    opened = []

    def connect_for(p: ProfileInfo):
        opened.append(p.name)
        return open_embedded(str(demo_file))

    profiles = [ProfileInfo("a"), ProfileInfo("b", read_only=True)]
    app = MQConsoleApp(connect_for=connect_for, profile=profiles[0], profiles=profiles,
                       settings=Settings(refresh_seconds=0, themes_dirs=[REPO_THEMES]))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        assert not app.read_only and opened == ["a"]
        await pilot.press("P")
        await wait_for(app, pilot, lambda: isinstance(app.screen, ProfileScreen))
        await pilot.press("down", "enter")
        await settle(app, pilot)
        assert isinstance(app.screen, QueuesScreen) and app.read_only
        assert opened == ["a", "b"] and "b READ-ONLY" in screen_text(app)
        assert len(app.screen_stack) == 2  # the default screen and the queues


async def test_queue_info_and_a_live_refresh(make_app, qm):
    from mqconsole.tui.screens.dialogs import TextDialog

    app = make_app(refresh_seconds=0.2)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        table = app.screen.query_one("#queues", DataTable)
        names = [str(table.get_row_at(i)[0]).strip() for i in range(table.row_count)]
        table.move_cursor(row=names.index("APP.ORDERS"))
        await pilot.press("i")
        await wait_for(app, pilot, lambda: isinstance(app.screen, TextDialog))
        body = str(app.screen.body)
        # with the MQ attribute names operators know (issue 15 item 14)
        assert "BOTHRESH: 3" in body and "BOQNAME: APP.ORDERS.BOQ" in body
        assert "CURDEPTH: 40" in body and "MAXDEPTH: 5000" in body
        # on/off in words, never True/False or colour alone
        assert "PUT: ENABLED" in body and "GET: ENABLED" in body and "HARDENBO: " in body
        assert "True" not in body and "False" not in body
        assert "IPPROCS: 0" in body
        await pilot.press("escape")
        qm.get(DLQ, syncpoint=False)  # the dead-letter queue changes under our eyes
        await wait_for(app, pilot, lambda: app.ctx.dlq_depth == 239)
        assert "239" in screen_text(app)


async def test_switching_profile_points_the_audit_at_that_profiles_queue_manager(
        demo_file, tmp_path):
    """The audit screen's Spark readers open ``settings.audit_connection``: after a switch
    it is the new profile's queue manager, not the one the console started on."""
    import shutil

    from mqconsole.cli.session import Session
    from mqconsole.tui.app import build_app

    other = tmp_path / "other.sqlite"
    shutil.copy(demo_file, other)
    config = tmp_path / "config.yaml"
    config.write_text(
        "profiles:\n"
        f"  - name: dev\n    backend: {{type: embedded, path: {demo_file}}}\n"
        f"  - name: test\n    backend: {{type: embedded, path: {other}}}\n"
        "tui: {refresh_seconds: 0}\n")
    session = Session(config_file=str(config), profile_name="dev")
    app = build_app(session)
    try:
        assert app.settings.audit_connection.path == str(demo_file)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(app, pilot)
            await pilot.press("P")
            await wait_for(app, pilot, lambda: isinstance(app.screen, ProfileScreen))
            await pilot.press("down", "enter")
            await settle(app, pilot)
            assert app.profile.name == "test"
            assert app.settings.audit_connection.path == str(other)
    finally:
        app.conns.close()
        session.close()
