"""One table of exit codes for every command (scripts depend on these numbers)."""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    OK = 0  # done (also when a selection matched nothing: said on stderr)
    PARTIAL = 1  # some messages failed and stayed where they were
    USAGE = 2  # usage or bad input: unknown queue, bad expression, bad file
    UNAVAILABLE = 3  # cannot connect, backend unavailable
    REFUSED = 4  # refused: read-only profile, not authorized, missing --yes
    UNKNOWN_OUTCOME = 5  # a commit MQ cannot confirm (2009, 2018, 2548, 2549): check queues
    INTERNAL = 70  # a bug in mqconsole (EX_SOFTWARE): the message says how to see details
