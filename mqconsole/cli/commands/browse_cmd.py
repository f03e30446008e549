"""``mqconsole browse``, ``show`` and ``summary``: read-only looks at a queue."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from mqconsole.cli.errors import CliError
from mqconsole.cli.output import emit_json, safe, say, table
from mqconsole.ops.words import counted

from .common import OutputPath, json_option, parse_hex, session_of

if TYPE_CHECKING:
    from mqconsole.backends.base import QueueManager


def _compile(where: str | None, ctx: click.Context | None = None):
    """The --where expression, with the site plugins' audit columns as fields too."""
    if not where:
        return None
    from mqconsole.ops.where import compile_where
    from mqconsole.ops.where_columns import column_fields

    plugins = session_of(ctx).plugins if ctx is not None else None
    return compile_where(where, column_fields(plugins))


@click.command("browse")
@click.argument("queue")
@click.option("--limit", type=click.IntRange(min=1), default=None,
              help="At most N messages (default 50 in text mode, all with --json).")
@click.option("--where", "where", metavar="EXPR", help="Filter, e.g. 'reason = Q_FULL and "
              "age > 2h' (see docs/where.md).")
@click.option("--from", "start", type=click.IntRange(min=1), default=1, metavar="N",
              help="Start at the message at position N (1 = the first), as the console's "
                   "PageDown goes on.")
@click.option("--last", type=click.IntRange(min=1), default=None, metavar="N",
              help="The last N messages (that match --where), as the console's End shows.")
@json_option
@click.pass_context
def browse(ctx: click.Context, queue: str, limit: int | None, where: str | None,
           start: int, last: int | None, as_json: bool) -> None:
    """Browse QUEUE without consuming anything, from its first message on (or from
    --from N, or its --last N)."""
    from mqconsole.ops.browse import iter_views, last_views

    if last is not None and (start != 1 or limit is not None):
        raise CliError("--last N gives the last N messages: it cannot be used with --from "
                       "or --limit")
    predicate = _compile(where, ctx)
    qm = session_of(ctx).connect()
    _look_up(qm, queue)  # unknown queue → one clear error before anything else

    def views(n: int | None):
        if last is not None:
            return last_views(qm, queue, last, where=predicate)
        return iter_views(qm, queue, where=predicate, limit=n, start=start)

    if as_json:
        rows = [v.row() for v in views(limit)]
        emit_json(rows)
        if not rows:
            say(_nothing(qm, queue, matched=bool(where), start=start))
        return
    limit = limit or 50
    body = []
    local = qm.name  # destinations on another queue manager read QUEUE@QMGR
    for v in views(limit):
        r = v.row()
        dlh = r["dlh"] or {}
        body.append([r["position"], (r["put_time"] or "")[:19], r["msgid"][-16:], r["format"],
                     r["length"], r["backout_count"],
                     "" if not dlh else dlh.get("reason_name") or str(dlh.get("reason")),
                     v.destination(local) or "", r["preview"]])
    if not body:
        say(_nothing(qm, queue, matched=bool(where), start=start))
        return
    click.echo(table(["POS", "PUT TIME", "MSGID (end)", "FORMAT", "LEN", "BO", "REASON", "DEST",
                      "PREVIEW"], body, max_width={6: 28, 7: 24, 8: 40}))
    if len(body) == limit and last is None:
        what = "the first" if start == 1 else f"from position {start:,},"
        say(f"showing {what} {limit}; use --limit, --from, --last or --where for more")


def _look_up(qm: QueueManager, queue: str) -> None:
    """The queue is there (else MQ's 2085, said in one sentence) and not a model queue,
    which an MQOPEN would turn into a new, empty dynamic queue."""
    from mqconsole.ops.queues import model_queue_problem

    problem = model_queue_problem(qm.inquire_queue(queue))
    if problem is not None:
        raise CliError(safe(problem))


def _nothing(qm: QueueManager, queue: str, *, matched: bool, start: int) -> str:
    """Why browse shows no message: nothing matched, the queue is empty, or --from starts
    past its last message (not "empty": it holds some)."""
    if start == 1:
        return f"no message on {safe(queue)} matched" if matched else f"{safe(queue)} is empty"
    depth = qm.inquire_queue(queue).depth
    if depth is None:  # the queue manager would not say (no +inq)
        return f"no message on {safe(queue)} from position {start:,}" + (
            " matched" if matched else "")
    if matched:
        return (f"no message on {safe(queue)} from position {start:,} matched (it holds "
                f"{counted(depth, 'message', grouped=True)})")
    if depth == 0:
        return f"{safe(queue)} is empty"
    return (f"nothing on {safe(queue)} from position {start:,}: it holds "
            f"{counted(depth, 'message', grouped=True)}")


@click.command("show")
@click.argument("queue")
@click.argument("msgid")
@click.option("--hex", "hex_mode", flag_value="payload", default=None,
              help="The payload as a hex dump, also when it is text.")
@click.option("--hex-all", "hex_mode", flag_value="all",
              help="A hex dump of the whole message body, MQ headers (MQDLH, MQRFH2, ...) "
                   "included, as the console's Hex tab shows it with h.")
@click.option("--save-payload", "save_payload", metavar="FILE", type=OutputPath(),
              help="Also save the payload's bytes, as they are, to FILE (a new file, never "
                   "overwritten), as the console's W does.")
@json_option
@click.pass_context
def show(ctx: click.Context, queue: str, msgid: str, hex_mode: str | None,
         save_payload: str | None, as_json: bool) -> None:
    """Show one message in full: every MQMD field, its headers and its payload, and what
    site decoders (plugins) make of the payload.

    MSGID is the whole MsgId (48 hex digits) or its end as browse shows it, when no other
    MsgId on the queue ends the same way."""
    from mqconsole.ops.browse import find_by_msgid, find_by_msgid_end

    text = msgid.strip().replace(" ", "").upper()
    if not text or len(text) > 48 or any(c not in "0123456789ABCDEF" for c in text):
        raise CliError(f"MsgId {msgid!r} is not hexadecimal (48 digits, or the end of them)")
    session = session_of(ctx)
    qm = session.connect()
    _look_up(qm, queue)
    if len(text) == 48:
        found = find_by_msgid(qm, queue, parse_hex(text, "MsgId", 24))
    else:
        found = find_by_msgid_end(qm, queue, text)
        ids = list(dict.fromkeys(v.message.md.msg_id.hex().upper() for v in found))
        if len(ids) > 1:
            raise CliError(f"{len(ids)} MsgIds on {queue} end with {text} ({ids[0]}, "
                           f"{ids[1]}{', …' if len(ids) > 2 else ''}): give more of the "
                           "MsgId")
    if not found:
        raise CliError(f"no message with MsgId {text} on {queue}"
                       + ("" if len(text) == 48 else " (nor one ending with it)"))
    if len(found) > 1:
        say(f"{len(found)} messages on {queue} share this MsgId; showing the first "
            f"(position {found[0].position})")
    view = found[0]
    if save_payload:
        _save_payload(save_payload, view.payload)
    doc = view.show()
    # site decoders see the bytes after every MQ header (parsed leniently, as shown)
    doc["decoded"] = [d.to_json() for d in session.plugins.decode(view.message, view.payload)]
    if as_json:
        emit_json(doc)
        return
    from mqconsole.cli.render import format_show_text

    if hex_mode == "all":
        offset = view.payload_offset
        note = (f"the whole body, MQ headers included: the payload starts at byte {offset:,} "
                f"(0x{offset:x})")
        click.echo(format_show_text(doc, hex_of=bytes(view.message.body), hex_note=note))
    elif hex_mode == "payload":
        click.echo(format_show_text(doc, hex_of=view.payload, hex_note="the payload in hex"))
    else:
        click.echo(format_show_text(doc))


def _save_payload(path: str, data: bytes) -> None:
    """The payload's bytes to a new file (0600), never over an existing one."""
    from mqconsole.ops.savefile.publish import write_new_file

    target = write_new_file(path, data)
    say(f"wrote the payload ({counted(len(data), 'byte', grouped=True)}) to {safe(target)}")


@click.command("summary")
@click.argument("queue")
@json_option
@click.pass_context
def summary(ctx: click.Context, queue: str, as_json: bool) -> None:
    """What is on QUEUE at a glance: reasons × destinations, formats, ages, sizes."""
    from mqconsole.ops.summary import format_summary_text, summarize_queue

    qm = session_of(ctx).connect()
    _look_up(qm, queue)
    doc = summarize_queue(qm, queue)
    doc["queue"] = queue
    if as_json:
        emit_json(doc)
    else:
        click.echo(format_summary_text(doc))


COMMANDS = [browse, show, summary]
_ = safe
