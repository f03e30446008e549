"""The two errors the core raises: bad bytes (HeaderError) and MQ failures (MQError)."""

from __future__ import annotations

from .names import reason_name


class HeaderError(ValueError):
    """Malformed bytes in an MQ structure: names the header, the offset and the problem."""

    def __init__(self, header: str, offset: int, problem: str) -> None:
        self.header = header
        self.offset = offset
        self.problem = problem
        super().__init__(f"{header} at offset {offset}: {problem}")


class MQError(Exception):
    """A failed MQ call, with its completion and reason code (an MQRC_* value)."""

    def __init__(self, reason: int, message: str = "", *, completion: int = 2) -> None:
        self.reason = reason
        self.completion = completion
        self.reason_name = reason_name(reason)
        self.detail = message
        text = f"{self.reason_name} ({reason})"
        if message:
            text = f"{message}: {text}"
        super().__init__(text)
