"""Options and helpers shared by commands."""

from __future__ import annotations

from typing import Any

import click

from mqconsole.cli.session import Session

json_option = click.option("--json", "as_json", is_flag=True, help="JSON on stdout.")


def session_of(ctx: click.Context) -> Session:
    return ctx.find_root().obj


def parse_hex(value: str, what: str, length: int | None = None) -> bytes:
    from mqconsole.cli.errors import CliError

    text = value.strip().replace(" ", "")
    try:
        data = bytes.fromhex(text)
    except ValueError:
        raise CliError(f"{what} {value!r} is not hexadecimal") from None
    if length is not None:
        if len(data) > length:
            raise CliError(f"{what} {value!r} is longer than {length} bytes")
        data = data.ljust(length, b"\x00")
    return data


# -- selection, --yes, --dry-run, --batch: shared by every changing command ---------------

def _keep(ctx: click.Context, param: click.Parameter, value: object) -> object:
    """Options that only narrow a selection are kept for :func:`build_selection` (so the
    commands' signatures stay as they are)."""
    ctx.meta[f"selection.{param.name}"] = value
    return value


def selection_options(fn):
    """--msgid (repeatable) with --position or --all-duplicates, --token, --msgids-from,
    --where, --limit, --all."""
    opts = [
        click.option("--msgid", "msgids", multiple=True, metavar="HEX",
                     help="A message id (repeatable). One carried by several messages is "
                     "refused: name one with --position or --token, or say --all-duplicates."),
        click.option("--position", "positions", multiple=True, type=click.IntRange(min=1),
                     metavar="N", expose_value=False, callback=_keep,
                     help="With each --msgid (in order): the message at that position "
                     "(browse shows it), checked to carry the MsgId."),
        click.option("--token", "tokens", multiple=True, metavar="HEX", expose_value=False,
                     callback=_keep, help="A message by its MsgToken (browse --json shows "
                     "it; repeatable)."),
        click.option("--all-duplicates", is_flag=True, expose_value=False, callback=_keep,
                     help="A --msgid carried by several messages takes them all."),
        click.option("--msgids-from", metavar="FILE", type=InputPath(),
                     help="A file of message ids, one per line."),
        click.option("--where", "where", metavar="EXPR", help="Messages matching this "
                     "expression (docs/where.md)."),
        click.option("--limit", type=click.IntRange(min=1), default=None,
                     help="At most N messages."),
        click.option("--all", "all_", is_flag=True, help="Every message on the queue."),
    ]
    for o in reversed(opts):
        fn = o(fn)
    return fn


def selection_given(msgids, msgids_from, where, all_) -> bool:
    """Whether the command line chose messages at all (--msgid, --msgids-from, --where,
    --all, or --token/--position/--all-duplicates kept by :func:`_keep`)."""
    meta = click.get_current_context().meta
    return bool(msgids or msgids_from or where or all_ or any(
        meta.get(f"selection.{k}") for k in ("positions", "tokens", "all_duplicates")))


def build_selection(msgids, msgids_from, where, limit, all_):
    from mqconsole.cli.errors import CliError
    from mqconsole.ops.selection import Selection, SelectionError
    from mqconsole.ops.where_columns import column_fields

    context = click.get_current_context()
    meta = context.meta
    columns = column_fields(session_of(context).plugins) if where else ()
    try:
        return Selection.build(msgids=msgids, msgids_from=msgids_from, where=where, limit=limit,
                               all_=all_, positions=meta.get("selection.positions") or (),
                               tokens=meta.get("selection.tokens") or (),
                               all_duplicates=bool(meta.get("selection.all_duplicates")),
                               columns=columns)
    except SelectionError as e:
        raise CliError(str(e)) from None


yes_option = click.option("--yes", "-y", is_flag=True, help="Do it without asking "
                          "(needed when stdin is not a terminal).")
dry_run_option = click.option("--dry-run", is_flag=True, help="Print the plan; change nothing.")

batch_option = click.option("--batch", type=click.IntRange(min=1), default=100,
                            show_default=True, help="Commit every N messages (one unit of "
                            "work).")


class ByteSize(click.ParamType):
    """A size: ``1048576``, ``512k``, ``64MiB``, ``1G`` (``ops.uowlimit.parse_bytes``)."""

    name = "size"

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> int:
        if isinstance(value, int):
            return value
        from mqconsole.ops.uowlimit import parse_bytes

        try:
            return parse_bytes(str(value))
        except ValueError as exc:
            self.fail(str(exc), param, ctx)


context_option = click.option(
    "--context", "context", type=click.Choice(["set-all", "default", "pass"]), default=None,
    help="The context the messages are put with: set-all (the default) keeps each "
    "message's own (needs +setall on the destination and the queue manager); default puts "
    "with yours, as a new message (needs only +put; as --new-context); pass (move and "
    "resubmit) gets each message first and passes its context (needs +passall on the "
    "destination; a unit of work per message).")


def new_context_of(new_context: bool, context: str | None) -> bool:
    """``--new-context`` and ``--context`` together: True for a new (default) context.
    Contradicting each other is bad input (exit 2), said before anything is asked."""
    from mqconsole.cli.errors import CliError

    if new_context and context == "set-all":
        raise CliError("--new-context and --context set-all contradict each other: give one")
    return new_context or context == "default"


batch_bytes_option = click.option(
    "--batch-bytes", type=ByteSize(), default="64MiB", show_default=True,
    help="Commit also before a unit of work would hold more than this many bytes of "
    "messages (the queue manager's recovery log holds a unit's persistent messages: a "
    "unit too big for it ends in 2102). One message alone always goes.")


def operation_options(fn):
    """--dry-run, --yes and --json, and the click context: what every command driving an
    operation (``cli.operate.drive``) takes, in this order."""
    for o in reversed((dry_run_option, yes_option, json_option, click.pass_context)):
        fn = o(fn)
    return fn


# -- paths: what a command reads, and what it writes (refused when it is mqconsole's own) ----

class InputPath(click.Path):
    """A file or folder a command only reads (checked by the command itself, as it reads:
    a missing or unreadable file is said in one sentence there, not by click)."""

    def __init__(self) -> None:
        super().__init__(readable=False, path_type=str)


class OutputPath(click.Path):
    """A file or folder a command writes: refused while the command line is read (exit 2,
    one sentence naming the option and the file) when it is, or links to, one of
    mqconsole's own files (``mqconsole.ops.outputs``). ``allow``: the kinds of file the
    option itself writes (the attempts file is an SQLite file...)."""

    def __init__(self, *, allow: tuple[str, ...] = (), dir_okay: bool = False) -> None:
        # click's own checks stay off (its error is a usage screen, not one sentence): a
        # folder where a file is written is said by the command
        super().__init__(readable=False, path_type=str)
        self.writes_folder = dir_okay
        self.allow = allow

    def convert(self, value, param, ctx):
        from mqconsole.ops.outputs import check_output

        path = super().convert(value, param, ctx)
        if ctx is not None and ctx.resilient_parsing:
            return path
        root = ctx.find_root().obj if ctx is not None else None
        state = root.state_files() if isinstance(root, Session) else None
        check_output(path, option_label(param), state, allow=self.allow)
        return path


def option_label(param: click.Parameter | None) -> str:
    """``--html`` for an option, ``FILE`` for an argument."""
    if param is None:
        return "the file"
    if isinstance(param, click.Option):
        return max(param.opts, key=len)
    return ""  # an argument: the file's name says enough
