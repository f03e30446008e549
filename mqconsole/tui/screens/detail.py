"""One message: summary, the whole MQMD, the headers, and the payload as text, hex and pretty
— and, when site plugins decode payloads, as they decode it (the Decoded tab).

Tabs are switched with ``1``–``7`` (or ``tab``/arrows on the tab bar). Every value passes
through ``safe``: a payload holding escape sequences or ``[bold red]`` shows those characters,
it never styles or moves the terminal.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.app import ComposeResult
from textual.widgets import DataTable, Static, TabbedContent, TabPane

from mqconsole.mq import boundedjson
from mqconsole.mq.names import reason_label
from mqconsole.mq.payload import hex_dump
from mqconsole.ops.timefmt import format_age
from mqconsole.ops.views import MessageView, field_text, md_lines, msg_flag_names
from mqconsole.tui import clipboard
from mqconsole.tui import keys as K
from mqconsole.tui.context import ConsoleContext
from mqconsole.tui.flow import in_thread, launch
from mqconsole.tui.safe import clean, clean_block, txt
from mqconsole.tui.screens.base import ConsoleScreen
from mqconsole.tui.widgets.banner import Banner
from mqconsole.tui.widgets.footer import Footer
from mqconsole.tui.widgets.lazylines import HEX_WIDTH, WRAP, LazyLines, hex_line, text_lines
from mqconsole.tui.widgets.lists import ListTable
from mqconsole.tui.widgets.payload import PayloadView

if TYPE_CHECKING:
    from mqconsole.plugins import DecodedResult

TABS = ["summary", "mqmd", "headers", "text", "hex", "pretty", "decoded"]
MAX_PRETTY = 2 * 1024 * 1024  # bytes of payload we pretty-print
PREVIEW = 64 * 1024  # a larger payload shows its first PREVIEW bytes/characters; L: all


def mqmd_rows(md: dict[str, Any]) -> list[tuple[str, str]]:
    """The MQMD tab's rows (``ops.views.md_lines``: names before numbers)."""
    return md_lines(md)


def summary_rows(view: MessageView) -> list[tuple[str, str]]:
    md = view.md
    rows = [
        ("Position", f"{view.position}"),
        ("MsgId", view.msgid),
        ("CorrelId", view.correlid),
        ("Put time", f"{view.put_time or '-'} ({format_age(view.age_seconds)} ago)"),
        ("Put by", f"{view.put_appl_name or '-'} as {view.user or '-'}"),
        ("Format", view.format or "(none)"),
        ("Payload format", view.payload_format or "(none)"),
        ("Length", f"{view.length:,} bytes (payload {len(view.payload):,})"),
        ("CCSID / encoding", f"{view.payload_ccsid} / {view.payload_encoding}"),
        ("Persistence", view.persistence_name),
        ("Priority", str(view.priority)),
        ("Backout count", str(view.backout_count)),
        ("Reply to", f"{view.reply_to_q or '-'} @ {view.reply_to_qmgr or '-'}"),
    ]
    exp = view.expiry_info()
    if exp["ExpiryUnlimited"]:
        rows.append(("Expiry", "unlimited"))
    else:
        rows.append(("Expiry", f"{format_age(exp['ExpiryRemainingSeconds'])} remaining "
                               f"(at {exp['ExpiresAt'] or '-'})"))
    if view.dlh is not None:
        rows += [
            ("Dead-letter reason", reason_label(view.reason)),
            ("Original destination", f"{view.dest_q}@{view.dest_qmgr or '?'}"),
            ("Dead-lettered by", f"{view.dlh_put_appl_name or '-'} at {view.dlh_put_time or '-'}"),
        ]
    flags = msg_flag_names(md.msg_flags) if md.version >= 2 else []
    rows += [
        ("GroupId", bytes(md.group_id).hex().upper()),
        ("Sequence / offset", f"{md.msg_seq_number} / {md.offset}"),
        ("Message flags", ", ".join(flags) if flags else "none"),
        ("Original length", str(md.original_length)),
    ]
    if view.header_error:
        rows.append(("Header problem", view.header_error))
    full = getattr(view.message, "truncated_from", None)
    if full is not None:  # a preview over a channel whose MAXMSGL is smaller (2010)
        rows.append(("Truncated", f"only the first {len(view.message.body)} of {full} bytes "
                                  "came over this channel: it cannot be moved over it"))
    return rows


def header_rows(view: MessageView) -> list[tuple[str, str, str]]:
    rows: list[tuple[str, str, str]] = []
    for h in view.show()["headers"]:
        kind = str(h.get("type", "?"))
        for key, value in h.items():
            if key == "type":
                continue
            if key == "folders" and isinstance(value, list):
                for folder in value:
                    name = str(folder.get("name", "?"))
                    rows.append((kind, f"folder {name}", field_text(folder.get("content"))))
                    for pk, pv in (folder.get("properties") or {}).items():
                        rows.append((kind, f"  {name}.{pk}", field_text(pv)))
                continue
            if key == "reason" and "reason_name" in h and isinstance(value, int):
                rows.append((kind, "reason", reason_label(value)))  # MQRC_Q_FULL (2053)
                continue
            if key == "reason_name":
                continue
            rows.append((kind, key, field_text(value)))
    return rows


def _xml_depth(dom: Any) -> int:
    """How deeply elements nest (iterative: any depth is safe)."""
    deepest = 0
    stack = [(dom, 0)]
    while stack:
        node, level = stack.pop()
        deepest = max(deepest, level)
        stack.extend((child, level + 1) for child in node.childNodes)
    return deepest


def pretty(view: MessageView) -> tuple[str, str]:
    """(text, kind) of the payload pretty-printed as JSON or XML, or a note why not."""
    text = view.text
    if text is None:
        return "(the payload is not text: see the Hex tab)", "text"
    if len(view.payload) > MAX_PRETTY:
        return f"(the payload is larger than {MAX_PRETTY // 1024} KB: see the Text tab)", "text"
    stripped = text.lstrip()
    if stripped.startswith(("{", "[")):
        try:
            doc = boundedjson.loads(text)
        except boundedjson.TooDeep as exc:
            return f"({exc}: shown as text)\n\n{text}", "text"
        except ValueError as exc:
            return f"(not valid JSON: {exc})\n\n{text}", "text"
        return json.dumps(doc, indent=2, ensure_ascii=False), "json"
    if stripped.startswith("<"):
        if "<!DOCTYPE" in text.upper() or "<!ENTITY" in text.upper():
            return "(XML with a DOCTYPE or entities is not expanded: see the Text tab)", "text"
        try:
            from xml.dom import minidom

            dom = minidom.parseString(text.encode("utf-8"))
            if _xml_depth(dom) > boundedjson.MAX_DEPTH:
                return (f"(the XML nests deeper than {boundedjson.MAX_DEPTH} levels: shown as "
                        f"text)\n\n{text}"), "text"
            out = dom.toprettyxml(indent="  ")
            lines = [ln for ln in out.splitlines() if ln.strip()]
            return "\n".join(lines), "xml"
        except RecursionError:
            return f"(the XML nests too deeply to pretty-print: shown as text)\n\n{text}", "text"
        except Exception as exc:
            return f"(not well-formed XML: {exc})\n\n{text}", "text"
    return "(neither JSON nor XML: see the Text tab)", "text"


class DetailScreen(ConsoleScreen):
    HELP_NAME = "detail"
    KEYS = [*K.DETAIL_KEYS, K.BACK]
    BINDINGS = K.bindings([*K.DETAIL_KEYS, K.BACK])
    #: seconds each site decoder may take before the Decoded tab says it timed out
    decode_limit: float = 5.0

    def __init__(self, ctx: ConsoleContext, queue: str, view: MessageView) -> None:
        super().__init__(ctx)
        self.queue = queue
        self.view = view
        self.large = False  # over PREVIEW: shown in part until L
        self._loading_all = False
        self._all_shown = False
        self.hex_headers = False  # h: the Hex tab dumps the whole body, MQ headers included

    def compose(self) -> ComposeResult:
        v = self.view
        yield Banner(self.ctx, f"{self.queue} #{v.position} {v.msgid[-8:]}")
        with TabbedContent(id="tabs"):
            with TabPane("1 Summary", id="summary"):
                yield ListTable(id="summary-table", cursor_type="row", show_header=False)
            with TabPane("2 MQMD", id="mqmd"):
                yield ListTable(id="mqmd-table", cursor_type="row")
            with TabPane("3 Headers", id="headers"):
                yield ListTable(id="headers-table", cursor_type="row")
            with TabPane("4 Text", id="text"):
                yield Static(Text(""), id="text-note", classes="note")
                yield PayloadView(id="text-view")
                yield LazyLines(id="text-all", classes="all")
            with TabPane("5 Hex", id="hex"):
                yield Static(Text(""), id="hex-note", classes="note")
                yield PayloadView(id="hex-view")
                yield LazyLines(id="hex-all", classes="all")
            with TabPane("6 Pretty", id="pretty"):
                yield Static(Text(""), id="pretty-note", classes="note")
                yield PayloadView(id="pretty-view")
                yield LazyLines(id="pretty-all", classes="all")
            if self.ctx.plugins.has_decoders:
                with TabPane("7 Decoded", id="decoded"):
                    yield Static(Text("decoding…"), id="decoded-note", classes="note")
                    yield PayloadView(id="decoded-view")
        yield Footer()

    def on_mount(self) -> None:
        v = self.view
        table = self.query_one("#summary-table", DataTable)
        table.add_columns(Text("Field"), Text("Value"))
        for name, value in summary_rows(v):
            table.add_row(Text(name, style="bold"), txt(value))
        mqmd = self.query_one("#mqmd-table", DataTable)
        mqmd.add_columns(Text("Field"), Text("Value"))
        for name, value in mqmd_rows(v.md_dict()):
            mqmd.add_row(Text(str(name), style="bold"), txt(value))
        headers = self.query_one("#headers-table", DataTable)
        headers.add_columns(Text("Header"), Text("Field"), Text("Value"))
        rows = header_rows(v)
        for kind, name, value in rows:
            headers.add_row(txt(kind), txt(name), txt(value))
        if not rows:
            headers.add_row(Text("-"), Text("no MQ headers before the payload"), Text(""))
        for pane in ("text", "hex", "pretty"):
            self.query_one(f"#{pane}-all", LazyLines).display = False
            self.query_one(f"#{pane}-note", Static).display = pane == "text"
        self.large = len(v.payload) > PREVIEW
        if self.large:  # decoded, made safe and laid out off the event loop
            self.query_one("#text-note", Static).update(Text("reading the payload…"))
            launch(self.ctx, self._load(self._preview, self._show_preview,
                                        "show the payload"), what="show the payload")
        else:
            self._show_preview(self._preview())
        self.query_one("#summary-table", DataTable).focus()
        self._decode()

    # -- the payload: whole when small, else its first PREVIEW and all on request ---------
    def _text_note(self) -> str:
        v = self.view
        if v.text is None:
            extra = getattr(v.decoded, "note", None)
            return f"Not text ({extra or 'binary'}): shown in the Hex tab."
        decoded = v.decoded
        codec = getattr(decoded, "codec", None)
        extra = getattr(decoded, "note", None)
        return (f"CCSID {v.payload_ccsid} read as {codec or '?'}"
                + (f" — {extra}" if extra else "")
                + " · control characters are shown as \\x.. escapes")

    def _preview(self) -> dict[str, Any]:
        """What the Text, Hex and Pretty tabs show first (a worker's job when large)."""
        v = self.view
        payload = v.payload
        text = v.text
        body, kind = pretty(v)
        out: dict[str, Any] = {"note": self._text_note(), "kind": kind}
        if not self.large:
            dump = hex_dump(self._hex_source(), ccsid=v.payload_ccsid)
            out.update(text=clean_block(text or ""), hex=dump, pretty=clean_block(body))
            return out
        more = " · L loads all of it"
        size = f"{len(payload):,} bytes"
        out.update(text=clean_block((text or "")[:PREVIEW]),
                   hex=hex_dump(self._hex_source()[:PREVIEW], ccsid=v.payload_ccsid),
                   pretty=clean_block(body[:PREVIEW]))
        if text is not None and len(text) > PREVIEW:
            out["note"] += f"\nThe first {PREVIEW // 1024} K characters of {size}{more}"
        if len(body) > PREVIEW:
            out["pretty_note"] = (f"The first {PREVIEW // 1024} K characters of "
                                  f"{len(body):,}{more}")
        return out

    def _show_preview(self, p: dict[str, Any]) -> None:
        if not self.is_attached:
            return
        self.query_one("#text-note", Static).update(txt(p["note"]) if "\n" not in p["note"]
                                                    else Text(clean_block(p["note"])))
        self.query_one("#text-view", PayloadView).set_payload(p["text"])
        self.query_one("#hex-view", PayloadView).set_payload(p["hex"])
        self.query_one("#pretty-view", PayloadView).set_payload(p["pretty"], p["kind"])
        note = p.get("pretty_note")
        widget = self.query_one("#pretty-note", Static)
        widget.display = note is not None
        if note is not None:
            widget.update(txt(note))
        self._hex_note()

    # -- the Hex tab: the payload, or (h) the whole body with the MQ headers -----------------
    def _hex_source(self) -> bytes:
        v = self.view
        return bytes(v.message.body) if self.hex_headers else v.payload

    def _hex_note(self) -> None:
        v = self.view
        offset = v.payload_offset if self.hex_headers else 0
        parts = []
        if self.hex_headers:
            parts.append(f"With the MQ headers: the payload starts at byte {offset:,} "
                         f"(0x{offset:x}) · h: the payload only")
        elif v.payload_offset:
            parts.append(f"The payload only, after {v.payload_offset:,} bytes of MQ headers "
                         "· h: with the headers")
        size = len(self._hex_source())
        if self._all_shown:
            parts.append(f"All {size:,} bytes")
        elif self.large:
            parts.append(f"The first {PREVIEW // 1024} KB of {size:,} bytes · L loads all "
                         "of it")
        widget = self.query_one("#hex-note", Static)
        widget.display = bool(parts)
        widget.update(txt("\n".join(parts)) if len(parts) < 2
                      else Text(clean_block("\n".join(parts))))

    def action_hex_headers(self) -> None:
        """Show the MQ headers' bytes in the Hex tab, or the payload's only."""
        self.hex_headers = not self.hex_headers
        v = self.view
        data = self._hex_source()
        if self._all_shown:
            self.query_one("#hex-all", LazyLines).show(
                -(-len(data) // HEX_WIDTH), lambda i: hex_line(data, i, v.payload_ccsid),
                width=78)
        else:
            shown = data if not self.large else data[:PREVIEW]
            self.query_one("#hex-view", PayloadView).set_payload(
                hex_dump(shown, ccsid=v.payload_ccsid))
        self._hex_note()
        self.action_tab(TABS.index("hex") + 1)

    def action_load_all(self) -> None:
        """Every line of the payload (text, hex, pretty), laid out in a worker and drawn as
        it comes into view."""
        if not self.large:
            self.ctx.notify("The whole payload is shown already.")
            return
        if self._loading_all:
            return
        self._loading_all = True
        self.ctx.notify("Loading the whole payload…")
        launch(self.ctx, self._load(self._all, self._show_all, "load the whole payload"),
               what="load the whole payload")

    async def _load(self, read: Callable[[], Any], show: Callable[[Any], object],
                    what: str) -> None:
        """``read()`` in a thread, then ``show`` its result (a failure: one notification)."""
        show(await in_thread(self.ctx, read, queue=self.queue, what=what))

    def _all(self) -> dict[str, list[str]]:
        v = self.view
        text = v.text
        body, _ = pretty(v)
        return {"text": text_lines(text) if text is not None else [],
                "pretty": text_lines(body)}

    def _show_all(self, lines: dict[str, list[str]]) -> None:
        if not self.is_attached:
            return
        v = self.view
        payload = v.payload
        ccsid = v.payload_ccsid
        data = self._hex_source()
        rows = -(-len(data) // HEX_WIDTH)
        shown = {"text": (len(lines["text"]), lines["text"].__getitem__),
                 "pretty": (len(lines["pretty"]), lines["pretty"].__getitem__),
                 "hex": (rows, lambda i: hex_line(data, i, ccsid))}
        for pane, (count, line) in shown.items():
            if pane == "text" and v.text is None:
                continue
            self.query_one(f"#{pane}-view", PayloadView).display = False
            view = self.query_one(f"#{pane}-all", LazyLines)
            view.display = True
            view.show(count, line, width=78 if pane == "hex" else WRAP)
            if self.query_one(TabbedContent).active == pane:
                view.focus()
        self._all_shown = True
        self._hex_note()
        notes = {"text": self.query_one("#text-note", Static),
                 "pretty": self.query_one("#pretty-note", Static)}
        if v.text is not None:
            notes["text"].update(txt(f"{self._text_note()} · all {len(payload):,} bytes"))
        if notes["pretty"].display:
            notes["pretty"].update(txt(f"All {len(lines['pretty']):,} lines"))
        self.ctx.notify("The whole payload is shown.")

    def _decode(self) -> None:
        """The site decoders' results, off the event loop (plugin hooks never run there), each
        decoder given ``decode_limit`` seconds in a daemon thread: one that never returns is
        said to have timed out, and neither this screen nor quitting waits for it. Their
        text is shown made safe, never as markup or escapes."""
        host = self.ctx.plugins
        if not host.has_decoders:
            return
        v = self.view

        def done(results: list[DecodedResult], timed_out: list[str]) -> None:
            self.ctx.post_from_thread(self._show_decoded, results, timed_out)

        host.decode_in_background(v.message, v.payload, limit=self.decode_limit, done=done)

    def _show_decoded(self, results: list[DecodedResult], timed_out: Sequence[str] = ()
                      ) -> None:
        if not self.is_attached:
            return
        note = self.query_one("#decoded-note", Static)
        late = "".join(f"decoder {clean(name)} timed out (no answer in {self.decode_limit:g} s)"
                       " · " for name in timed_out)
        if not results:
            note.update(Text(late.removesuffix(" · ") if late
                             else "No site decoder recognised this payload."))
            return
        names = ", ".join(dict.fromkeys(clean(r.plugin) for r in results))
        note.update(Text(f"{late}Decoded by the site plugin{'s' if len(results) > 1 else ''} "
                         f"{names} · control characters are shown as \\x.. escapes"))
        text = "\n\n".join(f"── {clean(r.title)} ({clean(r.plugin)}) ──\n{clean_block(r.text)}"
                           for r in results)
        self.query_one("#decoded-view", PayloadView).set_payload(text)

    def on_screen_resume(self) -> None:
        self.query_one(Banner).refresh()

    def action_tab(self, n: int) -> None:
        if TABS[n - 1] == "decoded" and not self.ctx.plugins.has_decoders:
            self.ctx.notify("No site plugin decodes payloads (mqconsole plugins lists them).")
            return
        tabs = self.query_one(TabbedContent)
        tabs.active = TABS[n - 1]
        pane = tabs.get_pane(TABS[n - 1])
        for widget in pane.query("DataTable, PayloadView, LazyLines"):
            if widget.display:
                widget.focus()
                break

    def action_back(self) -> None:
        self.app.pop_screen()

    # -- actions on this message ---------------------------------------------------------
    def _targets(self):
        from mqconsole.tui.targets import Targets

        return Targets.single(self.queue, self.view)

    def plugin_targets(self, scope: str):
        """What a site plugin's action of ``scope`` would work on here."""
        from mqconsole.tui.targets import Targets

        return Targets.whole_queue(self.queue) if scope == "queue" else self._targets()

    def action_menu(self) -> None:
        self.actions.menu(self, self._targets())

    def action_move(self) -> None:
        self.actions.transfer(self._targets(), copy=False)

    def action_copy(self) -> None:
        self.actions.transfer(self._targets(), copy=True)

    def action_resubmit(self) -> None:
        self.actions.resubmit(self._targets())

    def action_delete(self) -> None:
        self.actions.delete(self._targets())

    def action_edit(self) -> None:
        self.actions.edit(self.queue, self.view)

    def action_edit_external(self) -> None:
        self.actions.edit(self.queue, self.view, external=True)

    def action_save(self) -> None:
        self.actions.save(self._targets())

    def action_copy_msgid(self) -> None:
        clipboard.copy_text(self.ctx, self.view.msgid, what="MsgId")

    def action_copy_payload(self) -> None:
        clipboard.copy_payload(self.ctx, self.view)

    def action_save_payload(self) -> None:
        clipboard.save_payload(self.ctx, self.view)


__all__ = ["DetailScreen", "header_rows", "pretty", "summary_rows"]
