"""The doctor: per queue, what a poison message would do there, and the change that fixes it.

For every judged queue the doctor reads the queue's real attributes (and those of its backout
queue and the dead-letter queue), runs the delivery model with one poison message at the head
of the queue, and turns what happened into a verdict (``ok`` / ``warn`` / ``bad``), one
sentence, and the fixing commands (``mqconsole queue ...`` and MQSC)::

    report = diagnose(qm)                      # or diagnose(qm, load_endpoints(path))
    for d in report.diagnoses:
        d.queue, d.verdict, d.finding, d.fixes
    report.to_json()                           # `mqconsole doctor --json`

Without endpoints, every application queue is judged (not the dead-letter queue, not a
queue some BOQNAME names, not ``SYSTEM.*``, not transmission queues) as if read by an
activation specification that does not stop on failure, so the verdict is about the queue's
own settings. With endpoints, the queues they read are judged with those endpoints. Only
inquiries are made: the doctor changes nothing.
"""

from __future__ import annotations

import shlex
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from mqconsole.backends.base import QueueManager
from mqconsole.model import (
    ActionSpec,
    EndpointsFile,
    EndpointSpec,
    FailureRule,
    Limits,
    MessageSpec,
    QueueManagerSpec,
    ReplayResult,
    Scenario,
    replay,
)
from mqconsole.model import providers as P
from mqconsole.mq import reasons as R
from mqconsole.mq.names import reason_name
from mqconsole.mq.queue import QueueAttrs, QueueType, Usage
from mqconsole.mq.reasons import MQRC_UNKNOWN_OBJECT_NAME
from mqconsole.ops.queues import backout_queue_map
from mqconsole.ops.replay import modelled_queue, platform_of, related_queues

VERDICTS = ("ok", "warn", "bad")
POISON = "poison"
# Messages modelled behind the poison one. None: the worst case, where no success between
# its failures resets an activation specification's rollback counter (the finding still
# counts the queue's real depth).
GOOD_MESSAGES = 0
RESTARTS = 5  # operator restarts the model tries when an endpoint stops
RESTART_EVERY_MS = 1000
SUGGESTED_BOTHRESH = 3
DEFAULT_ENDPOINT = "the model activation specification"

_CAUSE_TEXT = {
    R.MQRC_UNKNOWN_OBJECT_NAME: "does not exist",
    R.MQRC_NOT_AUTHORIZED: "refuses the consumer's user (not authorized)",
    R.MQRC_PUT_INHIBITED: "is put-inhibited",
    R.MQRC_Q_FULL: "is full",
}


@dataclass
class Problem:
    code: str  # bothresh_zero, boqname_blank, boq_missing, boq_put_inhibited, boq_full,
    # boq_not_authorized, boq_shared, suspend_not_above_bothresh, retries_below_bothresh,
    # hardenbo_off, non_asf_timeout, no_syncpoint, queue_missing, poison_loop
    severity: str  # warn | bad
    text: str


@dataclass
class Diagnosis:
    queue: str
    verdict: str
    finding: str
    fixes: list[str]  # the mqconsole lines, then the MQSC lines
    commands: list[str] = field(default_factory=list)
    mqsc: list[str] = field(default_factory=list)
    advice: list[str] = field(default_factory=list)  # changes outside the queue manager
    problems: list[Problem] = field(default_factory=list)
    endpoints: list[str] = field(default_factory=list)
    depth: int = 0
    bothresh: int = 0
    boqname: str = ""
    hardenbo: bool = False
    model: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class DoctorReport:
    qmgr: str
    platform: str
    dead_letter_queue: str
    diagnoses: list[Diagnosis]
    with_endpoints: bool = False

    def to_json(self) -> list[dict[str, Any]]:
        return [d.to_dict() for d in self.diagnoses]

    def all_commands(self) -> list[str]:
        """Every ``mqconsole`` fix line once, in report order (defines first)."""
        lines = list(dict.fromkeys(c for d in self.diagnoses for c in d.commands))
        return sorted(lines, key=lambda c: 0 if " define " in c else 1)

    def counts(self) -> dict[str, int]:
        return {v: sum(1 for d in self.diagnoses if d.verdict == v) for v in VERDICTS}


def _worse(a: str, b: str) -> str:
    return a if VERDICTS.index(a) >= VERDICTS.index(b) else b


def is_application_queue(q: QueueAttrs, dlq: str, boq_names: set[str]) -> bool:
    return (q.type == QueueType.LOCAL and q.usage == Usage.NORMAL and q.name != dlq
            and q.name not in boq_names and not q.name.startswith("SYSTEM."))


def default_endpoint(queue: str) -> EndpointSpec:
    return EndpointSpec(name=DEFAULT_ENDPOINT, queue=queue, provider="mq_activation_spec",
                        stop_endpoint_on_failure=False)


def diagnose(qm: QueueManager, endpoints: EndpointsFile | None = None) -> DoctorReport:
    """Judge every application queue (or the queues ``endpoints`` read)."""
    info = qm.inquire_qmgr()
    dlq = info.dead_letter_queue.strip()
    queues = qm.list_queues("*")
    by_name = {q.name: q for q in queues}
    boq_map = backout_queue_map(queues)
    platform = platform_of(info.platform)
    ctx = _Context(qm, info.name, platform, dlq, by_name, boq_map, endpoints)
    out: list[Diagnosis] = []
    if endpoints is None:
        boq_names = set(boq_map)
        for q in sorted(queues, key=lambda q: q.name):
            if is_application_queue(q, dlq, boq_names):
                out.append(ctx.judge(q, [default_endpoint(q.name)], assumed=True))
    else:
        readers: dict[str, list[EndpointSpec]] = {}
        for ep in endpoints.endpoints:
            readers.setdefault(ep.queue, []).append(ep)
        for name in sorted(readers):
            found = by_name.get(name)
            if found is None or found.type != QueueType.LOCAL:
                names = ", ".join(e.name for e in readers[name])
                what = "does not exist" if found is None else f"is a {found.type.value} queue"
                out.append(Diagnosis(name, "bad", f"{names} read {name}, which {what} on "
                                     f"{info.name}", [], endpoints=[e.name for e in
                                                                   readers[name]],
                                     problems=[Problem("queue_missing", "bad",
                                                       f"{name} {what}")]))
                continue
            out.append(ctx.judge(found, readers[name], assumed=False))
    return DoctorReport(info.name, platform, dlq, out, endpoints is not None)


@dataclass
class _Context:
    qm: QueueManager
    qmgr: str
    platform: str
    dlq: str
    by_name: dict[str, QueueAttrs]
    boq_map: dict[str, list[str]]
    endpoints_file: EndpointsFile | None

    # -- the model run ---------------------------------------------------------------------
    def simulate(self, q: QueueAttrs, eps: list[EndpointSpec]) -> ReplayResult:
        good = min(q.depth or 0, GOOD_MESSAGES)
        messages = [MessageSpec(id=POISON, queue=q.name)]
        messages += [MessageSpec(id=f"m{i + 1}", queue=q.name) for i in range(good)]
        main = modelled_queue(q, with_messages=True)
        main = replace(main, max_depth=max(q.max_depth, len(messages)))
        others = related_queues(self.qm, q, self.dlq, eps)
        actions = []
        if any(P.roles(e)[0].stops for e in eps):
            actions = [ActionSpec(at_ms=RESTART_EVERY_MS * (i + 1), restart_endpoint=e.name)
                       for i in range(RESTARTS) for e in eps if P.roles(e)[0].stops]
        auth = self.endpoints_file.authorities if self.endpoints_file else None
        scenario = Scenario(
            queue_manager=QueueManagerSpec(name=self.qmgr, platform=self.platform,
                                           dead_letter_queue=self.dlq),
            queues=(main, *others), authorities=auth, messages=tuple(messages),
            endpoints=tuple(eps), failures=(FailureRule(messages=(POISON,)),),
            actions=tuple(actions), limits=Limits(max_events=3000, until_ms=60_000),
            source=f"doctor: {q.name}")
        return replay(scenario)

    # -- judging ---------------------------------------------------------------------------
    def judge(self, q: QueueAttrs, eps: list[EndpointSpec], *, assumed: bool) -> Diagnosis:
        result = self.simulate(q, eps)
        depth = q.depth or 0
        names = [e.name for e in eps]
        who = " and ".join(names) if not assumed else "its consumer"
        verdict, finding, model = self.outcome(q, eps, result, who, depth)
        problems = self.problems(q, eps, result)
        for p in problems:
            verdict = _worse(verdict, p.severity)
        extra = [p.text for p in problems if p.code in (
            "boq_shared", "hardenbo_off", "non_asf_timeout")
            or (p.severity == "bad" and verdict != "bad")]
        if extra:
            finding += "; " + "; ".join(extra)
        d = Diagnosis(q.name, verdict, finding, [], endpoints=[] if assumed else names,
                      problems=problems, depth=depth, bothresh=q.bothresh,
                      boqname=q.boqname.strip(), hardenbo=q.hardenbo, model=model)
        if verdict != "ok":
            self.fixes(d, q, eps, problems)
        d.fixes = d.commands + d.mqsc
        return d

    def outcome(self, q: QueueAttrs, eps: list[EndpointSpec], r: ReplayResult, who: str,
                depth: int) -> tuple[str, str, dict[str, Any]]:
        where = r.where_is(POISON)
        tries = sum(1 for e in r.events if e["type"] == "deliver" and e["message"] == POISON)
        stops = r.summary["endpoint_stops"]
        moved = next((e for e in r.events if e.get("message") == POISON and e["type"] in (
            "requeued", "dead_lettered", "to_exception_destination", "to_module_destination",
            "lost")), None)
        model = {"poison_ends_on": where, "poison_deliveries": tries, "endpoint_stops": stops,
                 "how": moved["type"] if moved else None, "stopped_by": r.stopped_by,
                 "events": len(r.events)}
        behind = (f"the {depth:,} message{'s' if depth != 1 else ''} behind it" if depth
                  else "every message that arrives behind it")
        flow = f"the {depth:,} message{'s' if depth != 1 else ''} behind it" if depth else \
            "the messages behind it"
        failures = f"{tries} failed deliver{'ies' if tries != 1 else 'y'}"
        if where == "lost":
            return "bad", (f"a message that fails is lost: {who} gets it with no syncpoint, "
                           "so a failure deletes it"), model
        if where == q.name:
            stopped = [n for n, e in r.final["endpoints"].items() if e["state"] == "stopped"]
            if stopped:
                return "bad", (f"stops {' and '.join(stopped)} at every restart and blocks "
                               f"{behind}"), model
            if any(e["type"] == "blocked_retry_wait" for e in r.events):
                return "warn", (f"a poison message stays on {q.name}, retried after each "
                                f"blocked retry timeout; {flow} flow"), model
            reason = " (BOTHRESH is 0)" if q.bothresh == 0 else \
                " (its backout queue and the dead-letter queue cannot take it)"
            return "bad", (f"a poison message is never moved off {q.name}{reason}: it is "
                           "redelivered without end, and an endpoint that stops on failure "
                           f"would stop at every restart and block {behind}"), model
        assert moved is not None
        verdict = "ok"
        if moved["type"] == "dead_lettered":
            verdict = "warn"
            if "cause_code" in moved:
                why = (f"because its backout queue {q.boqname.strip()} "
                       f"{_CAUSE_TEXT.get(moved['cause_code'], moved['cause'])}")
            else:
                why = "because BOQNAME is blank"
            text = (f"the poison message goes to the dead-letter queue {moved['to']} after "
                    f"{failures}, {why}")
        elif moved["type"] == "requeued":
            text = (f"the poison message moves to its backout queue {moved['to']} after "
                    f"{failures}")
        elif moved["type"] == "to_module_destination":
            text = (f"the poison message moves to the module destination {moved['to']} and "
                    f"ends on {where} for the failed event manager")
        else:
            text = (f"the poison message moves to the exception destination {moved['to']} "
                    f"after {failures}")
        if stops:
            times = "once" if stops == 1 else f"{stops} times"
            return "bad", (f"stops {who} {times} (each stop needs a restart, and meanwhile "
                           f"blocks {behind}) before {text}"), model
        text = "a" + text[3:]
        if moved["type"] == "requeued":
            text += f"; {flow} flow"
        return verdict, text, model

    def problems(self, q: QueueAttrs, eps: list[EndpointSpec], r: ReplayResult
                 ) -> list[Problem]:
        out: list[Problem] = []
        mq_eps = [e for e in eps if e.provider != "sib" and not (
            e.provider == "sca_export" and e.binding == "jms")]
        boq = q.boqname.strip()
        if mq_eps and q.bothresh == 0:
            out.append(Problem("bothresh_zero", "bad",
                               "BOTHRESH is 0 on a queue with consumers: a poison message is "
                               "never backed out"))
        if mq_eps and q.bothresh > 0:
            if not boq:
                out.append(Problem("boqname_blank", "warn",
                                   "BOQNAME is blank: poison messages go to the dead-letter "
                                   "queue"))
            else:
                target = self.by_name.get(boq)
                if target is None or target.type != QueueType.LOCAL:
                    out.append(Problem("boq_missing", "warn",
                                       f"BOQNAME names {boq}, which does not exist "
                                       f"({reason_name(MQRC_UNKNOWN_OBJECT_NAME)})"))
                else:
                    if target.put_inhibited:
                        out.append(Problem("boq_put_inhibited", "warn",
                                           f"the backout queue {boq} is put-inhibited"))
                    if (target.depth or 0) >= target.max_depth:
                        out.append(Problem("boq_full", "warn",
                                           f"the backout queue {boq} is full "
                                           f"({target.depth}/{target.max_depth})"))
                    for e in mq_eps:
                        if not self.authorized(e.run_as, boq, P.BOQ_AUTHORITIES):
                            out.append(Problem("boq_not_authorized", "warn",
                                               f"{e.run_as} (the user of {e.name}) lacks get, "
                                               f"inq, passall, put or setall on {boq}"))
                            break
        if boq:
            sharers = sorted(n for n in self.boq_map.get(boq, []) if n != q.name)
            if sharers:
                out.append(Problem("boq_shared", "warn",
                                   f"{boq} is also the backout queue of {', '.join(sharers)}: "
                                   "where its messages came from is ambiguous"))
        for e in mq_eps:
            if e.provider == "mq_activation_spec" and e.stop_endpoint_on_failure and \
                    q.bothresh > 0 and e.sequential_failures_before_suspend <= q.bothresh:
                out.append(Problem("suspend_not_above_bothresh", "bad",
                                   f"{e.name} stops on failure and its "
                                   f"sequential_failures_before_suspend "
                                   f"({e.sequential_failures_before_suspend}) is not above "
                                   f"BOTHRESH ({q.bothresh}): it stops before the message is "
                                   "backed out"))
            if e.provider in ("mq_listener_port", "sca_export") and q.bothresh > e.max_retries:
                out.append(Problem("retries_below_bothresh", "bad",
                                   f"{e.name} stops when a message's backout count passes "
                                   f"max_retries ({e.max_retries}), before BOTHRESH "
                                   f"({q.bothresh}) moves it"))
            if e.non_asf and e.total_transaction_lifetime_timeout_s > 0 and \
                    e.non_asf_receive_timeout_ms + e.processing_ms >= \
                    e.total_transaction_lifetime_timeout_s * 1000:
                out.append(Problem("non_asf_timeout", "warn",
                                   f"{e.name}'s non-ASF receive timeout "
                                   f"({e.non_asf_receive_timeout_ms} ms) is too close to the "
                                   f"transaction lifetime "
                                   f"({e.total_transaction_lifetime_timeout_s} s): a slow "
                                   "message rolls back even when it succeeds"))
        for e in eps:
            if not e.under_syncpoint:
                out.append(Problem("no_syncpoint", "bad",
                                   f"{e.name} ({e.transaction}) gets messages with no "
                                   "syncpoint: a failure loses the message"))
        if self.platform == "zos" and not q.hardenbo and mq_eps:
            out.append(Problem("hardenbo_off", "warn",
                               "HARDENBO is off on z/OS: a queue manager restart resets "
                               "backout counts, so a poison message can be delivered more "
                               "times than BOTHRESH allows"))
        return out

    def authorized(self, principal: str | None, queue: str, needed: frozenset[str]) -> bool:
        auth = self.endpoints_file.authorities if self.endpoints_file else None
        if auth is None or principal is None:
            return True
        import fnmatch

        granted: set[str] = set()
        for rec in auth:
            if rec.principal == principal and (rec.queue == queue or (
                    "*" in rec.queue and fnmatch.fnmatchcase(queue, rec.queue))):
                granted |= rec.grant
        return needed <= granted

    # -- fixes -----------------------------------------------------------------------------
    def fixes(self, d: Diagnosis, q: QueueAttrs, eps: list[EndpointSpec],
              problems: list[Problem]) -> None:
        codes = {p.code for p in problems}
        mq_eps = [e for e in eps if e.provider != "sib" and not (
            e.provider == "sca_export" and e.binding == "jms")]
        changes: dict[str, Any] = {}
        boq = q.boqname.strip()
        sharers = sorted(self.boq_map.get(boq, [])) if boq else []
        keeper = bool(sharers) and sharers[0] == q.name
        new_boq = None
        if mq_eps:
            if not boq or (len(sharers) > 1 and not keeper):
                new_boq = _boq_name_for(q.name)
                if new_boq not in self.by_name:
                    _define(d, new_boq, q.name)
                changes["boqname"] = new_boq
            elif "boq_missing" in codes and boq not in self.by_name:
                _define(d, boq, q.name)
            target = new_boq or boq
            if keeper and len(sharers) > 1:
                for other in sharers[1:]:
                    d.commands.append(f"mqconsole queue set {other} --boqname "
                                      f"{_boq_name_for(other)}")
                    d.mqsc.append(f"ALTER QLOCAL({_mqsc(other)}) "
                                  f"BOQNAME({_mqsc_str(_boq_name_for(other))})")
            existing = self.by_name.get(target)
            if new_boq is None and existing is not None:
                if existing.put_inhibited:
                    d.commands.append(f"mqconsole queue set {target} --put-enabled")
                    d.mqsc.append(f"ALTER QLOCAL({_mqsc(target)}) PUT(ENABLED)")
                if (existing.depth or 0) >= existing.max_depth:
                    bigger = max(existing.max_depth * 2, (existing.depth or 0) + 5000)
                    d.commands.append(f"mqconsole queue set {target} --max-depth {bigger}")
                    d.mqsc.append(f"ALTER QLOCAL({_mqsc(target)}) MAXDEPTH({bigger})")
            if "boq_not_authorized" in codes:
                for e in mq_eps:
                    if e.run_as and not self.authorized(e.run_as, target, P.BOQ_AUTHORITIES):
                        d.advice.append(f"setmqaut -m {self.qmgr} -n {target} -t queue -p "
                                        f"{e.run_as} +get +inq +passall +put +setall")
                        d.mqsc.append(f"SET AUTHREC PROFILE({_mqsc(target)}) OBJTYPE(QUEUE) "
                                      f"PRINCIPAL('{e.run_as}') "
                                      "AUTHADD(GET,INQ,PASSALL,PUT,SETALL)")
            bothresh = self.bothresh_for(q, mq_eps, d)
            if bothresh is not None and bothresh != q.bothresh:
                changes["bothresh"] = bothresh
        if "hardenbo_off" in codes:
            changes["hardenbo"] = True
        for e in eps:
            if not e.under_syncpoint:
                d.advice.append(f"{e.name}: use transaction: required (or syncpoint: true) so "
                                "a failure rolls the message back instead of losing it")
            if e.non_asf and "non_asf_timeout" in codes:
                safe = max(0, e.total_transaction_lifetime_timeout_s * 1000 - e.processing_ms
                           - 1000)
                d.advice.append(f"{e.name}: lower non_asf_receive_timeout_ms below {safe} or "
                                "raise total_transaction_lifetime_timeout_s")
        if changes:
            opts = []
            mqsc = []
            if "bothresh" in changes:
                opts.append(f"--bothresh {changes['bothresh']}")
                mqsc.append(f"BOTHRESH({changes['bothresh']})")
            if "boqname" in changes:
                opts.append(f"--boqname {shlex.quote(changes['boqname'])}")
                mqsc.append(f"BOQNAME({_mqsc_str(changes['boqname'])})")
            if changes.get("hardenbo"):
                opts.append("--hardenbo")
                mqsc.append("HARDENBO")
            d.commands.append(f"mqconsole queue set {shlex.quote(q.name)} {' '.join(opts)}")
            d.mqsc.append(f"ALTER QLOCAL({_mqsc(q.name)}) {' '.join(mqsc)}")
        # defines first, so the lines run in order
        d.commands.sort(key=lambda c: 0 if " define " in c else 1)
        d.mqsc.sort(key=lambda c: 0 if c.startswith("DEFINE") else 1)

    def bothresh_for(self, q: QueueAttrs, eps: list[EndpointSpec], d: Diagnosis) -> int | None:
        """A BOTHRESH that backs a poison message out before any endpoint stops."""
        limit = None  # the highest BOTHRESH the endpoints allow
        for e in eps:
            if e.provider == "mq_activation_spec" and e.stop_endpoint_on_failure:
                n = e.sequential_failures_before_suspend
                if n < 2:
                    d.advice.append(
                        f"{e.name}: set sequential_failures_before_suspend above BOTHRESH "
                        f"(e.g. {SUGGESTED_BOTHRESH + 1}) or stop_endpoint_on_failure: false; "
                        f"with {n} it stops at the first failure")
                    continue
                limit = n - 1 if limit is None else min(limit, n - 1)
            elif e.provider in ("mq_listener_port", "sca_export"):
                if e.max_retries < 1:
                    d.advice.append(f"{e.name}: raise max_retries to {SUGGESTED_BOTHRESH} (with "
                                    "0 the listener port stops at the first failure)")
                    continue
                limit = e.max_retries if limit is None else min(limit, e.max_retries)
        if q.bothresh > 0 and (limit is None or q.bothresh <= limit):
            return q.bothresh
        return SUGGESTED_BOTHRESH if limit is None else min(SUGGESTED_BOTHRESH, limit)


def _boq_name_for(queue: str) -> str:
    suffix = ".BOQ"
    return (queue[: 48 - len(suffix)] + suffix) if len(queue) + len(suffix) > 48 else \
        queue + suffix


def _define(d: Diagnosis, name: str, for_queue: str) -> None:
    descr = f"Backout queue of {for_queue}"[:64]
    line = f"mqconsole queue define {shlex.quote(name)} --description {shlex.quote(descr)}"
    if line not in d.commands:
        d.commands.append(line)
        d.mqsc.append(f"DEFINE QLOCAL({_mqsc(name)}) DESCR({_mqsc_str(descr)})")


def _mqsc(name: str) -> str:
    """An object name as MQSC wants it (quoted when it has lower case letters)."""
    return name if name.upper() == name else _mqsc_str(name)


def _mqsc_str(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"
