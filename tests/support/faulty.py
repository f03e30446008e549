"""A QueueManager (and browse cursor) that fails on purpose, for fault-injection tests.

Wrap a real connection and say which calls fail::

    faults = Faults(put={3: 2053}, get={5: 2009}, commit={1: 2003},
                    full_after={"DEST": 40}, inhibit_after={"DEST": 10})
    qm = FaultyQueueManager(real_qm, faults)

Counting is 1-based over every call of that kind made through the wrapper (failed ones
included). What each fault does, as MQ would:

* ``put={n: reason}``: the n-th put raises MQError(reason) and puts nothing.
* ``full_after={queue: n}`` / ``inhibit_after={queue: n}``: after n puts to ``queue`` went
  through, every further put to it raises 2053 / 2051.
* ``get={n: reason}``: the n-th ``get_current`` (on any cursor) raises and takes nothing.
* ``wrong_get={n}``: the n-th ``get_current`` takes the message but hands back a changed
  body (as if another message had been got): the caller must notice and back out.
* ``commit={n: reason}``: the n-th commit raises. With 2003 (MQ's "backed out instead")
  and the unknown-outcome reasons 2009, 2018, 2548, 2549 ("unknown, and in fact not
  committed") the unit of work is backed out first; with any other reason (2102, 2195, …)
  it stays open, as MQ leaves it: the caller must back it out.
* ``commit_after={n: reason}``: the n-th commit commits and then raises (2549: unknown,
  and in fact committed).
* ``backout={n: reason}``: the n-th backout raises and backs nothing out.
* ``browse_next={n: reason}``: the n-th ``next``/``next_batch`` on a cursor raises.

A cursor of a backend with the one-call move step (``backends.base.MovesUnderCursor``,
the embedded backend's fast path, used by ops/transfer.py) offers it too, with the same faults
at the same counts: a put fault raises before anything is done; a ``get`` fault puts
(through the real connection) and returns the error, as the real one returns a get's
failure after the put; a ``wrong_get`` takes the message and returns the 2034 the caller
would raise on seeing another message. ``Faults(fast=False)`` hides it, so the caller
falls back to ``put`` + ``get_current``.

A cursor of a backend that moves many messages in one call
(``backends.base.MovesManyUnderCursor``) offers that too: each message it moves counts as a
``next``, a put and a ``get_current``, and it is asked for no more messages than can go
before the next fault would be hit (the message that hits it is then moved by the one-call
step, or put + ``get_current``, where the fault happens as above). ``Faults(many=False)``
hides it.

``calls`` records ``(kind, detail)`` for every call, so tests can check the order of
operations (for a move between two queue managers).

Below the wrapper: helpers to fill queues with distinct messages, read them back and check
that every message is in exactly one place with its body and context unchanged.
"""

from __future__ import annotations

import operator
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from mqconsole.backends.base import Context, move_step, moves_many
from mqconsole.mq.errors import COMMIT_OUTCOME_UNKNOWN_REASONS, MQError
from mqconsole.mq.md import LAYOUT, MQMD
from mqconsole.mq.message import Message


@dataclass
class Faults:
    put: dict[int, int] = field(default_factory=dict)
    get: dict[int, int] = field(default_factory=dict)
    wrong_get: set[int] = field(default_factory=set)
    commit: dict[int, int] = field(default_factory=dict)
    commit_after: dict[int, int] = field(default_factory=dict)
    full_after: dict[str, int] = field(default_factory=dict)
    inhibit_after: dict[str, int] = field(default_factory=dict)
    browse_next: dict[int, int] = field(default_factory=dict)
    backout: dict[int, int] = field(default_factory=dict)
    fast: bool = True  # cursors offer move_current_to when the real one has it
    many: bool = True  # ... and move_next (with fast) when the real one has it
    # counters
    puts: int = 0
    gets: int = 0
    commits: int = 0
    nexts: int = 0
    backouts: int = 0
    puts_to: dict[str, int] = field(default_factory=dict)
    injected: list[tuple[str, int, int]] = field(default_factory=list)  # (kind, n, reason)
    calls: list[tuple[str, str]] = field(default_factory=list)

    def hit(self, kind: str, n: int, reason: int) -> MQError:
        self.injected.append((kind, n, reason))
        return MQError(reason, f"injected fault: {kind} #{n}")


class FaultyCursor:
    def __init__(self, inner: Any, faults: Faults, tag: str,
                 owner: FaultyQueueManager | None = None) -> None:
        self._inner = inner
        self._faults = faults
        self._tag = tag
        self._owner = owner
        self.queue = inner.queue
        if owner is None or not faults.fast or move_step(inner) is None:
            # hidden (a None method is no capability): callers use put + get_current
            self.move_current_to = None
        if (owner is None or not faults.fast or not faults.many
                or moves_many(inner) is None):
            self.move_next = None

    def _count_next(self) -> None:
        f = self._faults
        f.nexts += 1
        reason = f.browse_next.get(f.nexts)
        if reason is not None:
            raise f.hit("browse", f.nexts, reason)

    def next(self) -> Message | None:
        self._count_next()
        return self._inner.next()

    def next_batch(self, n: int) -> list[Message]:
        self._count_next()
        return self._inner.next_batch(n)

    def get_current(self, *, syncpoint: bool = True) -> Message:
        f = self._faults
        f.gets += 1
        n = f.gets
        f.calls.append((f"{self._tag}get", self.queue))
        reason = f.get.get(n)
        if reason is not None:
            raise f.hit("get", n, reason)
        msg = self._inner.get_current(syncpoint=syncpoint)
        if n in f.wrong_get:
            f.injected.append(("wrong_get", n, 0))
            return Message(msg.md, msg.body + b"\x00not the browsed one")
        return msg

    def move_current_to(self, queue: str, message: Message,  # type: ignore[no-redef]
                        context: Context = Context.SET_ALL, qmgr_name: str = "",
                        as_browsed: bool = False) -> MQError | None:
        owner = self._owner
        assert owner is not None
        f = self._faults
        done = owner._put_faults(queue)  # raises as put would: nothing done
        n = f.gets + 1  # the get_current this stands for, counted once the put went through
        reason = f.get.get(n)
        if reason is not None:  # the put goes through, the get fails
            owner._inner.put(queue, message, context=context, syncpoint=True,
                             qmgr_name=qmgr_name)
            err: MQError | None = None
        else:
            err = self._inner.move_current_to(queue, message, context=context,
                                              qmgr_name=qmgr_name, as_browsed=as_browsed)
        f.puts_to[queue] = done + 1  # (a failed put raised above)
        f.gets = n
        f.calls.append((f"{self._tag}get", self.queue))
        if reason is not None:
            return f.hit("get", n, reason)
        if err is None and n in f.wrong_get:
            f.injected.append(("wrong_get", n, 0))
            return MQError(2034, "injected fault: the message got is not the one browsed")
        return err

    def move_next(self, queue: str, n: int) -> list[Message]:  # type: ignore[no-redef]
        f = self._faults
        k = n  # messages that can go before one would hit a fault
        for count, at in ((f.nexts, f.browse_next), (f.puts, f.put), (f.gets, f.get),
                          (f.gets, f.wrong_get)):
            later = [i for i in at if i > count]
            if later:
                k = min(k, min(later) - count - 1)
        done = f.puts_to.get(queue, 0)
        for limit in (f.full_after.get(queue), f.inhibit_after.get(queue)):
            if limit is not None:
                k = min(k, limit - done)
        if k <= 0:
            return []
        moved = self._inner.move_next(queue, k)
        m = len(moved)
        f.nexts += m
        f.puts += m
        f.gets += m
        f.puts_to[queue] = done + m
        for _ in range(m):
            f.calls += [(f"{self._tag}put", queue), (f"{self._tag}get", self.queue)]
        return moved

    def close(self) -> None:
        self._inner.close()

    def __enter__(self) -> FaultyCursor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class FaultyQueueManager:
    """Delegates to ``inner``; ``put``, ``commit`` and cursors fail as ``faults`` says.
    ``tag`` prefixes the entries of ``faults.calls`` (to tell two queue managers apart)."""

    def __init__(self, inner: Any, faults: Faults | None = None, tag: str = "") -> None:
        self._inner = inner
        self.faults = faults if faults is not None else Faults()
        self._tag = tag

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    @property
    def name(self) -> str:
        return self._inner.name

    @property
    def in_unit_of_work(self) -> bool:
        return self._inner.in_unit_of_work

    def browse(self, queue: str, *, for_get: bool = False) -> FaultyCursor:
        return FaultyCursor(self._inner.browse(queue, for_get=for_get), self.faults, self._tag,
                            self)

    def put(self, queue: str, message: Message, *, context: Context = Context.SET_ALL,
            syncpoint: bool = True, qmgr_name: str = "", new_msg_id: bool = False,
            alt_user: str = "") -> Message:
        done = self._put_faults(queue)
        out = self._inner.put(queue, message, context=context, syncpoint=syncpoint,
                              qmgr_name=qmgr_name, new_msg_id=new_msg_id, alt_user=alt_user)
        self.faults.puts_to[queue] = done + 1
        return out

    def put_packed(self, queue: str, messages) -> tuple[int, MQError | None]:
        """``backends.base.PutsPacked`` through ``put`` (so its faults apply): a refusal
        returned, a connection's failure raised."""
        from mqconsole.mq.md import MQMD
        from mqconsole.mq.reasons import CONNECTION_REASONS

        done = 0
        for md, body in messages:
            try:
                self.put(queue, Message(MQMD.unpack(md, ccsid=819), body),
                         context=Context.SET_ALL, syncpoint=True)
            except MQError as exc:
                if exc.reason in CONNECTION_REASONS:
                    raise
                return done, exc
            done += 1
        return done, None

    def _put_faults(self, queue: str) -> int:
        """Count a put and raise its fault, if any; the puts to ``queue`` that went through."""
        f = self.faults
        f.puts += 1
        n = f.puts
        f.calls.append((f"{self._tag}put", queue))
        reason = f.put.get(n)
        if reason is not None:
            raise f.hit("put", n, reason)
        done = f.puts_to.get(queue, 0)
        if queue in f.full_after and done >= f.full_after[queue]:
            raise f.hit("full", n, 2053)
        if queue in f.inhibit_after and done >= f.inhibit_after[queue]:
            raise f.hit("inhibited", n, 2051)
        return done

    def commit(self) -> None:
        f = self.faults
        f.commits += 1
        n = f.commits
        f.calls.append((f"{self._tag}commit", ""))
        reason = f.commit.get(n)
        if reason is not None:
            if reason == 2003 or reason in COMMIT_OUTCOME_UNKNOWN_REASONS:
                self._inner.backout()
            raise f.hit("commit", n, reason)
        self._inner.commit()
        reason = f.commit_after.get(n)
        if reason is not None:
            raise f.hit("commit_after", n, reason)

    def backout(self) -> None:
        f = self.faults
        f.backouts += 1
        f.calls.append((f"{self._tag}backout", ""))
        reason = f.backout.get(f.backouts)
        if reason is not None:
            raise f.hit("backout", f.backouts, reason)
        self._inner.backout()

    def new_connection(self) -> FaultyQueueManager:
        return FaultyQueueManager(self._inner.new_connection(), self.faults, self._tag)

    def close(self) -> None:
        self._inner.close()


# -- helpers -------------------------------------------------------------------------------

# Fields that must survive a move unchanged (BackoutCount may rise; Expiry counts down).
KEPT = tuple(a for a, *_ in LAYOUT if a not in ("backout_count", "expiry"))
_KEPT_OF = operator.attrgetter(*KEPT)  # the KEPT fields' values as one tuple, read in C
USERS = ("alice", "bob", "batch01", "mqm")
APPS = ("OrderService.jar", "payments-batch", "amqsput")


def make_message(i: int, *, msg_id: bytes | None = None, body: bytes | None = None,
                 **md_fields: object) -> Message:
    """A distinct message with a full context (user, application, put time) of its own."""
    md = MQMD(format="MQSTR", encoding=546, ccsid=1208, priority=i % 10, persistence=i % 2,
              msg_id=msg_id if msg_id is not None else b"MSG" + i.to_bytes(21, "big"),
              correl_id=b"C" + i.to_bytes(23, "big"), user_identifier=USERS[i % len(USERS)],
              put_appl_name=APPS[i % len(APPS)], put_appl_type=6,
              put_date=f"2026{1 + i % 12:02d}{1 + i % 28:02d}",
              put_time=f"{i % 24:02d}{i % 60:02d}{(i * 7) % 60:02d}{i % 100:02d}",
              appl_identity_data=f"id{i}", reply_to_q="REPLY.Q", reply_to_qmgr="QMX",
              **md_fields)
    return Message(md, body if body is not None else f"message {i} body".encode())


def fill(qm, queue: str, messages: list[Message], *, batch: int = 200) -> None:
    for n, m in enumerate(messages, 1):
        qm.put(queue, m, context=Context.SET_ALL, syncpoint=True)
        if n % batch == 0:
            qm.commit()
    qm.commit()


def browse_all(qm, queue: str) -> list[Message]:
    out: list[Message] = []
    with qm.browse(queue) as cur:
        while True:
            batch = cur.next_batch(500)
            out.extend(batch)
            if len(batch) < 500:
                return out


def key(m: Message) -> tuple:
    """A message's identity and content as a move must keep it."""
    return (bytes(m.body), _KEPT_OF(m.md))


def assert_exactly_once(original: list[Message], *places: list[Message]) -> None:
    """Every original message is in exactly one of ``places``, body and context unchanged;
    nothing else is there."""
    want = Counter(key(m) for m in original)
    have = Counter(key(m) for place in places for m in place)
    missing = want - have
    extra = have - want
    assert not missing and not extra, (
        f"{sum(missing.values())} missing, {sum(extra.values())} extra/duplicated")


def ids(messages: list[Message]) -> list[bytes]:
    return [m.md.msg_id for m in messages]
