"""The errors the core raises: bad bytes (HeaderError) and MQ failures (MQError), and how a
failed commit is classified (only 2003 means "backed out")."""

from __future__ import annotations

from .names import reason_label, reason_name
from .reasons import (
    MQRC_CALL_INTERRUPTED,
    MQRC_CONNECTION_BROKEN,
    MQRC_HCONN_ERROR,
    MQRC_RECONNECT_FAILED,
)


class HeaderError(ValueError):
    """Malformed bytes in an MQ structure: names the header, the offset and the problem."""

    def __init__(self, header: str, offset: int, problem: str) -> None:
        self.header = header
        self.offset = offset
        self.problem = problem
        super().__init__(f"{header} at offset {offset}: {problem}")


class BadValue(ValueError):
    """A value an operator gave that is not allowed (out of range, not an MQ name): one
    sentence naming the setting, the value and what is allowed (bad input: exit code 2)."""


class MQError(Exception):
    """A failed MQ call, with its completion and reason code (an MQRC_* value)."""

    def __init__(self, reason: int, message: str = "", *, completion: int = 2) -> None:
        self.reason = reason
        self.completion = completion
        self.reason_name = reason_name(reason)
        self.detail = message
        text = reason_label(reason)  # the one form: MQRC_Q_FULL (2053)
        if message:
            text = f"{message}: {text}"
        super().__init__(text)


#: MQCMIT answered with one of these may have committed (IBM, MQRC_CONNECTION_BROKEN: "for
#: client applications, it is possible that the call did complete successfully"):
#: CONNECTION_BROKEN, HCONN_ERROR, RECONNECT_FAILED, CALL_INTERRUPTED.
COMMIT_OUTCOME_UNKNOWN_REASONS = frozenset({
    MQRC_CONNECTION_BROKEN, MQRC_HCONN_ERROR, MQRC_RECONNECT_FAILED, MQRC_CALL_INTERRUPTED})


class CommitOutcomeUnknown(MQError):
    """MQCMIT failed in a way that leaves MQ unable to say whether the unit of work was
    committed. Never redo the work (it may be done) and never say it failed (it may not
    have): report it, and let the operator look at the queues."""


def commit_outcome_unknown(err: BaseException) -> bool:
    """Is ``err``, raised by a *commit*, one whose outcome nobody knows?

    Only MQRC_BACKED_OUT (2003) means "backed out". 2009, 2018, 2548 and 2549 may have
    committed. Any other failure leaves the unit of work open: back it out
    (``backends.base.settle_failed_commit``) before anything is redone. Only for errors of
    a commit: a put or get failing with 2009 backed its unit of work out.
    """
    if isinstance(err, CommitOutcomeUnknown):
        return True
    return isinstance(err, MQError) and err.reason in COMMIT_OUTCOME_UNKNOWN_REASONS
