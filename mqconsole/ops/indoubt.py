"""Changes that ended in doubt, and settling them (issue 28 item 16).

A move, copy or load ends *in doubt* when the journal cannot say whether its last unit of
work committed: the process was killed between the unit's record and its commit record, or
MQ could not confirm the commit (exit 5). A move to another queue manager commits on the
destination first, so its in-doubt messages may then be on both queues: running it again
would move the copies left on the source once more, doubling them on the destination.

:func:`last_in_doubt` finds, in the journal, the newest run of the same operation from the
same source to the same destination (same queue managers) and answers it when it ended in
doubt; the faces say so before they ask (``Operation.cautions``). :func:`resolve` settles
it: it looks for each in-doubt message on the destination (by MsgId and body) and, for a
move, removes from the source exactly the in-doubt messages found there — one source copy
for each destination copy, got under syncpoint and checked to be the one browsed, in units
of work, journaled as ``resolve-in-doubt``. For a copy or a load nothing is removed: the
record says which in-doubt messages are on the destination (the rest were not put)."""

from __future__ import annotations

import os
import stat
from collections import Counter
from typing import TYPE_CHECKING, Any

from mqconsole.mq.errors import MQError
from mqconsole.mq.reasons import MQRC_NO_MSG_UNDER_CURSOR
from mqconsole.ops.result import Control, OperationResult
from mqconsole.ops.words import agree, counted

if TYPE_CHECKING:
    from mqconsole.backends.base import QueueManager
    from mqconsole.ops.journal import Journal, JournalEntry

RESOLVE = "resolve-in-doubt"
TAIL_BYTES = 64 << 20  # the journal's newest part looked at for the last run (any size)


def last_in_doubt(journal: Journal, *, operation: str, qmgr: str | None, source: str,
                  destination: str, dest_qmgr: str | None = None) -> JournalEntry | None:
    """The newest ``operation`` (``move``, ``copy``, ``load``) from ``source`` to
    ``destination`` on ``qmgr`` (``dest_qmgr``: the destination's queue manager when it is
    another one) — or a ``resolve-in-doubt`` of one — in the journal's newest
    :data:`TAIL_BYTES`, when it ended in doubt (its ``in_doubt`` ids); else None. A journal
    that cannot be read is no doubt (its problems are said where it is read)."""
    try:
        # a journal that is not a plain file (/dev/full, a FIFO) is never read to find a
        # doubt: a character device reads for ever (its writes fail, and are said there)
        if not stat.S_ISREG(os.stat(journal.path).st_mode):
            return None
        entries = journal.read_tail(TAIL_BYTES, ids=False)
    except (OSError, ValueError):
        return None
    # a unit record names a destination on another queue manager as QUEUE@QMGR
    names = {destination} | ({f"{destination}@{dest_qmgr}"} if dest_qmgr else set())
    for entry in reversed(entries):
        if entry.dry_run or entry.source != source or entry.qmgr != qmgr:
            continue
        details = entry.details or {}
        kind = details.get("resolves") if entry.operation == RESOLVE else entry.operation
        if kind != operation or not names.intersection(entry.destinations):
            continue
        if details.get("destination_qmgr") != dest_qmgr:
            continue
        return entry if entry.in_doubt else None
    return None


def doubt_caution(entry: JournalEntry, operation: str, source: str, destination: str) -> str:
    """The warning a face shows before it asks, for a last run that ended in doubt."""
    n = len(entry.in_doubt)
    when = entry.time.strftime("%Y-%m-%d %H:%M:%SZ")
    if operation == "move":
        what = (f"{agree(n, 'it', 'they')} may be on both {source} and {destination}: moving "
                f"again would double {agree(n, 'it', 'them')}; --resolve-in-doubt removes from "
                f"{source} exactly the in-doubt messages found on {destination}")
    else:
        what = (f"{agree(n, 'it', 'they')} may already be on {destination}: "
                f"{'copying' if operation == 'copy' else 'loading'} again would double "
                f"{agree(n, 'it', 'them')}; --resolve-in-doubt says which are there"
                + (", and --skip-present loads only those that are not"
                   if operation == "load" else ""))
    return (f"the last {operation} from {source} to {destination} ({when}) ended in doubt: "
            f"the outcome of its last unit of work ({counted(n)}) is not known, and {what}")


def resolve(qm: QueueManager, source: str, destination: str, msgids: list[str], *,
            remove: bool, dest_qm: QueueManager | None = None, batch: int = 100,
            dry_run: bool = False, control: Control | None = None) -> OperationResult:
    """Settle the in-doubt ``msgids`` of a run from ``source`` to ``destination`` (see the
    module doc). ``remove``: a move's — remove from ``source`` (on ``qm``) the in-doubt
    messages found on ``destination`` (on ``dest_qm``, else ``qm``). Done: each message
    removed (``remove``), or found on the destination; skipped: the others."""
    from mqconsole.ops.transfer import same_message

    control = control or Control()
    result = OperationResult(operation=RESOLVE, source=source, destination=destination,
                             selected=len(msgids), dry_run=dry_run)
    wanted = {bytes.fromhex(m) for m in msgids}
    on_dest: Counter[tuple[bytes, bytes]] = Counter()
    with (dest_qm or qm).browse(destination) as cursor:
        while (m := cursor.next()) is not None:
            mid = bytes(m.md.msg_id)
            if mid in wanted:
                on_dest[(mid, bytes(m.body))] += 1
    if not remove:
        there = {mid for mid, _ in on_dest}
        for msgid in msgids:
            if bytes.fromhex(msgid) in there:
                if dry_run:
                    result.plan.append({"msgid": msgid, "action": f"on {destination}"})
                else:
                    result.record_done(msgid, destination)
            else:
                result.skipped += 1
        return result
    left = Counter(on_dest)  # one source copy removed for each destination copy
    pending: list[str] = []

    def commit() -> None:
        if not pending:
            return
        if not control.before_commit(list(pending), [destination] * len(pending)):
            qm.backout()  # never committed without its record: they stay
            result.stopped_early = "the journal could not be written"
            pending.clear()
            raise _Stop
        qm.commit()
        control.after_commit()
        result.record_done_many(list(pending), [destination] * len(pending))
        pending.clear()

    try:
        with qm.browse(source, for_get=not dry_run) as cursor:
            position = 0
            while (m := cursor.next()) is not None:
                position += 1
                key = (bytes(m.md.msg_id), bytes(m.body))
                if left[key] <= 0:
                    continue
                left[key] -= 1
                if dry_run:
                    result.plan.append({"position": position, "msgid": m.msg_id_hex,
                                        "action": f"remove from {source} (on {destination})"})
                    continue
                got = cursor.get_current(syncpoint=True)
                if not same_message(got, m):
                    raise MQError(MQRC_NO_MSG_UNDER_CURSOR,
                                  f"the message got at position {position} of {source} "
                                  "is not the one browsed: backed out")
                pending.append(m.msg_id_hex)
                if len(pending) >= batch:
                    commit()
            commit()
    except _Stop:
        pass
    except BaseException:
        if qm.in_unit_of_work:
            qm.backout()
        raise
    result.skipped = len(msgids) - result.done - (len(result.plan) if dry_run else 0)
    return result


class _Stop(Exception):
    """The journal could not record a unit: it was backed out, the resolution stops."""


def _name(qm: QueueManager | None) -> str | None:
    try:
        return None if qm is None else qm.name
    except Exception:  # a broken connection: no doubt can be matched
        return None


def doubt_cautions(kind: Any, qm: QueueManager, journal: Journal | None) -> list[str]:
    """The caution of a move, copy or load whose last run on the same source and
    destination ended in doubt. A kind says which run it repeats with ``doubt_route()``:
    ``(operation, source, destination, destination's queue manager or None)``; other kinds
    have none (and nothing here imports the kinds: they import this)."""
    route = getattr(kind, "doubt_route", None)
    if journal is None or route is None:
        return []
    operation, source, dest, dest_qmgr = route()
    entry = last_in_doubt(journal, operation=operation, qmgr=_name(qm), source=source,
                          destination=dest, dest_qmgr=dest_qmgr)
    return [] if entry is None else [doubt_caution(entry, operation, source, dest)]


__all__ = ["RESOLVE", "doubt_caution", "doubt_cautions", "last_in_doubt", "resolve"]
