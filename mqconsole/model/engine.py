"""The delivery model: a deterministic discrete-event simulation (delivery-model.md).

A virtual clock in milliseconds; at each instant, in this order (§8):

1. deliveries that end now complete (success or rollback), in the order they were
   dispatched;
2. operator actions scheduled now take effect, in file order;
3. new deliveries start: every running consumer, in endpoint file order, fills its free
   sessions (lowest number first) with the messages its browse cursor finds next in queue
   order, wrapping round to the head after the last message.

Nothing here is random and no dict or set order leaks into the result, so the same
scenario always gives the same log. Documented choices where delivery-model.md is silent:

* a failure rule ``first: k`` counts per message when it names messages, else over all
  deliveries; ``kind: export`` rules never match the SCA dispatcher's deliveries;
* a consumer that handles a failure itself (``then: discard`` / ``{move: Q}``) commits, so
  the container counts it as a success (the rollback counter resets); if it cannot put to
  Q (inhibited, full, not authorized) the delivery rolls back instead;
* the rollbacks of a queue manager restart are not consumer failures: they raise backout
  counts but not the rollback counter, and no SIB or ``max_retries`` rule acts on them;
  endpoints reconnect with their browse cursors at the head of their queues;
* in non-ASF mode the ``deliver`` event is logged when the session's transaction starts,
  and the delivery lasts ``arrival_wait_ms`` (capped at the receive timeout) plus
  ``processing_ms``; ``total_transaction_lifetime_timeout_s: 0`` means no timeout;
* a dead-letter queue counts as "not authorized" when ``run_as`` lacks put or setall on it.
"""

from __future__ import annotations

import heapq
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from mqconsole.mq import reasons as R
from mqconsole.mq.names import reason_name

from . import providers as P
from .problems import Problem, ScenarioError
from .providers import Role
from .result import Change, EndpointState, Keyed, MessageState, ReplayResult, Step, Timeline
from .scenario import EndpointSpec, FailureRule, QueueSpec, Scenario

FailurePlugin = Callable[[Mapping[str, Any]], bool]

_NEVER = -1


class _Msg:
    __slots__ = ("backout_count", "blocked_until", "id", "key", "last_failure", "locked",
                 "payload", "persistent", "queue")

    def __init__(self, mid: str, payload: str, persistent: bool, count: int) -> None:
        self.id = mid
        self.payload = payload
        self.persistent = persistent
        self.backout_count = count
        self.key = 0
        self.queue = ""
        self.locked: _Delivery | None = None
        self.blocked_until = _NEVER
        self.last_failure: str | None = None


class _Queue:
    """A queue: messages in queue order (keys ascend), with lazy removal."""

    __slots__ = ("blocked_retry_timeout_ms", "boqname", "bothresh", "exception_destination",
                 "given", "hardenbo", "keys", "max_depth", "max_failed_deliveries", "msgs",
                 "name", "put_inhibited", "removed")

    def __init__(self, spec: QueueSpec) -> None:
        self.name = spec.name
        self.bothresh = spec.bothresh
        self.boqname = spec.boqname
        self.hardenbo = spec.hardenbo
        self.put_inhibited = spec.put_inhibited
        self.max_depth = spec.max_depth
        self.max_failed_deliveries = spec.max_failed_deliveries
        self.exception_destination = spec.exception_destination
        self.blocked_retry_timeout_ms = spec.blocked_retry_timeout_ms
        self.given = set(spec.given)
        self.keys: list[int] = []
        self.msgs: list[_Msg | None] = []
        self.removed = 0

    @property
    def depth(self) -> int:
        return len(self.keys) - self.removed

    def append(self, msg: _Msg, key: int) -> None:
        msg.key = key
        msg.queue = self.name
        msg.blocked_until = _NEVER
        self.keys.append(key)
        self.msgs.append(msg)

    def remove(self, msg: _Msg) -> None:
        i = bisect_left(self.keys, msg.key)
        self.msgs[i] = None
        self.removed += 1
        if self.removed > 64 and self.removed * 2 > len(self.keys):
            live = [(k, m) for k, m in zip(self.keys, self.msgs, strict=True) if m is not None]
            self.keys = [k for k, _ in live]
            self.msgs = [m for _, m in live]
            self.removed = 0

    def __iter__(self) -> Iterator[_Msg]:
        return (m for m in self.msgs if m is not None)

    def _scan(self, start: int, stop: int, now: int) -> _Msg | None:
        msgs = self.msgs
        for j in range(start, stop):
            m = msgs[j]
            if m is not None and m.locked is None and m.blocked_until <= now:
                return m
        return None

    def next_for(self, cursor: int | None, now: int) -> _Msg | None:
        """The first available message after ``cursor``, wrapping round to the head."""
        if cursor is None:
            return self._scan(0, len(self.msgs), now)
        i = bisect_right(self.keys, cursor)
        found = self._scan(i, len(self.msgs), now)
        if found is None:
            found = self._scan(0, i, now)
        return found

    def holds(self, msg: _Msg) -> bool:
        i = bisect_left(self.keys, msg.key)
        return i < len(self.keys) and self.keys[i] == msg.key and self.msgs[i] is msg


def _state(m: _Msg) -> MessageState:
    return MessageState(m.id, m.backout_count, None if m.locked is None else m.locked.label)


class _Endpoint:
    __slots__ = ("consumers", "counter", "name", "spec", "state")

    def __init__(self, spec: EndpointSpec) -> None:
        self.spec = spec
        self.name = spec.name
        self.state = "running"
        self.counter = 0
        self.consumers: list[_Consumer] = []


class _Consumer:
    __slots__ = ("busy", "cursor", "endpoint", "free", "queue", "role", "spec")

    def __init__(self, endpoint: _Endpoint, role: Role) -> None:
        self.endpoint = endpoint
        self.spec = endpoint.spec
        self.role = role
        self.queue = role.queue
        self.busy = [False] * role.sessions
        self.free = role.sessions
        self.cursor: int | None = None

    @property
    def running(self) -> bool:
        return self.role.kind == "sca_module" or self.endpoint.state == "running"

    def take_session(self) -> int:
        i = self.busy.index(False)
        self.busy[i] = True
        self.free -= 1
        return i + 1

    def release(self, session: int) -> None:
        self.busy[session - 1] = False
        self.free += 1


class _Delivery:
    __slots__ = ("cancelled", "consumer", "count", "msg", "rule", "seq", "session", "start",
                 "wait")

    def __init__(self, seq: int, consumer: _Consumer, session: int, msg: _Msg, start: int,
                 wait: int, rule: FailureRule | None) -> None:
        self.seq = seq
        self.consumer = consumer
        self.session = session
        self.msg = msg
        self.start = start
        self.wait = wait
        self.rule = rule
        self.count = msg.backout_count
        self.cancelled = False

    @property
    def label(self) -> str:
        return f"{self.consumer.endpoint.name}/{self.session}"


def unknown_plugin_rule(name: str, loaded: Iterable[str]) -> str:
    """The sentence for a ``plugin: NAME`` failure rule no loaded plugin offers."""
    names = sorted(loaded)
    known = (f"loaded: {', '.join(names)}" if names else
             "no plugin offering failure rules is loaded")
    return f"no failure-rule plugin named {name!r} is loaded ({known})"


class _Full(Exception):
    """The event log is full (limits.max_events)."""


Ticker = Callable[[int], None]
TICK_EVERY = 500  # events between two calls of a ticker


class Engine:
    """Run one scenario. ``record=True`` keeps a :class:`Timeline` for screens; ``ticker`` is
    called with the count of events every :data:`TICK_EVERY` of them (what it raises ends the
    run: that is how a screen stops one)."""

    def __init__(self, scenario: Scenario, *, plugins: Mapping[str, FailurePlugin] | None = None,
                 record: bool = False, ticker: Ticker | None = None) -> None:
        self.sc = scenario
        self.plugins = dict(plugins or {})
        self.record = record
        self.ticker = ticker
        self._check_plugins()
        qm = scenario.queue_manager
        self.zos = qm.platform == "zos"
        self.dlq_name = qm.dead_letter_queue.strip()
        self.system_exception = P.system_exception_destination(qm)
        self.blocked_default = qm.blocked_retry_interval_ms
        self.queues: dict[str, _Queue] = {q.name: _Queue(q) for q in scenario.queues}
        self.endpoints: dict[str, _Endpoint] = {}
        self.consumers: list[_Consumer] = []
        for spec in scenario.endpoints:
            ep = _Endpoint(spec)
            self.endpoints[spec.name] = ep
            for role in P.roles(spec):
                c = _Consumer(ep, role)
                ep.consumers.append(c)
                self.consumers.append(c)
        # queues the model needs always exist (replay-format.md)
        if any(c.role.sib_rules for c in self.consumers):
            self._ensure(self.system_exception)
        for c in self.consumers:
            if c.role.module_destination:
                self._ensure(c.role.module_destination)
            if c.role.generated_exception_destination:
                self._ensure(c.role.generated_exception_destination)
        self.grants: dict[tuple[str, str], frozenset[str]] | None = None
        self.key = 0
        for m in scenario.messages:
            self._put(_Msg(m.id, m.payload, m.persistent, m.backout_count), m.queue)
        self.t = 0
        self.events: list[dict[str, Any]] = []
        self.max_events = scenario.limits.max_events
        self.until = scenario.limits.until_ms
        self.completions: list[tuple[int, int, _Delivery]] = []
        self.active: dict[int, _Delivery] = {}
        self.dseq = 0
        self.wakes: list[int] = []
        self.actions = sorted(scenario.actions, key=lambda a: a.at_ms)  # stable: file order
        self.next_action = 0
        self.first_used: dict[tuple[int, str | None], int] = {}
        self.rule_messages = [None if r.messages is None else frozenset(r.messages)
                              for r in scenario.failures]
        self.rule_endpoints = [None if r.endpoints is None else frozenset(r.endpoints)
                               for r in scenario.failures]
        self.lost: list[dict[str, Any]] = []
        self.cut = False
        self.timeline: Timeline | None = None
        self._by_id: dict[str, _Msg] = {}  # recording: each message by its id ...
        self._at: dict[str, tuple[str, int]] = {}  # ... and its queue and place now
        if record:
            for q in self.queues.values():
                for held in q:
                    self._by_id[held.id] = held
                    self._at[held.id] = (q.name, held.key)
            self.timeline = Timeline(tuple(self.queues), self._keyed(),
                                     self._endpoint_states())

    # -- set-up helpers -------------------------------------------------------------------
    def _check_plugins(self) -> None:
        problems = [Problem(f"failures[{i}].plugin", unknown_plugin_rule(r.plugin, self.plugins),
                            r.line, self.sc.source)
                    for i, r in enumerate(self.sc.failures)
                    if r.plugin is not None and r.plugin not in self.plugins]
        if problems:
            raise ScenarioError(problems)

    def _ensure(self, name: str) -> None:
        if name not in self.queues:
            self.queues[name] = _Queue(QueueSpec(name=name, max_depth=999_999_999))

    def _put(self, msg: _Msg, queue: str) -> None:
        self.key += 1
        self.queues[queue].append(msg, self.key)

    def _move(self, msg: _Msg, to: str) -> None:
        """Take ``msg`` off its queue and put it to ``to``: it arrives with backout count 0."""
        self.queues[msg.queue].remove(msg)
        msg.backout_count = 0
        msg.last_failure = None
        self._put(msg, to)

    def _authorized(self, principal: str | None, queue: str, needed: frozenset[str]) -> bool:
        auth = self.sc.authorities
        if auth is None or principal is None:
            return True
        granted: set[str] = set()
        for rec in auth:
            if rec.principal == principal and _matches(rec.queue, queue):
                granted |= rec.grant
        return needed <= granted

    # -- the event log ----------------------------------------------------------------------
    def _emit(self, type_: str, **fields: Any) -> None:
        ev = {"seq": len(self.events) + 1, "t_ms": self.t, "type": type_, **fields}
        self.events.append(ev)
        if self.timeline is not None:
            changed: tuple[Change, ...]
            if type_ == "qmgr_restart":  # every count may change (§6)
                changed = tuple((name, m.key, _state(m))
                                for name, q in self.queues.items() for m in q)
            else:
                changed = self._changes(fields.get("message"))
            steps = self.timeline.steps
            endpoints = self._endpoint_states()
            if steps and steps[-1].endpoints == endpoints:
                endpoints = steps[-1].endpoints  # shared: most events change no endpoint
            steps.append(Step(len(self.events) - 1, ev, changed, endpoints))
        if self.ticker is not None and len(self.events) % TICK_EVERY == 0:
            self.ticker(len(self.events))

    def _changes(self, label: str | None) -> tuple[Change, ...]:
        """What an event did to the message it names: every change to a message is followed
        by an event naming it (a restart's are one event naming every message)."""
        msg = self._by_id.get(label) if label is not None else None
        if msg is None:
            return ()
        was = self._at.get(msg.id)
        q = self.queues.get(msg.queue)
        now = (msg.queue, msg.key) if q is not None and q.holds(msg) else None
        out: list[Change] = []
        if was is not None and was != now:
            out.append((*was, None))
        if now is None:
            self._at.pop(msg.id, None)
        else:
            self._at[msg.id] = now
            out.append((*now, _state(msg)))
        return tuple(out)

    def _room(self, need: int = 1) -> None:
        """Stop before a step that could take the log past ``max_events``."""
        if len(self.events) + need > self.max_events:
            raise _Full

    def _keyed(self) -> Keyed:
        return {name: {m.key: _state(m) for m in q} for name, q in self.queues.items()}

    def _endpoint_states(self) -> dict[str, EndpointState]:
        return {n: EndpointState(e.state, e.counter) for n, e in self.endpoints.items()}

    # -- running ------------------------------------------------------------------------------
    def run(self) -> ReplayResult:
        try:
            self._instant(0)
            while True:
                nxt = self._next_time()
                if nxt is None:
                    break
                if nxt > self.until:
                    self.cut = True
                    break
                self._instant(nxt)
        except _Full:
            self.cut = True
        return self._result()

    def _next_time(self) -> int | None:
        times = []
        if self.completions:
            times.append(self.completions[0][0])
        if self.next_action < len(self.actions):
            times.append(self.actions[self.next_action].at_ms)
        while self.wakes and self.wakes[0] <= self.t:
            heapq.heappop(self.wakes)
        if self.wakes:
            times.append(self.wakes[0])
        return min(times) if times else None

    def _instant(self, t: int) -> None:
        self.t = t
        while self.completions and self.completions[0][0] == t:
            _, _, d = self.completions[0]
            if not d.cancelled:
                self._room(3)  # at most: transaction_timeout, rollback, endpoint_stopped
            heapq.heappop(self.completions)
            if not d.cancelled:
                self._complete(d)
        while self.next_action < len(self.actions) and self.actions[self.next_action].at_ms == t:
            action = self.actions[self.next_action]
            self._room(len(self.active) + 1 if action.restart_queue_manager
                       else max(1, len(action.changes)))
            self.next_action += 1
            self._act(action)
        progress = True
        while progress:  # a move by one consumer can give an earlier one a message
            progress = False
            for c in self.consumers:
                while c.free and c.running:
                    msg = self.queues[c.queue].next_for(c.cursor, t)
                    if msg is None:
                        break
                    self._room()
                    progress = True
                    c.cursor = msg.key
                    if not self._detect(c, msg):
                        self._deliver(c, msg)

    # -- detection (§3 step 1, §7) ------------------------------------------------------------
    def _detect(self, c: _Consumer, msg: _Msg) -> bool:
        """Move the message off the queue before delivery if a rule says so; True if moved."""
        role = c.role
        if role.module_destination and P.moves_to_module_destination(
                role, msg.backout_count, msg.last_failure):
            queue, count = msg.queue, msg.backout_count
            self._move(msg, role.module_destination)
            self._emit("to_module_destination", message=msg.id, endpoint=c.endpoint.name,
                       queue=queue, backout_count=count, to=role.module_destination)
            return True
        q = self.queues[msg.queue]
        if P.requeue_at_detection(role, q.bothresh, msg.backout_count):
            return self._backout(c, msg, q)
        return False

    def _backout(self, c: _Consumer, msg: _Msg, q: _Queue) -> bool:
        """§5: to BOQNAME, else the dead-letter queue; False when neither can take it."""
        run_as = c.spec.run_as
        boq = q.boqname.strip()
        cause = None
        if boq:
            target = self.queues.get(boq)
            if target is None:
                cause = R.MQRC_UNKNOWN_OBJECT_NAME
            elif not self._authorized(run_as, boq, P.BOQ_AUTHORITIES):
                cause = R.MQRC_NOT_AUTHORIZED
            elif target.put_inhibited:
                cause = R.MQRC_PUT_INHIBITED
            elif target.depth >= target.max_depth:
                cause = R.MQRC_Q_FULL
            if cause is None:
                count = msg.backout_count
                self._move(msg, boq)
                self._emit("requeued", message=msg.id, endpoint=c.endpoint.name, queue=q.name,
                           backout_count=count, to=boq)
                return True
        dlq = self._usable_dlq(run_as)
        if dlq is None:
            return False  # delivered as if BOTHRESH were 0: the poison loop goes on
        count = msg.backout_count
        self._move(msg, dlq)
        fields: dict[str, Any] = dict(
            message=msg.id, endpoint=c.endpoint.name, queue=q.name, backout_count=count,
            to=dlq, reason_code=R.MQRC_BACKOUT_THRESHOLD_REACHED,
            reason=reason_name(R.MQRC_BACKOUT_THRESHOLD_REACHED))
        if cause is not None:
            fields.update(cause_code=cause, cause=reason_name(cause))
        self._emit("dead_lettered", **fields)
        return True

    def _usable_dlq(self, run_as: str | None) -> str | None:
        name = self.dlq_name
        if not name:
            return None
        q = self.queues.get(name)
        if q is None or q.put_inhibited or q.depth >= q.max_depth:
            return None
        if not self._authorized(run_as, name, P.DLQ_AUTHORITIES):
            return None
        return name

    # -- delivery -----------------------------------------------------------------------------
    def _deliver(self, c: _Consumer, msg: _Msg) -> None:
        session = c.take_session()
        rule = self._match(c, msg)
        wait = P.non_asf_wait(c.role, c.spec)
        self.dseq += 1
        d = _Delivery(self.dseq, c, session, msg, self.t, wait, rule)
        msg.locked = d
        self.active[d.seq] = d
        self._emit("deliver", message=msg.id, endpoint=c.endpoint.name, session=session,
                   queue=msg.queue, backout_count=msg.backout_count)
        heapq.heappush(self.completions, (self.t + wait + c.spec.processing_ms, d.seq, d))

    def _match(self, c: _Consumer, msg: _Msg) -> FailureRule | None:
        t = self.t
        for i, rule in enumerate(self.sc.failures):
            ids = self.rule_messages[i]
            if ids is not None and msg.id not in ids:
                continue
            names = self.rule_endpoints[i]
            if names is not None and c.endpoint.name not in names:
                continue
            if rule.between_ms is not None and not rule.between_ms[0] <= t < rule.between_ms[1]:
                continue
            if rule.kind == "export" and c.role.kind == "sca_module":
                continue
            counter_key = None
            if rule.first is not None:
                counter_key = (i, msg.id if rule.messages is not None else None)
                if self.first_used.get(counter_key, 0) >= rule.first:
                    continue
            if rule.plugin is not None and not self.plugins[rule.plugin]({
                    "message": msg.id, "payload": msg.payload, "queue": msg.queue,
                    "endpoint": c.endpoint.name, "t_ms": t,
                    "backout_count": msg.backout_count}):
                continue
            if counter_key is not None:
                self.first_used[counter_key] = self.first_used.get(counter_key, 0) + 1
            return rule
        return None

    def _complete(self, d: _Delivery) -> None:
        c, msg = d.consumer, d.msg
        del self.active[d.seq]
        c.release(d.session)
        msg.locked = None
        ep = c.endpoint
        rule = d.rule
        handled = rule is None or rule.then != "rollback"
        if rule is not None and rule.then == "move" and not self._can_move(c, rule.move_to):
            handled = False
        if handled:
            if P.transaction_times_out(c.role, c.spec, d.wait):
                self._emit("transaction_timeout", **self._who(d))
                self._rollback(d, failure=True, failure_kind="export")
                return
            q = self.queues[msg.queue]
            if rule is None:
                q.remove(msg)
                self._emit("success", message=msg.id, endpoint=ep.name, session=d.session,
                           queue=msg.queue, backout_count=d.count)
            elif rule.then == "discard":
                who = self._who(d)
                q.remove(msg)
                self._lose(msg, **who, backout_count=d.count)
            else:
                assert rule.move_to is not None  # the scenario's "then: move" names a queue
                who = self._who(d)
                self._move(msg, rule.move_to)
                self._emit("requeued", **who, backout_count=d.count, to=rule.move_to)
            if ep.counter:
                ep.counter = 0
                self._emit("counter_reset", endpoint=ep.name, message=msg.id,
                           session=d.session, rollback_counter=0)
            return
        assert rule is not None  # no rule is always handled (above)
        if c.spec.under_syncpoint:
            self._rollback(d, failure=True, failure_kind=rule.kind)
            return
        # §1: no syncpoint around the get: the message is gone; it still counts as a failure
        self.queues[msg.queue].remove(msg)
        self._lose(msg, **self._who(d), backout_count=d.count)
        self._failed(c, d.count + 1)

    @staticmethod
    def _who(d: _Delivery) -> dict[str, Any]:
        return {"message": d.msg.id, "endpoint": d.consumer.endpoint.name,
                "session": d.session, "queue": d.msg.queue}

    def _lose(self, msg: _Msg, **fields: Any) -> None:
        self.lost.append({"message": msg.id, "queue": fields["queue"], "t_ms": self.t})
        self._emit("lost", **fields)

    def _can_move(self, c: _Consumer, to: str | None) -> bool:
        q = self.queues.get(to or "")
        return (q is not None and not q.put_inhibited and q.depth < q.max_depth
                and self._authorized(c.spec.run_as, q.name, P.MOVE_AUTHORITIES))

    def _rollback(self, d: _Delivery, *, failure: bool, failure_kind: str | None) -> None:
        c, msg, ep = d.consumer, d.msg, d.consumer.endpoint
        msg.backout_count += 1
        if failure:
            msg.last_failure = failure_kind
            if P.counter_rises(c.role, c.spec):
                ep.counter += 1
        self._emit("rollback", message=msg.id, endpoint=ep.name, session=d.session,
                   queue=msg.queue, backout_count=msg.backout_count, rollback_counter=ep.counter)
        if not failure:
            return
        self._failed(c, msg.backout_count)
        if c.role.sib_rules:
            self._sib_threshold(d)

    def _failed(self, c: _Consumer, backout_count: int) -> None:
        ep = c.endpoint
        if not c.spec.under_syncpoint and P.counter_rises(c.role, c.spec):
            ep.counter += 1  # a lost message still counts (§1)
        if ep.state == "running" and P.stops_after_failure(c.role, c.spec, ep.counter,
                                                            backout_count):
            ep.state = "stopped"
            self._emit("endpoint_stopped", endpoint=ep.name, queue=c.queue,
                       rollback_counter=ep.counter)

    def _sib_threshold(self, d: _Delivery) -> None:
        """§2: redelivery count against max_failed_deliveries."""
        c, msg = d.consumer, d.msg
        q = self.queues[msg.queue]
        max_failed = P.sib_max_failed(c.role, q.max_failed_deliveries,
                                      "max_failed_deliveries" in q.given)
        if msg.backout_count < max_failed:
            return
        setting = P.sib_exception_setting(c.role, q.exception_destination,
                                          "exception_destination" in q.given)
        common = dict(message=msg.id, endpoint=c.endpoint.name, session=d.session,
                      queue=msg.queue, backout_count=msg.backout_count)
        if setting == "none":
            msg.blocked_until = self.t + P.blocked_retry_ms(q.blocked_retry_timeout_ms,
                                                            self.blocked_default)
            heapq.heappush(self.wakes, msg.blocked_until)
            self._emit("blocked_retry_wait", **common)
            return
        if setting == "system" or setting not in self.queues:
            dest = self.system_exception
            self._ensure(dest)
        else:
            dest = setting
        self._move(msg, dest)
        self._emit("to_exception_destination", **common, to=dest, destination=dest)

    # -- operator actions -----------------------------------------------------------------------
    def _act(self, action: Any) -> None:
        if action.restart_endpoint is not None:
            ep = self.endpoints[action.restart_endpoint]
            ep.state = "running"
            for c in ep.consumers:
                c.cursor = None  # a restart browses from the head
            self._emit("endpoint_started", endpoint=ep.name, queue=ep.spec.queue,
                       rollback_counter=ep.counter)
        elif action.restart_queue_manager:
            self._restart_qmgr()
        else:
            q = self.queues[action.set_queue]
            for attr, value in action.changes:
                old = getattr(q, attr)
                setattr(q, attr, value)
                q.given.add(attr)
                self._emit("attribute_changed", queue=q.name, attribute=attr, old=old,
                           new=value)

    def _restart_qmgr(self) -> None:
        for seq in sorted(self.active):
            d = self.active.pop(seq)
            d.cancelled = True
            c, msg = d.consumer, d.msg
            c.release(d.session)
            msg.locked = None
            if c.spec.under_syncpoint:
                self._rollback(d, failure=False, failure_kind=None)
            else:
                self.queues[msg.queue].remove(msg)
                self._lose(msg, message=msg.id, endpoint=c.endpoint.name, session=d.session,
                           queue=msg.queue, backout_count=d.count)
        if self.zos:  # §6: without HARDENBO the count lived only in memory
            for q in self.queues.values():
                if not q.hardenbo:
                    for m in q:
                        m.backout_count = 0
        for c in self.consumers:
            c.cursor = None
        self._emit("qmgr_restart")

    # -- the result -------------------------------------------------------------------------------
    def _result(self) -> ReplayResult:
        counts = dict.fromkeys(("deliver", "success", "rollback", "requeued", "dead_lettered",
                                "to_exception_destination", "lost", "endpoint_stopped"), 0)
        for ev in self.events:
            if ev["type"] in counts:
                counts[ev["type"]] += 1
        if self.cut:
            stopped_by = "limits"
        elif self.endpoints and all(e.state == "stopped" for e in self.endpoints.values()):
            stopped_by = "all_endpoints_stopped"
        else:
            stopped_by = "idle"
        summary = {
            "deliveries": counts["deliver"], "successes": counts["success"],
            "rollbacks": counts["rollback"], "requeued": counts["requeued"],
            "dead_lettered": counts["dead_lettered"],
            "to_exception_destination": counts["to_exception_destination"],
            "lost": counts["lost"], "endpoint_stops": counts["endpoint_stopped"],
            "stopped_by": stopped_by,
        }
        final = {
            "queues": {name: [{"message": m.id, "backout_count": m.backout_count} for m in q]
                       for name, q in self.queues.items()},
            "endpoints": {n: {"state": e.state, "rollback_counter": e.counter}
                          for n, e in self.endpoints.items()},
            "lost": list(self.lost),
        }
        if self.cut:  # deliveries the limits left unfinished
            final["in_flight"] = [
                {"message": d.msg.id, "endpoint": d.consumer.endpoint.name,
                 "session": d.session, "queue": d.msg.queue, "backout_count": d.count}
                for _, d in sorted(self.active.items())]
        if self.timeline is not None:
            self.timeline.queue_names = tuple(self.queues)
        return ReplayResult(self.events, final, summary, self.timeline)


def _matches(profile: str, name: str) -> bool:
    if "*" not in profile:
        return profile == name
    import fnmatch

    return fnmatch.fnmatchcase(name, profile.replace("?", "[?]"))


def replay(scenario: Scenario, *, plugins: Mapping[str, FailurePlugin] | None = None,
           record: bool = False, ticker: Ticker | None = None) -> ReplayResult:
    """Run ``scenario`` through the delivery model."""
    return Engine(scenario, plugins=plugins, record=record, ticker=ticker).run()
