"""Run one operation with plugins on an embedded queue manager in memory: for plugin
authors' tests (and ours). Registering plugins alone is ``mqconsole.plugins.testing``."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from mqconsole.backends.base import QueueManager
from mqconsole.backends.open import open_embedded
from mqconsole.mq.md import MQMD
from mqconsole.mq.message import Message
from mqconsole.mq.queue import QueueAttrs
from mqconsole.ops.journal import Journal, JournalEntry
from mqconsole.ops.operation.core import Operation, Summary
from mqconsole.plugins.host import PluginHost
from mqconsole.plugins.testing import plugin_host


@dataclass
class OperationRun:
    """What :func:`run_operation` did: the operation's summary, the queue manager (to look
    at the queues afterwards: ``messages(queue)``), the journal's entries, the host."""

    summary: Summary
    qm: QueueManager  # the embedded queue manager (in memory; closed by ``close``)
    host: PluginHost
    journal: list[JournalEntry] = field(default_factory=list)

    def messages(self, queue: str) -> list[Message]:
        """Every message on ``queue``, in browse order."""
        out = []
        with self.qm.browse(queue) as cursor:
            while (m := cursor.next()) is not None:
                out.append(m)
        return out

    def close(self) -> None:
        self.qm.close()


def run_operation(kind: Any, *plugins: object,
                  queues: Mapping[str, Iterable[Any]] | None = None,
                  dry_run: bool = False, qm: QueueManager | None = None,
                  settings: Mapping[str, Mapping[str, Any]] | None = None,
                  journal_path: str | os.PathLike | None = None) -> OperationRun:
    """Register ``plugins``, then run one operation of ``kind`` (an
    ``mqconsole.ops.operation`` kind: ``Move(...)``, ``Resubmit(...)``, …) on an embedded
    queue manager in memory with ``queues`` defined and filled (a queue name -> messages:
    ``Message`` objects, or bytes/str bodies); ``qm``: use that queue manager instead.
    The journal is written to ``journal_path`` (default: a temporary file, read back into
    ``OperationRun.journal``). Errors that stop the operation are raised, as for a face::

        from mqconsole.ops.operation import Move
        from mqconsole.ops.selection import Selection
        from mqconsole.ops.operation.testing import run_operation

        run = run_operation(Move("IN", "OUT", Selection(all=True)), my_check_plugin,
                            queues={"IN": [b"old", b"new"], "OUT": []})
        assert run.summary.counts["failed"] == 1 and len(run.messages("IN")) == 1
    """
    host = plugin_host(*plugins, settings=settings)
    if qm is None:
        qm = open_embedded(":memory:")
    for name, messages in (queues or {}).items():
        qm.define_queue(QueueAttrs(name=name, max_depth=1_000_000))
        for i, m in enumerate(messages):
            if not isinstance(m, Message):
                body = m.encode() if isinstance(m, str) else bytes(m)
                m = Message(MQMD(format="MQSTR", ccsid=1208,
                                 msg_id=b"TEST" + i.to_bytes(20, "big")), body)
            qm.put(name, m, syncpoint=True)
        qm.commit()
    with tempfile.TemporaryDirectory() as tmp:
        path = journal_path if journal_path is not None else os.path.join(tmp, "journal.jsonl")
        journal = Journal(path)
        op = Operation(kind, journal=journal, profile="test", plugins=host)
        op.validate(qm)
        summary = op.run(qm, dry_run=dry_run)
        return OperationRun(summary, qm, host, list(journal.read()))
