"""The embedded queue manager's files are the user's alone (issue 17 item 11): the database,
its -wal and -shm files and the lock file 0600, the folders made for it 0700, as backups
and the journal already are."""

from __future__ import annotations

import os
import stat

from mqconsole.backends.base import Context
from mqconsole.backends.embedded import create_queue_manager
from mqconsole.backends.open import open_embedded
from mqconsole.mq.md import MQMD
from mqconsole.mq.message import Message
from mqconsole.mq.queue import QueueAttrs


def mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_files_0600_and_new_folders_0700(tmp_path):
    old = os.umask(0o022)  # the usual umask lets others read what is not made private
    try:
        path = tmp_path / "a" / "b" / "qm.sqlite"
        qm = create_queue_manager(path, name="QMF")
        qm.define_queue(QueueAttrs(name="Q"))
        qm.close()
        qm = open_embedded(path)
        qm.put("Q", Message(MQMD(format="MQSTR"), b"secret"), context=Context.SET_ALL,
               syncpoint=True)
        qm.commit()
        files = [path, f"{path}-wal", f"{path}-shm", f"{path}-mqlock"]
        assert all(os.path.exists(f) for f in files)  # the connection is open
        assert {str(f): mode(f) for f in files} == {str(f): 0o600 for f in files}
        assert mode(tmp_path / "a") == mode(tmp_path / "a" / "b") == 0o700
        qm.close()
    finally:
        os.umask(old)
