"""A module's filled queue manager, built once: each test opens a private RAM copy of it
(``make_qm(copy_of=...)``) instead of putting the same messages again. And a new empty
queue manager file as a copy of one made once per test process (``empty_queue_manager``)."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

from mqconsole.backends.base import QueueManager
from mqconsole.backends.embedded import create_queue_manager
from mqconsole.backends.open import open_embedded
from mqconsole.mq.queue import QueueAttrs

_EMPTY: dict[str, Path] = {}
RAM = "/dev/shm" if os.access("/dev/shm", os.W_OK | os.X_OK) else None
"""A folder in RAM for a test's queue manager files (None: the temp folder)."""


def empty_queue_manager(path: str | os.PathLike[str], name: str) -> Path:
    """``create_queue_manager(path, name).close()`` (a new file; an existing ``path`` is
    refused as it refuses it), as a copy of the file that call made once in this process
    for ``name``: the same schema, attributes and dead-letter queue, its mode 0600 kept
    (7.8 ms of CPU a file against 0.2 for the copy). What differs is only the "created"
    stamp and the dead-letter queue's create time: the first file's."""
    target = Path(path)
    if target.exists():
        return create_queue_manager(target, name).path  # raises QueueManagerExistsError
    template = _EMPTY.get(name)
    if template is None:
        folder = Path(tempfile.mkdtemp(prefix="mqconsole-empty-qm-"))
        atexit.register(shutil.rmtree, folder, True)
        template = folder / "empty.qm"
        create_queue_manager(template, name).close()
        assert not Path(f"{template}-wal").exists()
        _EMPTY[name] = template
    shutil.copy(template, target)
    return target


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
