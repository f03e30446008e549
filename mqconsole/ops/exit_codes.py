"""One table of exit codes, and the one function that gives an operation's.

Scripts depend on these numbers; the CLI exits with them (``mqconsole.cli.exit_codes``
re-exports the table), the console shows the same verdict, and plugins see it in the
operation's summary. It lives in ``ops/`` because the operation computes it.
"""

from __future__ import annotations

from enum import IntEnum
from typing import TYPE_CHECKING

from mqconsole.mq.errors import CommitOutcomeUnknown, MQError
from mqconsole.mq.reasons import (
    MQRC_ALIAS_BASE_Q_TYPE_ERROR,
    MQRC_CALL_INTERRUPTED,
    MQRC_CHANNEL_CONFIG_ERROR,
    MQRC_CHANNEL_NOT_AVAILABLE,
    MQRC_CONNECTION_BROKEN,
    MQRC_DEF_XMIT_Q_TYPE_ERROR,
    MQRC_DEF_XMIT_Q_USAGE_ERROR,
    MQRC_ENVIRONMENT_ERROR,
    MQRC_HCONN_ERROR,
    MQRC_HOBJ_ERROR,
    MQRC_HOST_NOT_AVAILABLE,
    MQRC_JSSE_ERROR,
    MQRC_NOT_AUTHORIZED,
    MQRC_OBJECT_ALREADY_EXISTS,
    MQRC_OBJECT_NAME_ERROR,
    MQRC_OBJECT_TYPE_ERROR,
    MQRC_OD_ERROR,
    MQRC_OPTION_NOT_VALID_FOR_TYPE,
    MQRC_OPTIONS_ERROR,
    MQRC_Q_MGR_NAME_ERROR,
    MQRC_Q_MGR_NOT_AVAILABLE,
    MQRC_Q_MGR_QUIESCING,
    MQRC_Q_MGR_STOPPING,
    MQRC_Q_NOT_EMPTY,
    MQRC_RECONNECT_FAILED,
    MQRC_REMOTE_Q_NAME_ERROR,
    MQRC_RESOURCE_PROBLEM,
    MQRC_SECURITY_ERROR,
    MQRC_SELECTOR_ERROR,
    MQRC_SSL_INITIALIZATION_ERROR,
    MQRC_STORAGE_NOT_AVAILABLE,
    MQRC_UNEXPECTED_ERROR,
    MQRC_UNKNOWN_ALIAS_BASE_Q,
    MQRC_UNKNOWN_CHANNEL_NAME,
    MQRC_UNKNOWN_DEF_XMIT_Q,
    MQRC_UNKNOWN_OBJECT_NAME,
    MQRC_UNKNOWN_REMOTE_Q_MGR,
    MQRC_UNKNOWN_XMIT_Q,
    MQRC_XMIT_Q_TYPE_ERROR,
    MQRC_XMIT_Q_USAGE_ERROR,
)

if TYPE_CHECKING:
    from mqconsole.ops.result import OperationResult


class ExitCode(IntEnum):
    OK = 0  # done (also when a selection matched nothing: said on stderr)
    PARTIAL = 1  # some messages failed and stayed where they were
    USAGE = 2  # usage or bad input: unknown queue, bad expression, bad file
    UNAVAILABLE = 3  # cannot connect, backend unavailable
    REFUSED = 4  # refused: read-only profile, not authorized, missing --yes
    UNKNOWN_OUTCOME = 5  # a commit MQ cannot confirm (2009, 2018, 2548, 2549): check queues
    JOURNAL_FAILED = 6  # the journal could not be written: the summary says what was done
    INTERNAL = 70  # a bug in mqconsole (EX_SOFTWARE): the message says how to see details
    HANGUP = 129  # SIGHUP (the terminal went away): stopped at the next commit, as SIGTERM
    INTERRUPTED = 130  # Ctrl-C twice (or at a prompt): stopped at once, open unit backed out
    TERMINATED = 143  # SIGTERM: stopped at the next commit (journal and summary written)


# what each code means, in the words the README's exit-code table shows (made from this by
# tools/gen_docs.py; a test keeps them equal and wants a meaning for every code)
MEANINGS: dict[ExitCode, str] = {
    ExitCode.OK: "done (also when a selection matched nothing: said on stderr); a dry run "
    "whose every message would succeed",
    ExitCode.PARTIAL: "some messages failed and stayed where they were, or a Ctrl-C stopped "
    "the change at a commit (what was committed stays, and is in the journal); a dry run "
    "in which some message would fail now (`would_fail` in its JSON); `doctor`: a queue is "
    "judged BAD (WARN alone exits 0)",
    ExitCode.USAGE: "usage or bad input: unknown queue, bad expression, bad file — said "
    "before any question, and nothing was changed (an error after a change committed part "
    "of its work is 1, and says how many messages stay done)",
    ExitCode.UNAVAILABLE: "cannot connect, backend unavailable",
    ExitCode.REFUSED: "refused: read-only profile, not authorized, missing `--yes`",
    ExitCode.UNKNOWN_OUTCOME: "outcome unknown (a commit MQ cannot confirm, reason 2549): "
    "check the queues",
    ExitCode.JOURNAL_FAILED: "the journal could not be written (a folder in its place, disk "
    "full, `ulimit -f`; the message names the file): the summary says what was done — "
    "nothing when it failed before the start; a change stops when its journal fails, and a "
    "unit of work whose record cannot be written is backed out, never committed without one",
    ExitCode.INTERNAL: "a bug in mqconsole; the message says how to see the traceback",
    ExitCode.HANGUP: "SIGHUP (the terminal went away): as SIGTERM — a change stops at the "
    "next commit, writes its journal and summary, and exits 129 (a second SIGHUP stops at "
    "once, the open unit backed out); the dead-letter handler too (its SIGTERM and Ctrl-C "
    "are its normal end: 0)",
    ExitCode.INTERRUPTED: "interrupted: Ctrl-C twice during a change (the open unit of work "
    "backed out; what was committed is in the journal), or Ctrl-C on any other command",
    ExitCode.TERMINATED: "SIGTERM: a change stops at the next commit, writes its journal and "
    "summary, and exits 143 (a second SIGTERM stops at once, the open unit backed out)",
}


def exit_code_of(result: OperationResult, *, journal_failed: bool = False,
                 leaving_is_done: bool = False) -> ExitCode:
    """5 when a commit's outcome is unknown; 6 when the journal could not be written; a dry
    run 1 when its plan says a message would fail now, else 0; 1 when a selected message
    was not handled (failed, skipped, or left by a cancel or an early stop); else 0.
    ``leaving_is_done``: leaving messages where they are is part of the job (the dead-letter
    handler's IGNORE, no rule, a used-up budget, a stop by a signal), so only a failure or
    an early stop is 1."""
    if result.outcome_unknown:
        return ExitCode.UNKNOWN_OUTCOME
    if journal_failed:
        return ExitCode.JOURNAL_FAILED
    if result.dry_run:  # a plan is 1 when a message would fail now, as the run would be
        return ExitCode.PARTIAL if result.would_fail() else ExitCode.OK
    if result.failed or result.unlisted_failures or result.stopped_early is not None:
        return ExitCode.PARTIAL
    if not leaving_is_done and (result.skipped or result.not_tried or result.cancelled):
        return ExitCode.PARTIAL
    return ExitCode.OK


def exit_code_of_run(codes: list[ExitCode], *, stopped: bool) -> ExitCode:
    """A long-lived run's code from its cycles' codes (the dead-letter handler's WAIT(YES)):
    0 when it was stopped (SIGTERM, the operator: how a service ends), unless its last
    cycle's commit had an unknown outcome (5) or its journal failed (6); otherwise —
    WAIT(n) ran out, a cycle stopped early — the worst cycle's."""
    if not codes:
        return ExitCode.OK
    if stopped:
        return codes[-1] if codes[-1] in (ExitCode.UNKNOWN_OUTCOME, ExitCode.JOURNAL_FAILED) \
            else ExitCode.OK
    return max(codes)


# MQ reasons that mean "you asked for something that is not there or not valid" → 2.
_USAGE_REASONS = frozenset(
    {
        MQRC_UNKNOWN_OBJECT_NAME,
        MQRC_UNKNOWN_ALIAS_BASE_Q,
        MQRC_UNKNOWN_REMOTE_Q_MGR,
        MQRC_SELECTOR_ERROR,
        MQRC_OPTIONS_ERROR,
        MQRC_OBJECT_NAME_ERROR,
        MQRC_REMOTE_Q_NAME_ERROR,
        MQRC_UNKNOWN_XMIT_Q,
        MQRC_UNKNOWN_DEF_XMIT_Q,
        MQRC_DEF_XMIT_Q_TYPE_ERROR,
        MQRC_DEF_XMIT_Q_USAGE_ERROR,
        MQRC_OBJECT_TYPE_ERROR,
        MQRC_OD_ERROR,
        MQRC_OPTION_NOT_VALID_FOR_TYPE,
        MQRC_HOBJ_ERROR,
        MQRC_ALIAS_BASE_Q_TYPE_ERROR,
        MQRC_XMIT_Q_USAGE_ERROR,
        MQRC_XMIT_Q_TYPE_ERROR,
        MQRC_Q_NOT_EMPTY,
        MQRC_OBJECT_ALREADY_EXISTS,
    }
)
# MQ reasons that mean "cannot reach the queue manager" → 3.
_UNAVAILABLE_REASONS = frozenset(
    {
        MQRC_CONNECTION_BROKEN,
        MQRC_Q_MGR_NAME_ERROR,
        MQRC_Q_MGR_NOT_AVAILABLE,
        MQRC_HOST_NOT_AVAILABLE,
        MQRC_CHANNEL_CONFIG_ERROR,
        MQRC_SSL_INITIALIZATION_ERROR,
        MQRC_JSSE_ERROR,
        MQRC_Q_MGR_QUIESCING,
        MQRC_Q_MGR_STOPPING,
        MQRC_UNEXPECTED_ERROR,
        MQRC_SECURITY_ERROR,
        MQRC_UNKNOWN_CHANNEL_NAME,
        MQRC_RESOURCE_PROBLEM,
        MQRC_STORAGE_NOT_AVAILABLE,
        MQRC_ENVIRONMENT_ERROR,
        MQRC_HCONN_ERROR,
        MQRC_CHANNEL_NOT_AVAILABLE,
        MQRC_RECONNECT_FAILED,
    }
)


def exit_code_for_mq(err: MQError) -> ExitCode:
    """The exit code of an MQ error that ended an operation (or a command) early."""
    if isinstance(err, CommitOutcomeUnknown) or err.reason == MQRC_CALL_INTERRUPTED:
        return ExitCode.UNKNOWN_OUTCOME  # a commit answered 2009 is not "unavailable" (3)
    if err.reason == MQRC_NOT_AUTHORIZED:
        return ExitCode.REFUSED
    if err.reason in _USAGE_REASONS:
        return ExitCode.USAGE
    if err.reason in _UNAVAILABLE_REASONS:
        return ExitCode.UNAVAILABLE
    return ExitCode.PARTIAL


def exit_code_for_error(exc: BaseException) -> ExitCode:
    """The exit code of an error that stopped an operation before its result: an MQ error by
    its reason, bad input (a ValueError: a bad file, an impossible request) 2, a file that
    cannot be used 2, an interrupt 130 is the shell's (INTERNAL here), anything else a bug."""
    code = getattr(exc, "code", None)
    if isinstance(code, ExitCode):  # an error that says its own (OperationError)
        return code
    if isinstance(exc, MQError):
        return exit_code_for_mq(exc)
    if isinstance(exc, ValueError | OSError):
        return ExitCode.USAGE
    return ExitCode.INTERNAL


__all__ = ["MEANINGS", "ExitCode", "exit_code_for_error", "exit_code_for_mq", "exit_code_of"]
