"""Resubmit: send messages from a dead-letter or backout queue back where they were going.

Each selected message goes to its own destination, in the units of work of the move engine
(:mod:`mqconsole.ops.transfer`: put first, then get under the cursor, commit every
``batch``; a put that fails leaves the message where it was, with the reason):

* **With a dead-letter header** (MQMD Format ``MQDEAD``): to the header's DestQName, on
  DestQMgrName when that is another queue manager (the put names it as ObjectQMgrName and
  the local queue manager routes it through a transmission queue or a queue manager alias;
  no route is 2087). The header is removed and Format, Encoding and CodedCharSetId are
  restored from it, as IBM's handler does; the rest of the descriptor (MsgId, CorrelId,
  identity and origin context) is kept: the put sets all context.
* **A header whose Format is MQXMIT** (a message dead-lettered off a transmission queue)
  is followed by a transmission header (MQXQH, perhaps with an MQMDE): the message is
  unwrapped — its descriptor is the one inside the MQXQH (with the MQMDE's version-2
  fields), its body what follows — and put to the XQH's RemoteQName on RemoteQMgrName, so
  the local queue manager routes it again (and wraps it in a fresh MQXQH on whatever
  transmission queue serves that queue manager now). This is runmqdlq's RETRY: the message
  is retried towards where it was going, not pushed back onto a transmission queue as
  bytes (which would bypass the routing that may since have been fixed).
* **Without a dead-letter header** (a backout queue, or a dead-letter queue that is also a
  backout queue): to the queue whose BOQNAME names the queue being resubmitted from. When
  several queues name it the operation refuses (:class:`OriginError`, listing them) unless
  ``to`` says which; when none does, ``to`` is needed. ``to`` only applies to messages
  without a dead-letter header.
* Messages whose Report field asks for COA or COD reports are counted in a warning: they
  will generate report messages again when they arrive.

The destination label in results is ``QUEUE`` for the local queue manager and
``QUEUE@QMGR`` for another one.
"""

from __future__ import annotations

from typing import cast

from mqconsole.backends.base import Context, FindsMessages, QueueManager
from mqconsole.mq.chain import (
    DEFAULT_CHAR_CCSID,
    dead_letter_header,
    format_key,
    strip_dead_letter_header,
)
from mqconsole.mq.dlh import byte_order
from mqconsole.mq.errors import HeaderError
from mqconsole.mq.message import Message
from mqconsole.mq.reasons import MQRC_HEADER_ERROR, MQRC_UNKNOWN_OBJECT_NAME
from mqconsole.mq.xqh import FORMAT_MDE, MQMDE, MQMDE_LENGTH, MQXQH, MQXQH_LENGTH
from mqconsole.ops.result import Control, OperationResult, PutCheck
from mqconsole.ops.selection import Selection, SelectionError
from mqconsole.ops.transfer import (
    Route,
    TransferError,
    Unroutable,
    dlh_changes,
    local_prediction,
    run_engine,
)
from mqconsole.ops.uowlimit import DEFAULT_BATCH_BYTES

__all__ = ["REPORT_COA_COD", "OriginError", "backout_origins", "origin_of", "resubmit",
           "unwrap_xmit"]

# MQRO_COA, _WITH_DATA, _WITH_FULL_DATA and the same for COD
REPORT_COA_COD = 0x00000700 | 0x00003800

_NOTES = {
    # filled in by ops.words.note: "1 message", "2 messages", and verbs that agree
    "report": "{messages} {ask} for COA/COD reports (MQMD Report): resubmitted, they will "
              "generate report messages again",
    "xmit": "{messages} had a transmission header (MQXQH) under the dead-letter header, "
            "unwrapped and routed to the queue manager the MQXQH names",
}


class OriginError(SelectionError):
    """Messages without a dead-letter header whose origin is not one queue: say which."""

    def __init__(self, message: str, candidates: list[str]) -> None:
        super().__init__(message)
        self.candidates = candidates


def backout_origins(qm: QueueManager, queue: str) -> list[str]:
    """The queues whose BOQNAME names ``queue``, sorted."""
    return sorted(q.name for q in qm.list_queues("*")
                  if (q.boqname or "").strip() == queue and q.name != queue)


def unwrap_xmit(message: Message) -> tuple[Message, str, str]:
    """A message in its transmission header (MQMD Format MQXMIT): the original message
    (the MQXQH's descriptor with the MQMDE's fields, the data after them), and the
    RemoteQName and RemoteQMgrName. HeaderError when the headers are not valid."""
    md, body = message.md, message.body
    char_ccsid = md.ccsid if md.ccsid > 0 else DEFAULT_CHAR_CCSID
    xqh = MQXQH.unpack(body, 0, big_endian=byte_order(md.encoding), ccsid=char_ccsid)
    inner = xqh.md.copy(version=2)
    rest = body[MQXQH_LENGTH:]
    if format_key(inner.format) == format_key(FORMAT_MDE):
        mde = MQMDE.unpack(rest, 0, big_endian=byte_order(inner.encoding),
                           ccsid=inner.ccsid if inner.ccsid > 0 else char_ccsid)
        inner = inner.copy(format=mde.format, encoding=mde.encoding, ccsid=mde.ccsid,
                           group_id=mde.group_id, msg_seq_number=mde.msg_seq_number,
                           offset=mde.offset, msg_flags=mde.msg_flags,
                           original_length=mde.original_length)
        rest = rest[MQMDE_LENGTH:]
    if not xqh.remote_q:
        raise HeaderError("MQXQH", 4, "RemoteQName is blank")
    return Message(inner, bytes(rest)), xqh.remote_q, xqh.remote_qmgr


def _needs_origin(qm: QueueManager, queue: str, selection: Selection) -> bool:
    """Does any selected message lack a dead-letter header? (browse only; named messages
    are found by what names them, ``ops.pinpoint``, not by browsing the queue)"""
    from mqconsole.ops.browse import iter_views
    from mqconsole.ops.pinpoint import pinpoint, pinpointable
    from mqconsole.ops.timefmt import utcnow

    if pinpointable(selection):
        with qm.browse(queue) as cursor:
            found = pinpoint(cursor, selection, utcnow())
            if found is not None:
                finder = cast("FindsMessages", cursor)
                for t in found.targets[:selection.limit]:
                    m = finder.browse_token(t.token)
                    if m is not None and format_key(m.md.format) != "MQDEAD":
                        return True
                return False
    matched = 0
    for view in iter_views(qm, queue):
        if not selection.matches(view):
            continue
        if format_key(view.message.md.format) != "MQDEAD":
            return True
        matched += 1
        if selection.limit is not None and matched >= selection.limit:
            break
    return False


def origin_of(qm: QueueManager, queue: str, selection: Selection, to: str | None = None
              ) -> str | None:
    """Where the selected messages without a dead-letter header go: ``to``, or the one
    queue whose BOQNAME names ``queue`` (None when every selected message has a header).

    Raises before anything changes: MQError 2085 when ``queue`` or ``to`` does not exist,
    :class:`OriginError` when messages without a header have no single origin and ``to``
    is not given, :class:`~mqconsole.ops.transfer.TransferError` when ``to`` is ``queue``.
    """
    qm.inquire_queue(queue)
    if to is not None:
        to = to.strip()
        if to == queue:
            raise TransferError(f"--to {to} is the queue the messages are on")
        qm.inquire_queue(to)
    origins = backout_origins(qm, queue)
    fallback = to or (origins[0] if len(origins) == 1 else None)
    if fallback is None and _needs_origin(qm, queue, selection):
        if origins:
            raise OriginError(
                f"{queue} is the backout queue of {len(origins)} queues "
                f"({', '.join(origins)}): say which one the messages without a dead-letter "
                "header go back to with --to QUEUE", origins)
        raise OriginError(
            f"some selected messages on {queue} have no dead-letter header and no queue "
            f"names {queue} as its BOQNAME: say where they go with --to QUEUE", [])
    return fallback


def resubmit(qm: QueueManager, queue: str, selection: Selection, *, to: str | None = None,
             batch: int = 100, batch_bytes: int = DEFAULT_BATCH_BYTES,
             dry_run: bool = False, control: Control | None = None,
             done_destinations: dict[str, str] | None = None,
             check: PutCheck | None = None,
             context: Context = Context.SET_ALL) -> OperationResult:
    """Send the selected messages of ``queue`` back to where they were going (see the module
    docstring). ``context``: ``SET_ALL`` keeps each message's context (needs +setall on the
    destination and the queue manager); ``NEW`` (``--context default``) puts with the
    resubmitter's own (+put only). ``done_destinations``, when given, is filled with MsgId
    (hex) → destination label for every message done (for the journal). ``check``: the
    plugins' put checks, given each message as it is put (its dead-letter header removed).

    Raises before changing anything, as :func:`origin_of` says.
    """
    local = qm.inquire_qmgr().name
    to = to.strip() if to is not None else None
    fallback = origin_of(qm, queue, selection, to)

    def planner(m: Message) -> Route:
        notes: list[str] = []
        if m.md.report & REPORT_COA_COD:
            notes.append("report")
        if format_key(m.md.format) != "MQDEAD":
            if fallback is None:
                raise Unroutable(MQRC_UNKNOWN_OBJECT_NAME,
                                 "no dead-letter header and no queue to send it back to "
                                 "(give --to)")
            return Route(fallback, fallback, m, notes=tuple(notes))
        dlh = dead_letter_header(m.md, m.body)
        try:
            md, body = strip_dead_letter_header(m.md, m.body)
        except HeaderError as e:
            raise Unroutable(MQRC_HEADER_ERROR,
                             f"its dead-letter header is not valid: {e}") from None
        assert dlh is not None
        out = Message(md, body)
        changes = list(dlh_changes(m, out))
        dest_q, dest_qmgr = dlh.dest_q, dlh.dest_qmgr
        if format_key(md.format) == "MQXMIT":
            try:
                out, dest_q, dest_qmgr = unwrap_xmit(out)
            except HeaderError as e:
                raise Unroutable(MQRC_HEADER_ERROR,
                                 f"its transmission header is not valid: {e}") from None
            changes.append(f"unwrap MQXQH (to {dest_q} on {dest_qmgr or local}): Format "
                           f"{format_key(out.md.format) or 'MQFMT_NONE'}, Encoding "
                           f"{out.md.encoding}, CodedCharSetId {out.md.ccsid}")
            notes.append("xmit")
            if out.md.report & REPORT_COA_COD and "report" not in notes:
                notes.append("report")
        if not dest_q:
            raise Unroutable(MQRC_UNKNOWN_OBJECT_NAME,
                             "its dead-letter header names no destination queue")
        qmgr_name = "" if dest_qmgr in ("", local) else dest_qmgr
        label = f"{dest_q}@{qmgr_name}" if qmgr_name else dest_q
        return Route(dest_q, label, out, qmgr_name=qmgr_name, changes=tuple(changes),
                     notes=tuple(notes))

    result = run_engine(qm, queue, selection, planner, operation="resubmit", destination=None,
                        batch=batch, batch_bytes=batch_bytes, context=context,
                        dry_run=dry_run,
                        control=control, note_texts=_NOTES,
                        done_destinations=done_destinations,
                        predict=local_prediction(qm, context),
                        check=check)
    if to is not None and not any(e.get("destination") == to for e in result.plan) \
            and to not in result.moved_to and not any(f.destination == to
                                                      for f in result.failed):
        result.warnings.append(f"--to {to} was not used: every selected message had a "
                               "dead-letter header naming its destination")
    return result

