"""The key footer is made again only when what it shows changes (tui/widgets/footer.py):
moving the focus between widgets with the same keys keeps its key widgets (Textual's made
them all again each time: a fifth of the console's CPU per keystroke in the pilot tests),
and a key that comes, goes, is disabled or is remapped is shown at once."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.widgets import Button
from textual.widgets._footer import FooterKey

from mqconsole.tui.widgets.footer import Footer


class _Panel(Button):
    BINDINGS = [Binding("x", "app.bell", "Ring")]


class _Other(Button):
    BINDINGS = [Binding("y", "app.bell", "Other", id="other_bell")]


class _App(App[None]):
    ENABLE_COMMAND_PALETTE = False
    BINDINGS = [Binding("q", "quit", "Quit"), Binding("m", "mute", "Mute")]
    muted = False

    def compose(self) -> ComposeResult:
        yield _Panel("one", id="one")
        yield _Panel("two", id="two")
        yield _Other("three", id="three")
        yield Footer()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "mute" and self.muted:
            return None  # shown, disabled
        return True

    def action_mute(self) -> None:
        self.muted = True
        self.refresh_bindings()


def _keys(app: App[None]) -> list[FooterKey]:
    return list(app.screen.query(FooterKey))


def _shown(app: App[None]) -> list[tuple[str, bool]]:
    return [(k.description, k.has_class("-disabled")) for k in _keys(app)]


async def test_the_same_keys_keep_their_widgets_and_a_change_is_shown() -> None:
    app = _App()
    async with app.run_test(size=(100, 10)) as pilot:
        app.set_focus(app.query_one("#one"))
        await pilot.pause()
        await pilot.pause()
        before = _keys(app)
        assert [d for d, _ in _shown(app)] == ["Ring", "Quit", "Mute"], _shown(app)
        app.set_focus(app.query_one("#two"))  # the same keys: the same widgets
        await pilot.pause()
        await pilot.pause()
        assert _keys(app) == before and all(k.is_attached for k in before)
        app.set_focus(app.query_one("#three"))  # another key: shown
        await pilot.pause()
        await pilot.pause()
        assert [d for d, _ in _shown(app)] == ["Other", "Quit", "Mute"], _shown(app)
        await pilot.press("m")  # Mute disabled: shown disabled
        await pilot.pause()
        await pilot.pause()
        assert ("Mute", True) in _shown(app), _shown(app)
        app.update_keymap({"other_bell": "z"})  # remapped: the new key is shown
        await pilot.pause()
        await pilot.pause()
        assert any(k.key == "z" for k in _keys(app)), [k.key for k in _keys(app)]


async def test_a_key_is_styled_at_its_mount_only(monkeypatch) -> None:
    """Textual's key is compact by default, then bound to the footer's (not compact): it
    was styled again for each, twice a key on every remake. Given its look before its
    mount, a key is styled once, and looks as the footer says."""
    restyled: list[str] = []
    update_styles = App.update_styles

    def counting(self: App[None], node, animate: bool = True) -> None:
        restyled.append(type(node).__name__)
        update_styles(self, node, animate)

    monkeypatch.setattr(App, "update_styles", counting)
    app = _App()
    async with app.run_test(size=(100, 10)) as pilot:
        app.set_focus(app.query_one("#one"))
        await pilot.pause()
        await pilot.pause()
        app.set_focus(app.query_one("#three"))  # another key: the footer made again
        await pilot.pause()
        await pilot.pause()
        assert [d for d, _ in _shown(app)] == ["Other", "Quit", "Mute"], _shown(app)
        assert all(not k.compact and not k.has_class("-compact") for k in _keys(app))
    assert "FooterKey" not in restyled, restyled
