"""What a delete saved, kept on disk: so that it removes exactly those, in flat memory.

A delete (``ops.delete``) saves the selected messages to its backup file, then browses
again and removes each message that is one of those saved. It used to hold every saved
message's key (MsgId, descriptor, a digest of the body, the browse's token) in a list: a
kilobyte a message, a gigabyte for a million. :class:`SavedLog` keeps them in a private
temporary SQLite database (``sqlite3.connect("")``: in memory while small, spilled to a
temporary file SQLite removes by itself) keyed by a digest of the key.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Iterable, Iterator

_BATCH = 2000


def key_digest(key: tuple) -> bytes:
    """A digest of a message's key (``(savefile.message_key(m), token)``: str, int, bytes
    and None in tuples, whose ``repr`` is the same for equal keys)."""
    return hashlib.sha256(repr(key).encode("utf-8", "surrogatepass")).digest()[:20]


class SavedLog:
    """The saved messages in order (position, MsgId) and, by key digest, how many saved
    with that key are still to be removed."""

    def __init__(self) -> None:
        self._db = sqlite3.connect("", check_same_thread=False)
        self._db.executescript(
            "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;"
            "CREATE TABLE saved (position INTEGER NOT NULL, msgid TEXT NOT NULL,"
            " digest BLOB NOT NULL, token BLOB);"
            "CREATE TABLE keys (digest BLOB PRIMARY KEY, left INTEGER NOT NULL,"
            " position INTEGER NOT NULL, msgid TEXT NOT NULL) WITHOUT ROWID;")
        self._pending: list[tuple[bytes, int, str, bytes | None]] = []
        self.count = 0
        self.untokened = 0  # saved messages without a token (a backend without MsgTokens)

    def add(self, position: int, msgid: str, key: tuple) -> None:
        """``key``: ``(savefile.message_key(m), m.token)``."""
        token = key[1] if isinstance(key[1], bytes) and key[1] else None
        self._pending.append((key_digest(key), position, msgid, token))
        self.count += 1
        self.untokened += token is None
        if len(self._pending) >= _BATCH:
            self._flush()

    def _flush(self) -> None:
        rows, self._pending = self._pending, []
        if not rows:
            return
        with self._db:
            self._db.executemany("INSERT INTO saved VALUES (?, ?, ?, ?)",
                                 [(p, m, d, t) for d, p, m, t in rows])
            self._db.executemany(
                "INSERT INTO keys VALUES (?, 1, ?, ?) "
                "ON CONFLICT (digest) DO UPDATE SET left = left + 1",
                [(d, p, m) for d, p, m, _ in rows])

    def __len__(self) -> int:
        return self.count

    def __iter__(self) -> Iterator[tuple[int, str]]:
        """``(position, msgid)`` of each saved message, in order."""
        self._flush()
        yield from self._db.execute("SELECT position, msgid FROM saved ORDER BY rowid")

    def tokens(self) -> Iterator[tuple[bytes, int, bytes]]:
        """``(digest, position, token)`` of each saved message, in order (every one has a
        token when ``untokened`` is 0): a delete finds them by it."""
        self._flush()
        yield from self._db.execute(
            "SELECT digest, position, token FROM saved ORDER BY rowid")

    def left(self, digest: bytes) -> int:
        """How many saved messages with this key digest are not removed yet."""
        self._flush()
        row = self._db.execute("SELECT left FROM keys WHERE digest = ?", (digest,)).fetchone()
        return 0 if row is None else row[0]

    def removed(self, digests: Iterable[bytes]) -> None:
        """One message of each digest (a digest as often as its messages) was removed."""
        with self._db:
            self._db.executemany("UPDATE keys SET left = left - 1 WHERE digest = ?",
                                 [(d,) for d in digests])

    def total_left(self) -> int:
        self._flush()
        return self._db.execute("SELECT coalesce(sum(left), 0) FROM keys").fetchone()[0]

    def not_removed(self) -> Iterator[tuple[int, str, int]]:
        """``(position, msgid, how many)`` of each key still to be removed."""
        self._flush()
        yield from self._db.execute(
            "SELECT position, msgid, left FROM keys WHERE left > 0 ORDER BY position")

    def forget_rest(self) -> None:
        """Nothing more is to be removed (the rest was reported)."""
        with self._db:
            self._db.execute("UPDATE keys SET left = 0")

    def close(self) -> None:
        self._db.close()


__all__ = ["SavedLog", "key_digest"]
