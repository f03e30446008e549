"""``mqconsole put``: put test or repair messages with a new context."""

from __future__ import annotations

import click

from mqconsole.cli.errors import CliError
from mqconsole.cli.operate import drive, operation
from mqconsole.mq.reasons import MQPER_NOT_PERSISTENT, MQPER_PERSISTENCE_AS_Q_DEF, MQPER_PERSISTENT

from .common import dry_run_option, json_option, parse_hex, session_of

MQLONG = click.IntRange(-(2**31), 2**31 - 1)  # MQMD's numbers: larger is bad input, not a crash


@click.command("put")
@click.argument("queue")
@click.option("--text", "text", help="Body as text (encoded in --ccsid).")
@click.option("--file", "file", type=click.Path(dir_okay=False), help="Body from a file.")
@click.option("--hex", "hex_", help="Body as hexadecimal.")
@click.option("--format", "fmt", default=None, help="MQMD Format (default MQSTR for --text).")
@click.option("--encoding", type=MQLONG, default=546, show_default=True, help="MQMD Encoding.")
@click.option("--ccsid", type=MQLONG, default=1208, show_default=True,
              help="MQMD CodedCharSetId.")
@click.option("--priority", type=click.IntRange(0, 9), default=None, help="0-9 (default: queue's).")
@click.option("--persistent/--not-persistent", default=None, help="Default: the queue's DEFPSIST.")
@click.option("--msgid", help="MsgId in hex (default: a new one).")
@click.option("--correlid", help="CorrelId in hex.")
@click.option("--reply-to", help="ReplyToQ.")
@click.option("--count", type=click.IntRange(min=1), default=1, show_default=True)
@dry_run_option
@json_option
@click.pass_context
def put(ctx: click.Context, queue: str, text: str | None, file: str | None, hex_: str | None,
        fmt: str | None, encoding: int, ccsid: int, priority: int | None,
        persistent: bool | None, msgid: str | None, correlid: str | None, reply_to: str | None,
        count: int, dry_run: bool, as_json: bool) -> None:
    """Put COUNT messages on QUEUE (body from exactly one of --text, --file, --hex).

    Not asked (a put only adds), refused on a read-only profile; the plugins' put checks
    run before each put (a refused one is not put: exit 1); journaled as ``put`` with the
    new MsgIds (--json: "msgids").
    """
    from mqconsole.mq.ccsid import codec_for
    from mqconsole.mq.md import MQMD
    from mqconsole.mq.names import format_by_text
    from mqconsole.ops.operation import Put

    if reply_to is not None and len(reply_to.strip()) > 48:
        raise CliError(f"--reply-to {reply_to!r} is longer than 48 characters (an MQ queue "
                       "name)")
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
    try:
        format_ = format_by_text(fmt or "")
    except ValueError as e:
        raise CliError(str(e)) from None
    md = MQMD(
        format=format_,
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
    drive(session, operation(session, Put(queue, md, body, count=count)), yes=True,
          dry_run=dry_run, as_json=as_json, ask=False)

COMMANDS = [put]
