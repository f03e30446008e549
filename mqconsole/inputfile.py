"""Opening a file an operator names as input, never waiting: shared by every room that
reads one (``ops`` — ``put --file``, ``edit --payload-file``, ``--msgids-from``, a rules
table —, ``config`` — the configuration file —, ``model`` — scenario and endpoints files).
Imports nothing of mqconsole.

``open`` of a FIFO no one writes to blocks for ever (and a console reading it freezes):
:func:`open_input` opens with ``O_NONBLOCK`` and checks the type on the open file before a
byte is read, so a FIFO, a socket or a folder is one sentence (:class:`NotAFile`, exit code
2), as ``load`` says it."""

from __future__ import annotations

import os
import stat
from typing import BinaryIO


class NotAFile(ValueError):
    """An input file that is a FIFO, a socket or a folder: one sentence naming it (bad
    input: exit code 2); ``kind``: what it is ("a FIFO (a named pipe)")."""

    def __init__(self, sentence: str, kind: str) -> None:
        super().__init__(sentence)
        self.kind = kind


def kind_of(mode: int) -> str:
    """What a file of ``st_mode`` ``mode`` is, in words ("a FIFO (a named pipe)", ...)."""
    return ("a folder" if stat.S_ISDIR(mode) else "a FIFO (a named pipe)" if stat.S_ISFIFO(mode)
            else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
            else "a socket" if stat.S_ISSOCK(mode) else "not a regular file")


def open_input(path: str | os.PathLike, what: str | None = None) -> BinaryIO:
    """``path`` open for reading (binary), never waiting: opened with ``O_NONBLOCK`` and its
    type checked on the open file (no race with a rename). A FIFO, a socket or a folder is
    :class:`NotAFile` — "``what`` X is a FIFO (a named pipe), not a file"; a regular file or
    a device (``/dev/zero``: the caller reads with a limit) is returned, blocking again.
    ``OSError`` as ``open`` raises it (no file, no permission)."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode) or stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode):
            prefix, kind = f"{what} " if what else "", kind_of(mode)
            raise NotAFile(f"{prefix}{os.fspath(path)} is {kind}, not a file", kind)
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


__all__ = ["NotAFile", "kind_of", "open_input"]
