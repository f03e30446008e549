"""Files an operator names on the command line, read with a size limit: ``/dev/zero``, a
FIFO that never ends or a 50 GB file is one sentence (exit 2), not memory exhausted.

Every input file (``put --file``, ``edit --payload-file``, ``--msgids-from``, a rules
table, a configuration, scenario or endpoints file) is opened by :func:`open_input`: with
``O_NONBLOCK``, so a FIFO no one writes to never hangs the open, and its type checked on
the open file before a byte is read — a FIFO, a socket or a folder is one sentence
(:class:`mqconsole.inputfile.NotAFile`), as ``load`` says it (:func:`not_a_file`)."""

from __future__ import annotations

import os
import stat

from mqconsole.inputfile import NotAFile, kind_of, open_input
from mqconsole.mq.errors import BadValue

MAX_BODY = 100 * 1024 * 1024  # MQ's largest message (MAXMSGL 100 MB): --payload-file, put --file
MAX_MSGIDS_FILE = 64 * 1024 * 1024  # about 1.3 million MsgIds, one per line
_CHUNK = 1024 * 1024


class InputTooLarge(BadValue):
    """A file larger than what it may hold."""


def _size(limit: int) -> str:
    return f"{limit // (1024 * 1024)} MiB" if limit >= 1024 * 1024 else f"{limit} bytes"


def read_limited(path: str | os.PathLike, limit: int, what: str) -> bytes:
    """The bytes of ``path`` (a file or a device; a FIFO, a socket or a folder is
    :class:`NotAFile`), at most ``limit`` of them; more is :class:`InputTooLarge` naming
    ``what`` and the file. ``OSError`` as ``open`` raises it."""
    with open_input(path, what) as fp:
        st = os.fstat(fp.fileno())
        if st.st_size > limit:
            raise InputTooLarge(f"{what} {os.fspath(path)} is {st.st_size:,} bytes: more than "
                                f"the {_size(limit)} it may hold")
        parts: list[bytes] = []
        total = 0
        while chunk := fp.read(min(_CHUNK, limit + 1 - total)):
            parts.append(chunk)
            total += len(chunk)
            if total > limit:
                raise InputTooLarge(f"{what} {os.fspath(path)} holds more than the "
                                    f"{_size(limit)} it may hold (a device or a pipe that "
                                    "does not end?)")
    return b"".join(parts)


def not_a_file(path: str | os.PathLike) -> str | None:
    """Why ``path`` cannot be read as a file, as the end of a sentence ("there is no file
    X", "X is a FIFO (a named pipe), not a file", ...), or None when it is a regular file:
    the CLI and the console say the same."""
    name = os.fspath(path)
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return f"there is no file {name}"
    except PermissionError:
        return f"{name} cannot be read: permission denied"
    except OSError as exc:
        return f"{name} cannot be used: {exc.strerror or exc}"
    if stat.S_ISREG(mode):
        return None
    return f"{name} is {kind_of(mode)}, not a file"


__all__ = ["MAX_BODY", "MAX_MSGIDS_FILE", "InputTooLarge", "NotAFile", "not_a_file",
           "open_input", "read_limited"]  # NotAFile, open_input: from mqconsole.inputfile
