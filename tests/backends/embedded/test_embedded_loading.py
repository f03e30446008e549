"""The embedded queue manager's puts of packed messages (``PutsPacked``, what a load uses)
and the dead-letter facts it remembers per header (issue 16)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from mqconsole.backends.base import PutsPacked
from mqconsole.backends.embedded.stored import _dead_letter_facts
from mqconsole.mq.chain import add_dead_letter_header
from mqconsole.mq.facts import dead_letter_facts
from mqconsole.mq.md import MQMD
from mqconsole.mq.queue import QueueAttrs
from mqconsole.mq.reasons import MQRC_PRIORITY_ERROR, MQRC_Q_FULL
from tests.support.examples import examples


def test_put_packed_stops_at_the_first_refusal_and_says_which(make_qm):
    qm = make_qm(QueueAttrs("Q", max_depth=3))
    assert isinstance(qm, PutsPacked)
    good = MQMD(format="MQSTR", msg_id=b"1").pack(ccsid=819)
    bad = MQMD(format="MQSTR", msg_id=b"2", priority=-5).pack(ccsid=819)
    went, refusal = qm.put_packed("Q", [(good, b"a"), (bad, b"b"), (good, b"c")])
    assert went == 1 and refusal is not None and refusal.reason == MQRC_PRIORITY_ERROR
    went, refusal = qm.put_packed("Q", [(good, b"c"), (good, b"d"), (good, b"e")])
    assert went == 2 and refusal is not None and refusal.reason == MQRC_Q_FULL
    qm.commit()
    with qm.browse("Q") as c:
        assert [m.body for m in c.next_batch(10)] == [b"a", b"c", b"d"]


_HEADERS = st.builds(
    lambda reason, dest, qmgr, fmt, enc, tail: add_dead_letter_header(
        MQMD(format=fmt, encoding=enc), tail, reason=reason, dest_q_name=dest,
        dest_qmgr_name=qmgr)[1],
    st.integers(-(2**31), 2**31 - 1), st.text(max_size=48), st.text(max_size=48),
    st.text(max_size=8), st.sampled_from([273, 546]), st.binary(max_size=20))


@examples(200)
@given(st.lists(st.tuples(_HEADERS | st.binary(max_size=200), st.integers(0, 2000),
                          st.sampled_from([273, 546, 0, 785]),
                          st.sampled_from([0, 37, 500, 819, 1208, 1200, -1])),
                min_size=1, max_size=8),
       st.integers(0, 180))
def test_remembered_dead_letter_facts_are_the_facts(items, cut):
    for body, _n, encoding, ccsid in items * 2:  # the second time from what is remembered
        for b in (body, body[:cut]):
            assert _dead_letter_facts(b, encoding, ccsid) == dead_letter_facts(b, encoding,
                                                                               ccsid)
