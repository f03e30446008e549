"""Turn every failure a user can cause into one sentence and an exit code (no tracebacks).

Harlequin-style: errors are reported in one place. The table of exit codes is
``exit_codes.ExitCode``.
"""

from __future__ import annotations

import os
import sys

from mqconsole.mq.errors import CommitOutcomeUnknown, HeaderError, MQError

from .exit_codes import ExitCode


class CliError(Exception):
    """A failure to report as one sentence with a given exit code."""

    def __init__(self, message: str, code: ExitCode = ExitCode.USAGE) -> None:
        super().__init__(message)
        self.code = code


# MQ reasons that mean "you asked for something that is not there or not valid" → 2.
_USAGE_REASONS = {2085, 2082, 2087, 2067, 2046, 2152, 2184, 2196, 2197, 2198, 2199, 2043,
                  2044, 2045, 2019, 2001, 2092, 2091, 2055}
# MQ reasons that mean "cannot reach the queue manager" → 3.
_UNAVAILABLE_REASONS = {2009, 2058, 2059, 2538, 2539, 2393, 2397, 2161, 2162, 2195, 2063,
                        2540, 2102, 2071, 2012, 2018, 2537, 2548}


def exit_code_for_mq(err: MQError) -> ExitCode:
    if isinstance(err, CommitOutcomeUnknown) or err.reason == 2549:
        return ExitCode.UNKNOWN_OUTCOME  # a commit answered 2009 is not "unavailable" (3)
    if err.reason == 2035:
        return ExitCode.REFUSED
    if err.reason in _USAGE_REASONS:
        return ExitCode.USAGE
    if err.reason in _UNAVAILABLE_REASONS:
        return ExitCode.UNAVAILABLE
    return ExitCode.PARTIAL


def describe(exc: BaseException) -> tuple[str, ExitCode] | None:
    """One sentence and an exit code for errors we know; None for bugs."""
    from mqconsole.config import ConfigError
    from mqconsole.ops.dmpfile import DmpFileError, DmpWriteError
    from mqconsole.ops.selection import SelectionError
    from mqconsole.ops.where import WhereError

    if isinstance(exc, CliError):
        return str(exc), exc.code
    if isinstance(exc, MQError):
        text = str(exc)
        if exit_code_for_mq(exc) == ExitCode.UNKNOWN_OUTCOME:
            text += (" — the commit's outcome is unknown: browse the source and destination "
                     "queues to see where the messages are before retrying")
        return text, exit_code_for_mq(exc)
    if isinstance(exc, ConfigError | WhereError | HeaderError | SelectionError | DmpFileError
                  | DmpWriteError):
        return str(exc), ExitCode.USAGE
    if isinstance(exc, OSError):
        where = f" {exc.filename}" if getattr(exc, "filename", None) else ""
        return f"cannot use{where}: {exc.strerror or exc}", ExitCode.USAGE
    return None


def report(exc: BaseException) -> int:
    """Print one line for ``exc`` on stderr and return the exit code."""
    known = describe(exc)
    if known is None:
        if os.environ.get("MQCONSOLE_DEBUG"):
            raise exc
        print(f"mqconsole: internal error: {type(exc).__name__}: {exc} "
              "(set MQCONSOLE_DEBUG=1 to see the traceback, and please report it)",
              file=sys.stderr)
        return ExitCode.INTERNAL
    message, code = known
    print(f"mqconsole: {message}", file=sys.stderr)
    return int(code)
