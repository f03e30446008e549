"""ops.browse from a position and the last messages (the CLI's --from and --last) give
what a whole browse gives at those positions, through page_at and through browsing."""

from __future__ import annotations

from datetime import UTC, datetime

from hypothesis import HealthCheck, given
from hypothesis import strategies as st

from mqconsole.mq.md import MQMD
from mqconsole.mq.message import Message
from mqconsole.ops.browse import iter_views, iter_views_plain, last_views
from mqconsole.ops.where import compile_where
from tests.support.examples import examples

NOW = datetime(2026, 11, 25, 12, 0, 0, tzinfo=UTC)


class Forward:
    """The queue manager as a backend without page_at or selection (real MQ)."""

    def __init__(self, qm) -> None:
        self._qm = qm

    def browse(self, queue: str):
        return self._qm.browse(queue)


def _seen(views) -> list[tuple[int, str]]:
    return [(v.position, v.msgid) for v in views]


@examples(40, suppress_health_check=[
    HealthCheck.function_scoped_fixture])
@given(priorities=st.lists(st.integers(0, 9), max_size=40), start=st.integers(1, 45),
       limit=st.one_of(st.none(), st.integers(1, 12)), last=st.integers(1, 45),
       where=st.sampled_from([None, "priority >= 5", "length > 3"]))
def test_from_and_last_agree_with_a_whole_browse(make_qm, priorities, start, limit, last,
                                                 where) -> None:
    qm = make_qm("Q")
    for n, p in enumerate(priorities):
        qm.put("Q", Message(MQMD(format="MQSTR", priority=p), b"m" * (n % 7)), syncpoint=False)
    test = compile_where(where) if where else None
    whole = _seen(iter_views_plain(qm, "Q", where=test, now=NOW))
    expect = [s for s in whole if s[0] >= start][:limit]
    for backend in (qm, Forward(qm)):
        assert _seen(iter_views(backend, "Q", where=test, limit=limit, start=start, now=NOW,
                                batch=5)) == expect
        assert _seen(last_views(backend, "Q", last, where=test, now=NOW)) == whole[-last:]
