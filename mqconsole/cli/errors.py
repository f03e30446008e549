"""Turn every failure a user can cause into one sentence and an exit code (no tracebacks).

Harlequin-style: errors are reported in one place. The table of exit codes is
``exit_codes.ExitCode``.
"""

from __future__ import annotations

import os
import sys

from mqconsole.inputfile import NotAFile
from mqconsole.mq.errors import BadValue, HeaderError, MQError
from mqconsole.ops.exit_codes import ExitCode, exit_code_for_mq


class CliError(Exception):
    """A failure to report as one sentence with a given exit code."""

    def __init__(self, message: str, code: ExitCode = ExitCode.USAGE) -> None:
        super().__init__(message)
        self.code = code


def describe(exc: BaseException) -> tuple[str, ExitCode] | None:
    """One sentence and an exit code for errors we know; None for bugs."""
    from mqconsole.audit.errors import AuditError, spark_failure
    from mqconsole.audit.java import SparkUnavailable
    from mqconsole.audit.session import BadMaster
    from mqconsole.backends.spec import PasswordUnavailable
    from mqconsole.config import ConfigError
    from mqconsole.ops.dmpfile import DmpFileError, DmpWriteError
    from mqconsole.ops.edit import EditError
    from mqconsole.ops.journal import JournalError
    from mqconsole.ops.operation import OperationError
    from mqconsole.ops.outputs import OutputRefused
    from mqconsole.ops.savefile.publish import TargetExistsError
    from mqconsole.ops.selection import SelectionError
    from mqconsole.ops.transfer import TransferError
    from mqconsole.ops.where import WhereError

    if isinstance(exc, CliError | OperationError | JournalError):
        return str(exc), exc.code
    if isinstance(exc, AuditError):
        return str(exc), ExitCode(exc.code)
    if isinstance(exc, SparkUnavailable):
        return str(exc), ExitCode.UNAVAILABLE
    if isinstance(exc, BadMaster):
        return str(exc), ExitCode.USAGE
    if isinstance(exc, PasswordUnavailable):  # the profile's password_env unset, or no
        return str(exc), ExitCode.USAGE  # way to ask: said before any work
    if isinstance(exc, MQError):
        text = str(exc)
        if exit_code_for_mq(exc) == ExitCode.UNKNOWN_OUTCOME:
            text += (" — the commit's outcome is unknown: browse the source and destination "
                     "queues to see where the messages are before retrying")
        return text, exit_code_for_mq(exc)
    if isinstance(exc, BadValue | NotAFile | ConfigError | WhereError | HeaderError
                  | SelectionError
                  | DmpFileError | DmpWriteError | TransferError | EditError
                  | TargetExistsError | OutputRefused):
        return str(exc), ExitCode.USAGE
    said = spark_failure(exc, "the command")  # one no command's boundary said: exit 1
    if isinstance(said, AuditError):
        return str(said), ExitCode(said.code)
    if isinstance(exc, OSError):
        where = f" {exc.filename}" if getattr(exc, "filename", None) else ""
        return f"cannot use{where}: {exc.strerror or exc}", ExitCode.USAGE
    return None


def report(exc: BaseException, *, as_json: bool = False) -> int:
    """Print one line for ``exc`` on stderr (and with ``as_json`` a JSON object on stdout)
    and return the exit code."""
    from mqconsole.cli.output import emit_json_error

    known = describe(exc)
    committed = getattr(exc, "committed_before_error", 0)
    if known is not None and committed:
        # a change that committed some units before the error: said, and never exit 2
        message, code = known
        notes = "; ".join(str(n) for n in getattr(exc, "__notes__", ()))
        known = (f"{message} ({notes})" if notes else message,
                 ExitCode.PARTIAL if code == ExitCode.USAGE else code)
    if known is None:
        if os.environ.get("MQCONSOLE_DEBUG"):
            raise exc
        from mqconsole.cli.output import safe

        # the text of a bug's exception may hold message bytes: escaped and cut short
        sentence = (f"internal error: {type(exc).__name__}: {safe(str(exc))[:200]} "
                    "(set MQCONSOLE_DEBUG=1 to see the traceback, and please report it)")
        print(f"mqconsole: {sentence}", file=sys.stderr)
        if as_json:
            emit_json_error(sentence, ExitCode.INTERNAL)
        return ExitCode.INTERNAL
    message, code = known
    from mqconsole.cli.output import safe

    print(f"mqconsole: {safe(message)}", file=sys.stderr)
    if as_json:
        emit_json_error(safe(message), code)
    return int(code)
