"""``mqconsole edit``: replace one message's payload and chosen MQMD fields atomically."""

from __future__ import annotations

from pathlib import Path

import click

from mqconsole.cli.errors import CliError
from mqconsole.cli.output import safe, say

from .common import (
    confirm_change,
    dry_run_option,
    journal_result,
    json_option,
    session_of,
    yes_option,
)
from .delete_cmd import finish


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
@dry_run_option
@yes_option
@json_option
@click.pass_context
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
    CCSID, and a payload that was JSON or XML must stay well-formed.
    """
    from mqconsole.ops.edit import EditError, edit_message, parse_assignments
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
        try:
            body = Path(payload_file).read_bytes()
        except OSError as e:
            raise CliError(f"cannot read {payload_file}: {e.strerror}") from None
    session = session_of(ctx)
    confirm_change(session, f"replacing message {msgid} on {queue}", yes=yes, dry_run=dry_run)
    qm = session.connect()
    try:
        out = edit_message(qm, queue, msg_id, body=body, text=payload_text, changes=changes,
                           to=to, position=position, new_context=new_context,
                           new_msg_id=new_msgid, keep_headers=keep_headers, force=force,
                           dry_run=dry_run)
    except EditError as e:
        for p in e.problems:
            if p.level != "error":  # the errors are in the sentence below
                say(safe(f"{p.level}: {p.text}"))
        raise CliError(str(e)) from None
    from mqconsole.ops.record import edit_details

    original, edited = out.original, out.edited
    details = edit_details(out, changes, new_context=new_context)
    diff = details["changes"]
    journal_result(session, out.result, details=details)
    dest = to or queue
    if not as_json:
        for attr, v in diff.items():
            say(safe(f"  {attr}: {v['before']!r} -> {v['after']!r}"))
        if original is not None and edited is not None and original.body != edited.body:
            say(f"  body: {len(original.body)} -> {len(edited.body)} bytes")
    if dry_run:
        text = f"would replace message {msgid} at position {out.position} of {queue}" + (
            f" with one on {dest}" if dest != queue else "")
    elif out.result.done:
        text = f"replaced message {out.result.done_msgids[0]} at position {out.position} of " \
               f"{queue}" + (f" with one on {dest}" if dest != queue else "")
    elif out.result.outcome_unknown:
        text = f"replacing message {msgid} of {queue}: the outcome is unknown"
    else:
        text = f"message {msgid} of {queue} was not replaced; it is unchanged"
    finish(ctx, out.result, as_json=as_json, done_text=text,
           extra={"position": out.position, "msgid": out.new_msgid,
                  "problems": [p.to_json() for p in out.problems]})


COMMANDS = [edit]
