"""Copying a MsgId or a payload to the clipboard (OSC 52), or saving a payload to a file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mqconsole.tui.context import ConsoleContext
from mqconsole.tui.flow import in_thread, launch
from mqconsole.tui.safe import txt
from mqconsole.tui.screens.dialogs import InputDialog
from mqconsole.tui.widgets.paths import PathSuggester

CLIPBOARD_LIMIT = 60_000  # larger payloads are saved to a file instead


def copy_text(ctx: ConsoleContext, text: str, *, what: str) -> None:
    ctx.app.copy_to_clipboard(text)
    ctx.notify(f"Copied the {what} to the clipboard (OSC 52). If your terminal ignores "
               "OSC 52, W saves it to a file.")


def copy_payload(ctx: ConsoleContext, view: Any) -> None:
    """The payload as text when it is plain text, else as hex."""
    from mqconsole.mq.payload import safe_text

    text = view.text
    if text is not None and safe_text(text) == text:
        data, what = text, "payload"
    else:
        data, what = view.payload.hex(), "payload (as hex: it is not plain text)"
    if len(data) > CLIPBOARD_LIMIT:
        ctx.notify("The payload is too large for the clipboard (OSC 52): save it to a "
                   "file instead.", severity="warning")
        save_payload(ctx, view)
        return
    copy_text(ctx, data, what=what)


def new_file_problem(path: str) -> str | None:
    """Why ``path`` cannot be a new file (files are never overwritten), or None."""
    from mqconsole.ops.savefile.publish import new_target_problem

    problem = new_target_problem(path)
    return None if problem is None else f"{problem[:1].upper()}{problem[1:]}."


def save_payload(ctx: ConsoleContext, view: Any) -> None:
    """Ask for a file name and write the payload bytes there (never over an existing file)."""
    folder = ctx.settings.save_dir or Path.cwd()
    default = str(Path(folder) / f"payload-{view.msgid[-16:]}.bin")


    def got(path: str | None) -> None:
        if not path:
            return
        data = bytes(view.payload)

        def write() -> str:
            from mqconsole.ops.savefile.publish import write_new_file

            return str(write_new_file(path, data))

        async def save() -> None:
            written = await in_thread(ctx, write, queue=None, what="save payload")
            ctx.notify(f"Wrote {len(data):,} bytes to {written}")

        launch(ctx, save(), what="save payload")

    ctx.app.push_screen(InputDialog("Save the payload",
                                    txt("Save the payload (its bytes as they are) to:"),
                                    value=default, validate=new_file_problem,
                                    suggester=PathSuggester()), got)


__all__ = ["copy_payload", "copy_text", "save_payload"]
