"""Helpers of the contract suite: they use the QueueManager protocol and nothing else."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import pytest

from mqconsole.backends.base import Context, QueueManager
from mqconsole.mq.errors import MQError
from mqconsole.mq.md import MQMD
from mqconsole.mq.message import Message
from mqconsole.mq.names import reason_name

ADMIN = "ctadmin"  # the suite's own principal (allowed everything once authorities exist)


def msg(body: bytes | str = b"", **md: object) -> Message:
    """A message with an MQSTR descriptor (``md`` overrides MQMD fields)."""
    fields: dict[str, object] = {"format": "MQSTR"}
    fields.update(md)
    data = body.encode() if isinstance(body, str) else body
    return Message(MQMD(**fields), data)  # type: ignore[arg-type]


def put_bodies(qm: QueueManager, queue: str, *bodies: bytes | str, commit: bool = True,
               **md: object) -> list[Message]:
    out = [qm.put(queue, msg(b, **md), context=Context.NEW) for b in bodies]
    if commit:
        qm.commit()
    return out


def browse_all(qm: QueueManager, queue: str) -> list[Message]:
    with qm.browse(queue) as cur:
        out = []
        while True:
            batch = cur.next_batch(100)
            out.extend(batch)
            if len(batch) < 100:
                return out


def bodies(qm: QueueManager, queue: str) -> list[bytes]:
    return [m.body for m in browse_all(qm, queue)]


def drain(qm: QueueManager, queue: str) -> list[Message]:
    """Get every message without syncpoint."""
    out = []
    while True:
        try:
            out.append(qm.get(queue, syncpoint=False))
        except MQError as e:
            if e.reason == 2033:
                return out
            raise


@contextlib.contextmanager
def mq_error(reason: int) -> Iterator[pytest.ExceptionInfo[MQError]]:
    """Expect an MQError with exactly ``reason``."""
    with pytest.raises(MQError) as info:
        yield info
    got = info.value.reason
    assert got == reason, f"expected {reason_name(reason)} ({reason}), got {info.value}"
