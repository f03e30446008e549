"""PayloadView marks JSON and XML in the text area theme's syntax styles without tree-sitter,
through TextArea's public ``get_line`` (issue 26 item 4: no private Textual name)."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets.text_area import TextAreaTheme

from mqconsole.tui.widgets.payload import PayloadView

JSON = '{"currency": "EUR", "amount": 12.5, "ok": true}'
XML = '<order id="7"><!-- note --></order>'


class One(App[None]):
    def __init__(self, text: str, kind: str) -> None:
        super().__init__()
        self.text, self.kind = text, kind

    def compose(self) -> ComposeResult:
        yield PayloadView(self.text, kind=self.kind)


def _drawn(view: PayloadView, y: int = 0) -> dict[str, str]:
    """Each piece of text drawn on row ``y`` (the cursor's row is 0) and its colour."""
    return {s.text: s.style.color.triplet.hex for s in view.render_line(y)
            if s.text.strip() and s.style is not None and s.style.color is not None
            and s.style.color.triplet is not None}


def _colour(view: PayloadView, name: str) -> str:
    theme = TextAreaTheme.get_builtin_theme(view.theme)
    style = theme.get_highlight(name) if theme is not None else None
    assert style is not None and style.color is not None and style.color.triplet is not None
    return style.color.triplet.hex


def _expect(view: PayloadView, **names: str) -> dict[str, str]:
    return {text: _colour(view, name) for text, name in names.items()}


async def test_json_keys_strings_numbers_and_constants_are_drawn_in_the_theme_styles():
    """Also on the cursor's line (row 0), whose own style must not hide them."""
    app = One(JSON + "\n" + JSON, "json")
    async with app.run_test(size=(80, 5)) as pilot:
        await pilot.pause()
        view = app.query_one(PayloadView)
        want = _expect(view, **{'"currency"': "json.label", '"EUR"': "string",
                                "12.5": "number", "true": "constant.builtin"})
        for row in (0, 1):
            drawn = _drawn(view, row)
            assert {k: drawn.get(k) for k in want} == want, row


async def test_xml_is_marked_and_plain_text_is_not():
    app = One(XML, "xml")
    async with app.run_test(size=(80, 5)) as pilot:
        await pilot.pause()
        view = app.query_one(PayloadView)
        want = _expect(view, order="tag", **{'"7"': "string", "<!-- note -->": "comment"})
        drawn = _drawn(view)
        assert {k: drawn.get(k) for k in want} == want
        view.set_payload(JSON, "text")
        await pilot.pause()
        plain = {_colour(view, n) for n in ("json.label", "string", "number")}
        assert not plain & set(_drawn(view).values())


async def test_an_edited_line_is_marked_again():
    app = One("plain", "json")
    async with app.run_test(size=(80, 5)) as pilot:
        view = app.query_one(PayloadView)
        view.read_only = False
        view.replace('{"a": 1}', (0, 0), (0, 5))
        await pilot.pause()
        want = _expect(view, **{'"a"': "json.label", "1": "number"})
        drawn = _drawn(view)
        assert {k: drawn.get(k) for k in want} == want
