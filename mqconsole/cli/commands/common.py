"""Options and helpers shared by commands."""

from __future__ import annotations

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


# -- selection, safety, progress and journal: shared by every changing command -----------

def selection_options(fn):
    """--msgid (repeatable), --msgids-from, --where, --limit, --all."""
    opts = [
        click.option("--msgid", "msgids", multiple=True, metavar="HEX",
                     help="A message id (repeatable)."),
        click.option("--msgids-from", metavar="FILE", help="A file of message ids, one per "
                     "line."),
        click.option("--where", "where", metavar="EXPR", help="Messages matching this "
                     "expression (docs/where.md)."),
        click.option("--limit", type=click.IntRange(min=1), default=None,
                     help="At most N messages."),
        click.option("--all", "all_", is_flag=True, help="Every message on the queue."),
    ]
    for o in reversed(opts):
        fn = o(fn)
    return fn


def build_selection(msgids, msgids_from, where, limit, all_):
    from mqconsole.cli.errors import CliError
    from mqconsole.ops.selection import Selection, SelectionError

    try:
        return Selection.build(msgids=msgids, msgids_from=msgids_from, where=where, limit=limit,
                               all_=all_)
    except SelectionError as e:
        raise CliError(str(e)) from None


yes_option = click.option("--yes", "-y", is_flag=True, help="Do it without asking "
                          "(needed when stdin is not a terminal).")
dry_run_option = click.option("--dry-run", is_flag=True, help="Print the plan; change nothing.")


def confirm_change(session: Session, what: str, *, yes: bool, dry_run: bool) -> None:
    """Refuse on a read-only profile; without a terminal require --yes; else ask."""
    import sys

    from mqconsole.cli.errors import CliError
    from mqconsole.cli.exit_codes import ExitCode

    session.refuse_if_read_only(what)
    if dry_run or yes:
        return
    if not sys.stdin.isatty():
        raise CliError(f"{what}: without a terminal a change needs --yes (or --dry-run)",
                       ExitCode.REFUSED)
    if not click.confirm(f"{what}?", err=True, default=False):
        raise CliError(f"{what}: not confirmed, nothing changed", ExitCode.REFUSED)


def progress_control(enabled: bool = True):
    """A Control that draws a progress line on stderr when stderr is a terminal."""
    import sys
    import time

    from mqconsole.ops.result import Control

    if not enabled or not sys.stderr.isatty():
        return Control()
    last = [0.0]

    def draw(done: int, total: int | None) -> None:
        now = time.monotonic()
        if now - last[0] < 0.1 and (total is None or done < total):
            return
        last[0] = now
        if total:
            width = 30
            filled = int(width * min(done, total) / total)
            bar = "#" * filled + "-" * (width - filled)
            sys.stderr.write(f"\r[{bar}] {done}/{total}")
        else:
            sys.stderr.write(f"\r{done} messages")
        if total is not None and done >= total:
            sys.stderr.write("\n")
        sys.stderr.flush()

    return Control(progress=draw)


def journal_result(session: Session, result, *, details: dict | None = None,
                   done_destinations: dict[str, str] | None = None) -> None:
    """Append the operation to the change journal (dry runs are recorded as such)."""
    from mqconsole.ops.journal import Journal
    from mqconsole.ops.record import record

    qm = session.connect()
    # --embedded runs without a config file: the default journal in the state directory
    journal_path = None if session.embedded_path is not None else session.config.journal.path
    record(Journal(journal_path), result, qmgr=qm.name, profile=session.profile.name,
           details=details, done_destinations=done_destinations)


batch_option = click.option("--batch", type=click.IntRange(min=1), default=100,
                            show_default=True, help="Commit every N messages (one unit of "
                            "work).")
