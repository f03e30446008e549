"""Files an operator names on the command line, read with a size limit: ``/dev/zero``, a
FIFO that never ends or a 50 GB file is one sentence (exit 2), not memory exhausted."""

from __future__ import annotations

import os
import stat

from mqconsole.mq.errors import BadValue

MAX_BODY = 100 * 1024 * 1024  # MQ's largest message (MAXMSGL 100 MB): --payload-file, put --file
MAX_MSGIDS_FILE = 64 * 1024 * 1024  # about 1.3 million MsgIds, one per line
_CHUNK = 1024 * 1024


class InputTooLarge(BadValue):
    """A file larger than what it may hold."""


def _size(limit: int) -> str:
    return f"{limit // (1024 * 1024)} MiB" if limit >= 1024 * 1024 else f"{limit} bytes"


def read_limited(path: str | os.PathLike, limit: int, what: str) -> bytes:
    """The bytes of ``path`` (a file, a pipe, a device), at most ``limit`` of them; more is
    :class:`InputTooLarge` naming ``what`` and the file. ``OSError`` as ``open`` raises it."""
    with open(path, "rb") as fp:
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
    kind = ("a folder" if stat.S_ISDIR(mode) else "a FIFO (a named pipe)" if stat.S_ISFIFO(mode)
            else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
            else "a socket" if stat.S_ISSOCK(mode) else "not a regular file")
    return f"{name} is {kind}, not a file"


__all__ = ["MAX_BODY", "MAX_MSGIDS_FILE", "InputTooLarge", "not_a_file", "read_limited"]
