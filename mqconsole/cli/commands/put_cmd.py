"""``mqconsole put``: put test or repair messages with a new context."""

from __future__ import annotations

import click

from mqconsole.cli.errors import CliError
from mqconsole.cli.output import emit_json, say
from mqconsole.mq.reasons import MQPER_NOT_PERSISTENT, MQPER_PERSISTENCE_AS_Q_DEF, MQPER_PERSISTENT
from mqconsole.ops.words import counted

from .common import json_option, parse_hex, session_of


def resolve_format(text: str) -> str:
    """``MQSTR``, ``STRING``, ``MQFMT_STRING`` or any 8-character application format."""
    from mqconsole.mq import _generated_constants as g

    t = text.strip()
    up = t.upper()
    for key in (up, "MQFMT_" + up):
        if key in g.MQFMT:
            return g.MQFMT[key]
    if len(t) > 8:
        raise CliError(f"format {text!r} is longer than 8 characters")
    return t.ljust(8)


@click.command("put")
@click.argument("queue")
@click.option("--text", "text", help="Body as text (encoded in --ccsid).")
@click.option("--file", "file", type=click.Path(dir_okay=False), help="Body from a file.")
@click.option("--hex", "hex_", help="Body as hexadecimal.")
@click.option("--format", "fmt", default=None, help="MQMD Format (default MQSTR for --text).")
@click.option("--encoding", type=int, default=546, show_default=True, help="MQMD Encoding.")
@click.option("--ccsid", type=int, default=1208, show_default=True, help="MQMD CodedCharSetId.")
@click.option("--priority", type=click.IntRange(0, 9), default=None, help="0-9 (default: queue's).")
@click.option("--persistent/--not-persistent", default=None, help="Default: the queue's DEFPSIST.")
@click.option("--msgid", help="MsgId in hex (default: a new one).")
@click.option("--correlid", help="CorrelId in hex.")
@click.option("--reply-to", help="ReplyToQ.")
@click.option("--count", type=click.IntRange(min=1), default=1, show_default=True)
@json_option
@click.pass_context
def put(ctx: click.Context, queue: str, text: str | None, file: str | None, hex_: str | None,
        fmt: str | None, encoding: int, ccsid: int, priority: int | None,
        persistent: bool | None, msgid: str | None, correlid: str | None, reply_to: str | None,
        count: int, as_json: bool) -> None:
    """Put COUNT messages on QUEUE (body from exactly one of --text, --file, --hex)."""
    from mqconsole.mq.ccsid import codec_for
    from mqconsole.mq.md import MQMD
    from mqconsole.ops.messages import put_messages

    given = [x for x in (text, file, hex_) if x is not None]
    if len(given) != 1:
        raise CliError("put needs exactly one of --text, --file or --hex")
    if text is not None:
        codec = codec_for(ccsid)
        if codec is None:
            raise CliError(f"CCSID {ccsid} has no codec here: use --hex or --file for the body")
        try:
            body = text.encode(codec)
        except UnicodeEncodeError as e:
            raise CliError(f"--text cannot be encoded in CCSID {ccsid}: {e.reason}") from None
        fmt = fmt or "MQSTR"
    elif file is not None:
        from mqconsole.ops.inputs import MAX_BODY, read_limited

        try:
            body = read_limited(file, MAX_BODY, "--file")
        except OSError as e:
            raise CliError(f"cannot read {file}: {e.strerror}") from None
    else:
        body = parse_hex(hex_ or "", "--hex")
    md = MQMD(
        format=resolve_format(fmt or ""),
        encoding=encoding,
        ccsid=ccsid,
        priority=-1 if priority is None else priority,
        persistence=(MQPER_PERSISTENCE_AS_Q_DEF if persistent is None
                     else MQPER_PERSISTENT if persistent else MQPER_NOT_PERSISTENT),
        msg_id=parse_hex(msgid, "--msgid", 24) if msgid else b"\x00" * 24,
        correl_id=parse_hex(correlid, "--correlid", 24) if correlid else b"\x00" * 24,
        reply_to_q=reply_to or "",
    )
    session = session_of(ctx)
    session.refuse_if_read_only(f"putting to {queue}")
    put_ids = put_messages(session.connect(), queue, md, body, count=count)
    if as_json:
        emit_json({"queue": queue, "put": len(put_ids), "msgids": put_ids})
    else:
        say(f"put {counted(len(put_ids))} on {queue}")


COMMANDS = [put]
