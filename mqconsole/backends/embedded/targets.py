"""What name resolution finds for a put (resolution.py), kept by the session (session.py)
while its write transaction is held."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field


@dataclass(slots=True)
class Dest:
    """Where a put lands: the local queue row, the objects whose PUT attribute applies, the
    object whose defaults apply, and a transmission header when it goes to another qmgr."""

    row: sqlite3.Row
    opened: sqlite3.Row
    inhibit: list[sqlite3.Row] = field(default_factory=list)
    remote_q: str = ""
    remote_qmgr: str = ""


@dataclass(slots=True)
class Target:
    """A resolved and checked put destination, with what each put checks."""

    dest: Dest
    name: str  # the local queue the message lands on
    default_priority: int  # of the object opened (an alias's own)
    default_persistence: int
    inhibited: str | None  # the first put-inhibited object on the way, if any
    max_msg_length: int
    max_depth: int
    depth: int  # CURDEPTH when read
