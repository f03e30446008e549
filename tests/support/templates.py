"""A module's filled queue manager, built once: each test opens a private RAM copy of it
(``make_qm(copy_of=...)``) instead of putting the same messages again."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from mqconsole.backends.base import QueueManager
from mqconsole.backends.open import open_embedded
from mqconsole.mq.queue import QueueAttrs


def filled_template(folder: Path, queues: Sequence[str], max_depth: int,
                    fill: Callable[[QueueManager], object]) -> Path:
    """``folder/filled.sqlite``: ``queues`` defined (``max_depth`` each), ``fill`` run on
    it, closed with all of it in the one file a copy takes (no write-ahead log beside)."""
    path = folder / "filled.sqlite"
    qm = open_embedded(path, create=True)
    for q in queues:
        qm.define_queue(QueueAttrs(q, max_depth=max_depth))
    fill(qm)
    qm.close()
    assert not Path(f"{path}-wal").exists()
    return path
