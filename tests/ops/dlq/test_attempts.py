"""The attempt-count key (dlq-rules.md, mqconsole's additions): MsgId + CorrelId + the
dead-letter header's PutDate, PutTime, Reason, DestQName and DestQMgrName — each part
tells two messages apart, and nothing else does."""

from __future__ import annotations

import pytest

from mqconsole.mq.chain import add_dead_letter_header, dead_letter_header
from mqconsole.ops.dlq.attempts import message_key
from tests.support.faulty import make_message

HEADER = dict(reason=2053, dest_q_name="APP.IN", dest_qmgr_name="QM1", put_date="20261125",
              put_time="10000001")


def key(md_fields: dict | None = None, **header):
    m = make_message(1)
    md, body = add_dead_letter_header(m.md.copy(**(md_fields or {})), m.body,
                                      **{**HEADER, **header})
    return message_key(md, dead_letter_header(md, body))


@pytest.mark.parametrize("md_fields, header", [
    ({"msg_id": b"OTHER".ljust(24, b"\0")}, {}),
    ({"correl_id": b"OTHER".ljust(24, b"\0")}, {}),
    ({}, {"put_date": "20261126"}),
    ({}, {"put_time": "10000002"}),
    ({}, {"reason": 2035}),
    ({}, {"dest_q_name": "APP.OTHER"}),
    ({}, {"dest_qmgr_name": "QM2"}),
])
def test_each_part_of_the_key_tells_messages_apart(md_fields, header) -> None:
    assert key(md_fields, **header) != key()


def test_other_fields_do_not_change_the_key() -> None:
    """The descriptor's own fields (priority, user, put time of the MD) are not the key:
    a message forwarded with its context and dead-lettered again is the same message."""
    assert key({"priority": 9, "user_identifier": "bob", "put_time": "23595999"}) == key()
    assert key(dest_q_name="APP.IN  ") == key()  # trailing blanks are not significant


def test_counts_are_kept_per_queue_manager_and_queue(tmp_path) -> None:
    """One file holds every queue's counts: the same message key on another queue or
    another queue manager's queue has its own count, and forgetting the messages that left
    one queue (after a pass) leaves the others' alone; the counts survive reopening."""
    from mqconsole.ops.dlq.attempts import AttemptStore

    path = tmp_path / "attempts.sqlite"
    k = key()
    stores = {(qm, q): AttemptStore(path, qm, q) for qm, q in
              (("QM1", "DLQ"), ("QM1", "OTHER.DLQ"), ("QM2", "DLQ"))}
    for n, store in enumerate(stores.values(), 1):
        for _ in range(n):
            store.failed(k, "MQRC_Q_FULL")
    assert [s.count(k) for s in stores.values()] == [1, 2, 3]
    stores["QM1", "DLQ"].keep_only(set())  # the message left QM1's DLQ
    for s in stores.values():
        s.close()
    again = {name: AttemptStore(path, *name) for name in stores}
    assert [s.count(k) for s in again.values()] == [0, 2, 3]
    assert again["QM2", "DLQ"].get(k).last_reason == "MQRC_Q_FULL"
    for s in again.values():
        s.close()
