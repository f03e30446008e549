"""A profile with ``password_prompt: true``: the console asks its password in a dialog before
switching (never ``getpass`` in a worker while Textual owns the terminal); the typed password
is what the opener is given; escape leaves the console where it was, and says so."""

from __future__ import annotations

from textual.widgets import Input

from mqconsole.backends.open import open_embedded
from mqconsole.tui.app import MQConsoleApp
from mqconsole.tui.context import REPO_THEMES, ProfileInfo, Settings
from mqconsole.tui.screens.dialogs import PasswordDialog
from mqconsole.tui.screens.misc import ProfileScreen
from mqconsole.tui.screens.queues import QueuesScreen

from .conftest import screen_text, settle, wait_for

SECRET = "s3cret-pw"


def _app(demo_file, opened: list[tuple[str, str | None]]) -> MQConsoleApp:
    def connect_for(p: ProfileInfo, ask_password=None):
        answer = None if ask_password is None else ask_password(f"MQ password ({p.name}): ")
        opened.append((p.name, answer))
        return open_embedded(str(demo_file))

    profiles = [ProfileInfo("a"),
                ProfileInfo("b", password_prompt=True, password_env="MQT_B_PASSWORD")]
    return MQConsoleApp(connect_for=connect_for, profile=profiles[0], profiles=profiles,
                        settings=Settings(refresh_seconds=0, themes_dirs=[REPO_THEMES]))


async def _switch_to_b(app, pilot) -> None:
    await pilot.press("P")
    await wait_for(app, pilot, lambda: isinstance(app.screen, ProfileScreen))
    await pilot.press("down", "enter")


async def test_switching_asks_the_password_in_a_dialog_and_the_opener_gets_it(
        demo_file, monkeypatch):
    monkeypatch.delenv("MQT_B_PASSWORD", raising=False)
    opened: list[tuple[str, str | None]] = []
    app = _app(demo_file, opened)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await _switch_to_b(app, pilot)
        await wait_for(app, pilot, lambda: isinstance(app.screen, PasswordDialog))
        field = app.screen.query_one("#password", Input)
        assert field.password and app.profile.name == "a"  # nothing switched yet
        await pilot.press(*SECRET)
        assert SECRET not in screen_text(app)  # typed hidden
        await pilot.press("enter")
        await wait_for(app, pilot, lambda: ("b", SECRET) in opened)
        await settle(app, pilot)
        assert isinstance(app.screen, QueuesScreen) and app.profile.name == "b"
        assert opened == [("a", None), ("b", SECRET)]


async def test_escape_at_the_password_stays_on_the_profile_and_says_so(demo_file, monkeypatch):
    monkeypatch.delenv("MQT_B_PASSWORD", raising=False)
    opened: list[tuple[str, str | None]] = []
    app = _app(demo_file, opened)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await _switch_to_b(app, pilot)
        await wait_for(app, pilot, lambda: isinstance(app.screen, PasswordDialog))
        await pilot.press("escape")
        await settle(app, pilot)
        assert isinstance(app.screen, QueuesScreen) and app.profile.name == "a"
        assert opened == [("a", None)]
        said = [str(n.message) for n in app._notifications]
        assert "No password given for profile b: still on profile a." in said
        await pilot.press("r")  # the console still works on profile a
        await settle(app, pilot)
        assert opened == [("a", None)] and app.return_code is None


async def test_no_dialog_when_the_password_variable_is_set(demo_file, monkeypatch):
    monkeypatch.setenv("MQT_B_PASSWORD", "from-env")
    opened: list[tuple[str, str | None]] = []
    app = _app(demo_file, opened)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await _switch_to_b(app, pilot)
        await wait_for(app, pilot, lambda: ("b", None) in opened)
        await settle(app, pilot)
        assert isinstance(app.screen, QueuesScreen) and app.profile.name == "b"
