"""Numbered lines of a message file with push-back: what the dmpmqmsg and amqsbcg readers share."""

from __future__ import annotations

from typing import IO

from .common import DmpFileError

MAX_LINE = 1024 * 1024  # dmpmqmsg and amqsbcg write lines of at most a few hundred bytes


class Lines:
    """Numbered lines of a file without their line end (``\\n``, ``\\r\\n``), with push-back.

    Bytes are read as latin-1, so every byte is one character and none is lost.
    """

    def __init__(self, fp: IO, name: str | None) -> None:
        self._fp = fp
        self.name = name
        self.number = 0
        self._back: list[tuple[int, str]] = []

    def __iter__(self) -> Lines:
        return self

    def __next__(self) -> tuple[int, str]:
        if self._back:
            return self._back.pop()
        raw = self._fp.readline(MAX_LINE + 1)
        if not raw:
            raise StopIteration
        self.number += 1
        if len(raw) > MAX_LINE:
            raise self.error(self.number, f"the line is longer than {MAX_LINE // 1024} KiB: not "
                             "a line of a dmpmqmsg or amqsbcg file")
        text = raw.decode("latin-1") if isinstance(raw, bytes | bytearray) else raw
        if text.endswith("\n"):
            text = text[:-1]
        if text.endswith("\r"):
            text = text[:-1]
        return self.number, text

    def push_back(self, item: tuple[int, str]) -> None:
        self._back.append(item)

    def take_back(self) -> tuple[int, str] | None:
        """The line pushed back (it is no longer), or None."""
        return self._back.pop() if self._back else None

    @property
    def source(self) -> IO:
        """The file read (positioned after the last line read that was not pushed back)."""
        return self._fp

    def error(self, line: int | None, problem: str) -> DmpFileError:
        return DmpFileError(self.name, line, problem)
