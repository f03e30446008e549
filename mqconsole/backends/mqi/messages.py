"""The MQI message calls: MQOPEN (a model queue refused, 2042 naming the holders), one
MQGET with its 2080/2010 handling, browse cursors, gets and MQPUT1."""

from __future__ import annotations

import contextlib
from typing import Any

from mqconsole.mq.errors import MQError
from mqconsole.mq.message import Message
from mqconsole.mq.names import reason_name
from mqconsole.mq.reasons import (
    MQRC_CONTEXT_HANDLE_ERROR,
    MQRC_OBJECT_IN_USE,
    MQRC_OPTION_NOT_VALID_FOR_TYPE,
)

from ..base import Context
from ._structs import blank_md, gmo, md_to_lib, message_from_lib, name_bytes
from .admin import Admin
from .cursor import MQICursor

MAX_REMEMBERED_BUFFER = 4 * 1024 * 1024


class Messages(Admin):
    """Opening queues, getting and putting messages."""

    def _open(self, queue: str, options: int, *, what: str = "") -> Any:
        """MQOPEN; a 2042 (another handle holds the queue exclusively) names the holders."""
        wanted = name_bytes(queue)
        od = self.lib.module.OD(ObjectName=wanted)
        try:
            handle = self.lib.module.Queue(self._qmgr, od,
                                           options | self.lib.CMQC.MQOO_FAIL_IF_QUIESCING)
        except self.lib.MQMIError as exc:
            if exc.reason != MQRC_OBJECT_IN_USE:
                raise
            raise MQError(
                MQRC_OBJECT_IN_USE,
                f"cannot {what or f'open {queue!r}'}: it is open exclusively "
                f"(SHARE(NO) or DEFSOPT(EXCL) with another input handle, or "
                f"an MQOO_INPUT_EXCLUSIVE open); {self._holders(queue)}",
                completion=exc.comp,
            ) from exc
        opened = bytes(getattr(od, "ObjectName", wanted) or b"").strip(b" \x00")
        if opened and opened != wanted:
            # a model queue: MQOPEN made a dynamic queue of it; MQCO_DELETE_PURGE deletes
            # it again even when the model is DEFTYPE(PERMDYN) (a plain MQCLOSE keeps a
            # permanent dynamic queue for good)
            with contextlib.suppress(self.lib.MQMIError, self.lib.PYIFError):
                handle.close(self.lib.CMQC.MQCO_DELETE_PURGE)
            raise MQError(
                MQRC_OPTION_NOT_VALID_FOR_TYPE,
                f"cannot {what or f'open {queue!r}'}: it is a model queue, "
                "which holds no messages (opening it creates a new dynamic "
                f"queue, {opened.decode('latin-1')!r}); name a local queue",
            )
        return handle

    def open_for_put(self, queue: str, qmgr_name: str = "", *,
                     context: Context = Context.NEW, alt_user: str = "") -> None:
        """MQOPEN for output and MQCLOSE, nothing put (``base.ChecksPuts``): raises as the
        put's MQPUT1 would — MQ checks +put at MQOPEN with MQOO_OUTPUT, the context
        authorities with MQOO_SET_ALL_CONTEXT / MQOO_SET_IDENTITY_CONTEXT /
        MQOO_PASS_ALL_CONTEXT, and the alternate user's with MQOO_ALTERNATE_USER_AUTHORITY
        (IBM MQ, "MQOPEN - Open object": "the queue manager checks that the user is
        authorized to open the object for the options specified"; MQPUT1 checks as an
        MQOPEN with the options matching its MQPMO ones). A model queue's dynamic queue is
        deleted again (MQCO_DELETE_PURGE), as ``_open`` does."""
        C = self.lib.CMQC
        context = Context(context)
        alt_user = alt_user.strip() if alt_user else ""
        target, auth, hint = _put_authority(queue, qmgr_name, context, alt_user)
        wanted = name_bytes(queue)
        od = self.lib.module.OD(ObjectName=wanted,
                                ObjectQMgrName=name_bytes(qmgr_name or "", "queue manager"))
        options = C.MQOO_OUTPUT | C.MQOO_FAIL_IF_QUIESCING | {
            Context.SET_ALL: C.MQOO_SET_ALL_CONTEXT,
            Context.SET_IDENTITY: C.MQOO_SET_IDENTITY_CONTEXT,
            Context.PASS_ALL: C.MQOO_PASS_ALL_CONTEXT, Context.NEW: 0}[context]
        if alt_user:
            od.AlternateUserId = alt_user.encode("utf-8", "replace")[:12].ljust(12)
            options |= C.MQOO_ALTERNATE_USER_AUTHORITY
        with self._call(f"open {target} to put to it", auth=auth, obj=queue, hint=hint):
            handle = self.lib.module.Queue(self._qmgr, od, options)
        opened = bytes(getattr(od, "ObjectName", wanted) or b"").strip(b" \x00")
        with self._lock, contextlib.suppress(self.lib.MQMIError, self.lib.PYIFError):
            if opened and opened != wanted:  # a model queue made a dynamic one
                handle.close(C.MQCO_DELETE_PURGE)
            else:
                handle.close()

    def _holders(self, queue: str) -> str:
        """Who holds ``queue`` open (queue status: IPPROCS/OPPROCS and the handles)."""
        try:
            status = self._pcf().queue_status(queue)
        except (self.lib.MQMIError, MQError) as exc:
            reason = getattr(exc, "reason", 0)
            return (f"who holds it is not known (queue status: {reason_name(reason)}, "
                    f"{reason}; DIS QSTATUS({queue}) TYPE(HANDLE) shows it)")
        holders = []
        for h in status.handles:
            if not h.get("input"):
                continue
            who = [f"pid {h['pid']}" if h.get("pid") else "",
                   f"user {h['user_id']}" if h.get("user_id") else "",
                   f"application {h['appl_tag']!r}" if h.get("appl_tag") else "",
                   f"channel {h['channel']}" if h.get("channel") else "",
                   f"from {h['conn_name']}" if h.get("conn_name") else ""]
            holders.append(" ".join(w for w in who if w) or "an unnamed handle")
        text = (f"IPPROCS {status.open_input_count}, OPPROCS {status.open_output_count}")
        if holders:
            text += "; open for input by " + "; ".join(holders)
        return text

    def _get(self, handle: Any, options: int, match: int, *, size: int | None = None,
             msg_id: bytes | None = None, correl_id: bytes | None = None,
             empty_ok: bool = False, wait_ms: int = 0) -> Message | None:
        """One MQGET with a fresh MD and GMO; a 2080 grows the buffer to the message's length
        and repeats the same call (the message, or the cursor, stayed where it was). Returns
        None for 2033 (no message) when ``empty_ok``; other reasons raise.

        A message longer than the channel's MAXMSGL cannot come over it: the grown buffer
        is refused with 2010. A browse then reads a preview (MQGMO_ACCEPT_TRUNCATED_MSG
        with the buffer that fitted: ``Message.truncated_from`` says how long it is, and
        nothing puts or saves it); any other get raises 2010 saying so. Only a buffer that
        got a message is remembered for the next call."""
        lib, C = self.lib, self.lib.CMQC
        length = fitted = max(size or 0, self._buffer)
        while True:
            md = blank_md(lib, msg_id=msg_id, correl_id=correl_id)
            g = gmo(lib, options, match)
            g.WaitInterval = wait_ms  # MQGMO_WAIT's (an idle dead-letter handler's)
            try:
                body = handle.get(length, md, g)
            except lib.MQMIError as exc:
                if exc.reason == C.MQRC_TRUNCATED_MSG_FAILED:
                    fitted = length
                    grown = int(getattr(exc, "original_length", 0) or 0)
                    length = grown if grown > length else length * 2
                    continue
                if exc.reason == C.MQRC_DATA_LENGTH_ERROR and length > fitted:
                    return self._too_big(handle, options, match, fitted, length)
                if empty_ok and exc.reason == C.MQRC_NO_MSG_AVAILABLE:
                    return None
                raise
            if length > self._buffer:
                self._buffer = min(length, MAX_REMEMBERED_BUFFER)
            return message_from_lib(md, body, g)

    def _too_big(self, handle: Any, options: int, match: int, fitted: int, length: int
                 ) -> Message:
        """2010 for a buffer of the message's ``length``: a preview for a browse."""
        lib, C = self.lib, self.lib.CMQC
        why = (f"the message is {length} bytes, more than this client channel carries "
               "(its MAXMSGL, the smaller of the client's and the server-connection "
               "channel's): it cannot be got, moved or saved over this channel")
        if not options & (C.MQGMO_BROWSE_FIRST | C.MQGMO_BROWSE_NEXT):
            raise MQError(C.MQRC_DATA_LENGTH_ERROR, why)
        md = blank_md(lib)
        g = gmo(lib, options | C.MQGMO_ACCEPT_TRUNCATED_MSG, match)
        try:
            body = handle.get(fitted, md, g)
        except lib.MQMIError as exc:
            if exc.reason != C.MQRC_TRUNCATED_MSG_ACCEPTED:
                raise
            body = bytes(getattr(exc, "message", b"") or b"")
            length = int(getattr(exc, "original_length", 0) or length)
        out = message_from_lib(md, body, g)
        out.truncated_from = length
        return out

    def browse(self, queue: str, *, for_get: bool = False) -> MQICursor:
        """MQOPEN MQOO_BROWSE; ``for_get`` adds MQOO_INPUT_SHARED (the cursor then gets the
        message under it). Only an operation that gets opens for input: an input handle
        counts in IPPROCS (FIRST/DEPTH triggers wait for it to close) and is exclusive on
        a SHARE(NO) queue (its consumers get 2042 meanwhile)."""
        C = self.lib.CMQC
        # for_get: MQOO_SAVE_ALL_CONTEXT too, so a pass-all put can name this handle
        # (PMO.Context) after a get through it (IBM, MQRC_CONTEXT_HANDLE_ERROR 2097: a
        # handle not opened so cannot pass context); it asks for no authority
        options = C.MQOO_BROWSE | (C.MQOO_INPUT_SHARED | C.MQOO_SAVE_ALL_CONTEXT
                                   if for_get else 0)
        what = f"{'open' if for_get else 'browse'} {queue!r}" + (
            " to get messages" if for_get else "")
        with self._call(what, auth="+browse and +get" if for_get else "+browse", obj=queue):
            handle = self._open(queue, options, what=what)
            return MQICursor(self, queue, handle, can_get=for_get)

    def _get_from(self, queue: str, *, syncpoint: bool, msg_id: bytes | None = None,
                  correl_id: bytes | None = None) -> Message:
        C = self.lib.CMQC
        handle = self._open(queue, C.MQOO_INPUT_SHARED, what=f"get from {queue!r}")
        try:
            match = C.MQMO_NONE
            if msg_id is not None:
                match |= C.MQMO_MATCH_MSG_ID
            if correl_id is not None:
                match |= C.MQMO_MATCH_CORREL_ID
            options = C.MQGMO_NO_WAIT | (C.MQGMO_SYNCPOINT if syncpoint else
                                         C.MQGMO_NO_SYNCPOINT)
            msg = self._get(handle, options, match, msg_id=msg_id, correl_id=correl_id)
            assert msg is not None
            if syncpoint:
                self._uow = True
            return msg
        finally:
            with contextlib.suppress(self.lib.MQMIError, self.lib.PYIFError):
                handle.close()

    def get(self, queue: str, *, syncpoint: bool = True) -> Message:
        with self._call(f"get a message from {queue!r}", auth="+get", obj=queue):
            return self._get_from(queue, syncpoint=syncpoint)

    def get_by_msgid(self, queue: str, msg_id: bytes, correl_id: bytes | None = None, *,
                     syncpoint: bool = True) -> Message:
        with self._call(f"get message {bytes(msg_id).hex().upper()} from {queue!r}",
                        auth="+get", obj=queue):
            return self._get_from(queue, syncpoint=syncpoint, msg_id=bytes(msg_id),
                                  correl_id=None if correl_id is None else bytes(correl_id))

    def put(self, queue: str, message: Message, *, context: Context = Context.SET_ALL,
            syncpoint: bool = True, qmgr_name: str = "", new_msg_id: bool = False,
            alt_user: str = "", pass_from: object = None) -> Message:
        context = Context(context)
        passing: Any = None  # PMO.Context: the handle whose saved context passes
        if context is Context.PASS_ALL:
            if not isinstance(pass_from, MQICursor) or pass_from._qm is not self \
                    or not pass_from._can_get:
                # IBM, MQRC_CONTEXT_HANDLE_ERROR (2097): PMO.Context must be a handle of
                # this connection opened MQOO_SAVE_ALL_CONTEXT (a cursor opened for_get)
                raise MQError(MQRC_CONTEXT_HANDLE_ERROR, f"cannot pass context to "
                              f"{queue!r}: no cursor of this connection opened to get "
                              "messages names the context to pass")
            passing = pass_from._handle
        alt_user = alt_user.strip() if alt_user else ""
        C = self.lib.CMQC
        target, auth, hint = _put_authority(queue, qmgr_name, context, alt_user)
        if message.truncated_from is not None:
            raise MQError(C.MQRC_DATA_LENGTH_ERROR, f"cannot put to {target}: only the first "
                          f"{len(message.body)} of the message's {message.truncated_from} "
                          "bytes came over this channel (its MAXMSGL is smaller): it cannot "
                          "be moved over this channel")
        with self._call(f"put to {target}", auth=auth, obj=queue, hint=hint):
            od = self.lib.module.OD(ObjectName=name_bytes(queue),
                                    ObjectQMgrName=name_bytes(qmgr_name or "", "queue manager"))
            if alt_user:  # MQPUT1 authorized as the message's user (PUTAUT(CTX))
                od.AlternateUserId = alt_user.encode("utf-8", "replace")[:12].ljust(12)
            md = md_to_lib(self.lib, message.md.copy(backout_count=0))
            options = (C.MQPMO_SYNCPOINT if syncpoint else C.MQPMO_NO_SYNCPOINT) | \
                C.MQPMO_FAIL_IF_QUIESCING | {
                    Context.SET_ALL: C.MQPMO_SET_ALL_CONTEXT,
                    Context.SET_IDENTITY: C.MQPMO_SET_IDENTITY_CONTEXT,
                    Context.PASS_ALL: C.MQPMO_PASS_ALL_CONTEXT,
                    Context.NEW: C.MQPMO_DEFAULT_CONTEXT}[context]
            if new_msg_id:
                options |= C.MQPMO_NEW_MSG_ID
            if alt_user:
                options |= C.MQPMO_ALTERNATE_USER_AUTHORITY
            pmo = self.lib.module.PMO(Options=options)
            if passing is not None:
                pmo.Context = passing.get_handle()
            body = bytes(message.body)
            self._qmgr.put1(od, body, md, pmo)
            if syncpoint:
                self._uow = True
            put = message_from_lib(md, body)
            put.md.backout_count = 0  # MQ stores 0 and leaves the caller's value in the MD
            return put


def _put_authority(queue: str, qmgr_name: str, context: Context, alt_user: str
                   ) -> tuple[str, str, str]:
    """A put's target as errors name it, the authorities it needs, and the hint for 2035."""
    target = f"{queue!r}" + (f" on {qmgr_name}" if qmgr_name.strip() else "")
    auth, hint = {
        Context.SET_ALL: ("+put and +setall", " and +setall on the queue manager (to keep "
                          "the message's context); or put with --new-context to give it "
                          "a new one"),
        Context.SET_IDENTITY: ("+put and +setid", " and +setid on the queue manager"),
        Context.PASS_ALL: ("+put and +passall", " (to pass the context of the message "
                           "got; or use --context default to give it a new one)"),
        Context.NEW: ("+put", "")}[context]
    if alt_user:
        target += f" as {alt_user!r} (alternate user authority)"
        hint = (f" for {alt_user!r}{hint}, and +altusr on the queue manager for the "
                "connection's user")
    return target, auth, hint
