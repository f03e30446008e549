"""``mqconsole edit``: replace one message's payload and chosen MQMD fields atomically."""

from __future__ import annotations

import click

from mqconsole.cli.errors import CliError
from mqconsole.cli.operate import drive, operation
from mqconsole.cli.output import safe, say

from .common import operation_options, session_of


@click.command("edit")
@click.argument("queue")
@click.argument("msgid")
@click.option("--payload-file", type=click.Path(dir_okay=False), metavar="FILE",
              help="The new body: the bytes of FILE.")
@click.option("--payload-text", metavar="TEXT", help="The new body as text, encoded in the "
              "message's CCSID (or the one --set CodedCharSetId gives).")
@click.option("--set", "assignments", multiple=True, metavar="FIELD=VALUE",
              help="Set an MQMD field (repeatable): Format, Encoding, CodedCharSetId, "
              "Priority, Persistence, Expiry, CorrelId, ReplyToQ, ReplyToQMgr, MsgType, "
              "Feedback. Names of coded values are accepted: Persistence=PERSISTENT, "
              "Format=MQSTR, MsgType=REQUEST.")
@click.option("--to", "to", metavar="QUEUE", help="Put the edited message on this queue "
              "instead (the original is still removed, in the same unit of work).")
@click.option("--position", type=click.IntRange(min=1), default=None,
              help="Which message, when several share MSGID (its browse position).")
@click.option("--new-context", is_flag=True, help="Put with a new context (this user, now).")
@click.option("--new-msgid", is_flag=True, help="Give the edited message a new MsgId.")
@click.option("--keep-headers", is_flag=True, help="Replace only the payload after the "
              "headers (dead-letter header, RFH2 …); text is encoded in the payload's CCSID.")
@click.option("--force", is_flag=True, help="Go ahead although a check reports an error.")
@operation_options
def edit(ctx: click.Context, queue: str, msgid: str, payload_file: str | None,
         payload_text: str | None, assignments: tuple[str, ...], to: str | None,
         position: int | None, new_context: bool, new_msgid: bool, keep_headers: bool,
         force: bool, dry_run: bool, yes: bool, as_json: bool) -> None:
    """Replace message MSGID (hex) of QUEUE with an edited copy, atomically.

    In one unit of work the edited message is put (on QUEUE or --to) and then the original
    got under a browse cursor, then both are committed; if anything fails the unit of work
    is backed out and the original stays as it was. MsgId and context (user, putting
    application, put time) are kept unless --new-msgid/--new-context. Checks run before
    the put: the body must fit the queue's MAXMSGL, an MQSTR body must be text in its
    CCSID, and a payload that was JSON or XML must stay well-formed; they run before any
    question, so a refused edit asks nothing.
    """
    from mqconsole.ops.edit import EditError, parse_assignments
    from mqconsole.ops.operation import Edit
    from mqconsole.ops.selection import SelectionError, parse_msgid

    try:
        msg_id = parse_msgid(msgid, "MSGID")
    except SelectionError as e:
        raise CliError(str(e)) from None
    if payload_file is not None and payload_text is not None:
        raise CliError("give --payload-file or --payload-text, not both")
    if payload_file is None and payload_text is None and not assignments and not to:
        raise CliError("nothing to change: give --payload-file, --payload-text, --set or --to")
    try:
        changes = parse_assignments(assignments)
    except EditError as e:
        raise CliError(str(e)) from None
    body = None
    if payload_file is not None:
        from mqconsole.ops.inputs import MAX_BODY, read_limited

        try:
            body = read_limited(payload_file, MAX_BODY, "--payload-file")
        except OSError as e:
            raise CliError(f"cannot read {payload_file}: {e.strerror}") from None
    session = session_of(ctx)
    op = operation(session, Edit(queue, msg_id, body=body, text=payload_text, changes=changes,
                                 to=to, position=position, new_context=new_context,
                                 new_msg_id=new_msgid, keep_headers=keep_headers,
                                 force=force))
    try:
        drive(session, op, yes=yes, dry_run=dry_run, as_json=as_json)
    except EditError as e:
        for p in e.problems:
            if p.level != "error":  # the errors are in the sentence of the error
                say(safe(f"{p.level}: {p.text}"))
        raise


COMMANDS = [edit]
