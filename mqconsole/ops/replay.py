"""Replay: run the delivery model on a scenario file, or on a live queue (read only).

For screens and commands alike::

    from mqconsole.ops import replay as rp
    result = rp.run_file("scenario.yaml", timeline=True)      # ReplayResult
    result.to_json()                                          # replay-format.md
    result.timeline.queues_at(i)                              # queue contents after event i
    rp.event_text(result.events[i])                           # one line for a human

    run = rp.replay_queue(qm, "APP.ORDERS", rp.load_endpoints("endpoints.yaml"),
                          ["position=1"], timeline=True)      # QueueReplay
    run.result, run.scenario, run.labels, run.truncated, run.notes()

``replay_queue`` is the one path of ``mqconsole replay --queue`` and of the console's replay
screen: ``progress(what, done, total)`` hears how far it is ("read" messages, then
"replayed" events) and setting ``stop`` (a :class:`threading.Event`) ends it with
:class:`ReplayStopped`.

``replay_queue`` only inquires and browses: nothing changes on the queue manager. The
queue's own messages and attributes are modelled as they are; the backout queue, the
dead-letter queue and other queues it may send messages to are modelled empty, with the room
they have left as their maximum depth.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from mqconsole.backends.base import QueueManager
from mqconsole.model import (
    AuthoritySpec,
    EndpointsFile,
    EndpointSpec,
    FailurePlugin,
    FailureRule,
    Limits,
    MessageSpec,
    QueueManagerSpec,
    QueueSpec,
    ReplayResult,
    Scenario,
    ScenarioError,
    load_endpoints,
    load_scenario,
    parse_endpoints,
    replay,
    unknown_plugin_rule,
)
from mqconsole.model.checks import KINDS
from mqconsole.mq.errors import MQError
from mqconsole.mq.queue import QueueAttrs, QueueType, Usage, is_valid_name
from mqconsole.mq.reasons import MQPER_PERSISTENCE_AS_Q_DEF, MQPER_PERSISTENT
from mqconsole.ops.words import counted

__all__ = [
    "FailSpecError", "QueueReplay", "ReplaySetupError", "ReplayStopped", "ScenarioError",
    "event_text", "limits_of", "load_endpoints", "load_scenario", "parse_endpoints",
    "parse_fail", "replay_queue", "run_file", "run_scenario", "scenario_from_queue",
    "short_name", "summary_text",
]

DEFAULT_MAX_MESSAGES = 10_000
MSGID_LENGTH = 24


class FailSpecError(ValueError):
    """A ``--fail`` short form that cannot be read (the message says which part)."""


class ReplaySetupError(ValueError):
    """A live-queue replay that cannot be built (not a local queue, no endpoint, ...)."""


class ReplayStopped(Exception):
    """The operator stopped the replay before it ended (nothing had changed anyway)."""


Progress = Callable[[str, int, "int | None"], None]  # (read | replayed, done, total)


def limits_of(max_events: int | None = None, until_ms: int | None = None) -> Limits:
    """The limits of a live-queue replay: the scenario format's defaults unless given."""
    default = Limits()
    return Limits(max_events=max_events or default.max_events,
                  until_ms=default.until_ms if until_ms is None else until_ms)


def run_scenario(scenario: Scenario, *, timeline: bool = False,
                 plugins: Mapping[str, FailurePlugin] | None = None,
                 progress: Progress | None = None,
                 stop: threading.Event | None = None) -> ReplayResult:
    ticker = None
    if progress is not None or stop is not None:
        total = scenario.limits.max_events

        def ticker(events: int) -> None:
            if stop is not None and stop.is_set():
                raise ReplayStopped(f"replay stopped after {events:,} events")
            if progress is not None:
                progress("replayed", events, total)

    return replay(scenario, plugins=plugins, record=timeline, ticker=ticker)


def run_file(path: str | os.PathLike[str], *, timeline: bool = False,
             plugins: Mapping[str, FailurePlugin] | None = None) -> ReplayResult:
    """Load, validate and replay a scenario file (ScenarioError names field and line)."""
    return run_scenario(load_scenario(path), timeline=timeline, plugins=plugins)


# ------------------------------------------------------------------------------------------
# --fail short forms
# ------------------------------------------------------------------------------------------

FAIL_HELP = ("msgid=HEX, position=N (1 = head of the queue), first=K, between=FROM:TO (ms), "
             "endpoint=NAME, plugin=NAME, kind=component|export, "
             "then=rollback|discard|move:QUEUE; join several with commas for one rule")


def normalise_msgid(text: str) -> str:
    raw = text.strip().replace(" ", "")
    try:
        data = bytes.fromhex(raw)
    except ValueError:
        raise FailSpecError(f"msgid {text!r} is not hexadecimal") from None
    if len(data) > MSGID_LENGTH:
        raise FailSpecError(f"msgid {text!r} is longer than {MSGID_LENGTH} bytes")
    return data.ljust(MSGID_LENGTH, b"\x00").hex().upper()


def parse_fail(text: str, *, labels: Sequence[str] = (),
               msgid_labels: Mapping[str, list[str]] | None = None,
               plugins: Collection[str] | None = None) -> FailureRule:
    """One failure rule from its short form (``msgid=HEX``, ``first=2``, ``between=1000:5000``,
    ``plugin=NAME``).

    ``labels`` are the scenario's message labels in queue order (for ``position=N``);
    ``msgid_labels`` maps a normalised MsgId to the labels of the messages carrying it;
    ``plugins`` the names of the failure rules plugins offer (None: not checked here).
    """
    parts = [p.strip() for p in text.split(",") if p.strip()]
    if not parts:
        raise FailSpecError(f"--fail needs a rule ({FAIL_HELP})")
    messages: list[str] = []
    fields: dict[str, Any] = {}
    for part in parts:
        key, sep, value = part.partition("=")
        key, value = key.strip().lower(), value.strip()
        if not sep or not value:
            raise FailSpecError(f"--fail {text!r}: {part!r} is not KEY=VALUE ({FAIL_HELP})")
        if key == "msgid":
            hex_id = normalise_msgid(value)
            found = (msgid_labels or {}).get(hex_id)
            if not found:
                raise FailSpecError(f"--fail {text!r}: no message with MsgId {hex_id} was "
                                    "read from the queue")
            messages.extend(found)
        elif key in ("position", "message"):
            if key == "message":
                if value not in labels:
                    raise FailSpecError(f"--fail {text!r}: no message labelled {value!r}")
                messages.append(value)
                continue
            n = _int(value, text, "position", 1)
            if n > len(labels):
                raise FailSpecError(f"--fail {text!r}: the queue has only "
                                    f"{counted(len(labels))} in the replay, not {n}")
            messages.append(labels[n - 1])
        elif key == "first":
            fields["first"] = _int(value, text, "first", 1)
        elif key == "between":
            lo, sep2, hi = value.partition(":")
            if not sep2:
                raise FailSpecError(f"--fail {text!r}: between takes FROM:TO in milliseconds")
            a, b = _int(lo, text, "between", 0), _int(hi, text, "between", 0)
            if a > b:
                raise FailSpecError(f"--fail {text!r}: the window ends before it starts")
            fields["between_ms"] = (a, b)
        elif key == "endpoint":
            fields["endpoints"] = (*fields.get("endpoints", ()), value)
        elif key == "plugin":
            if plugins is not None and value not in plugins:
                raise FailSpecError(f"--fail {text!r}: {unknown_plugin_rule(value, plugins)}")
            fields["plugin"] = value
        elif key == "kind":
            if value not in KINDS:
                raise FailSpecError(f"--fail {text!r}: kind is component or export")
            fields["kind"] = value
        elif key == "then":
            if value in ("rollback", "discard"):
                fields["then"] = value
            elif value.startswith("move:") and is_valid_name(value[5:].strip()):
                fields["then"], fields["move_to"] = "move", value[5:].strip()
            else:
                raise FailSpecError(f"--fail {text!r}: then is rollback, discard or "
                                    "move:QUEUE")
        else:
            raise FailSpecError(f"--fail {text!r}: unknown key {key!r} ({FAIL_HELP})")
    if messages:
        fields["messages"] = tuple(dict.fromkeys(messages))
    if not any(k in fields for k in ("messages", "first", "between_ms", "endpoints",
                                     "plugin")):
        raise FailSpecError(f"--fail {text!r} selects no delivery: give msgid, position, "
                            "first, between, endpoint or plugin")
    return FailureRule(**fields)


def _int(value: str, text: str, what: str, lo: int) -> int:
    try:
        n = int(value)
    except ValueError:
        raise FailSpecError(f"--fail {text!r}: {what} takes a whole number, not "
                            f"{value!r}") from None
    if n < lo:
        raise FailSpecError(f"--fail {text!r}: {what} must be {lo} or more")
    return n


# ------------------------------------------------------------------------------------------
# A scenario from a live queue
# ------------------------------------------------------------------------------------------


@dataclass
class QueueScenario:
    scenario: Scenario
    labels: list[str]  # message labels in queue order (MsgIds in hex, #2.. for repeats)
    msgid_labels: dict[str, list[str]]
    truncated: bool  # the queue held more than max_messages


@dataclass
class QueueReplay:
    scenario: Scenario
    result: ReplayResult
    labels: list[str]
    truncated: bool
    queue: str
    endpoints: list[str] = field(default_factory=list)
    max_messages: int = DEFAULT_MAX_MESSAGES
    fails: tuple[str, ...] = ()

    def notes(self) -> list[str]:
        """What to say before the result (the CLI on stderr, the console in its summary)."""
        out = []
        if self.truncated:
            out.append(f"only the first {self.max_messages} messages of {self.queue} were "
                       "replayed (--max-messages)")
        if not self.fails:
            out.append("no --fail rule: every delivery succeeds")
        return out


def platform_of(platform: str) -> str:
    return "zos" if platform.upper() in ("ZOS", "MVS", "OS390") else "distributed"


def _room_left(attrs: QueueAttrs) -> int:
    return max(0, attrs.max_depth - (attrs.depth or 0))


def modelled_queue(attrs: QueueAttrs, *, with_messages: bool) -> QueueSpec:
    """A scenario queue from real attributes (an empty one keeps only its room left)."""
    given = frozenset({"bothresh", "boqname", "hardenbo", "put_inhibited", "max_depth"})
    return QueueSpec(name=attrs.name, bothresh=attrs.bothresh, boqname=attrs.boqname.strip(),
                     hardenbo=attrs.hardenbo, put_inhibited=attrs.put_inhibited,
                     max_depth=attrs.max_depth if with_messages else _room_left(attrs),
                     given=given)


def related_queues(qm: QueueManager, main: QueueAttrs, dlq: str,
                   endpoints: Iterable[EndpointSpec], extra: Iterable[str] = ()
                   ) -> list[QueueSpec]:
    """The queues a message from ``main`` may be sent to, as they exist (missing ones left
    out: that is how the model sees a missing backout queue)."""
    names: list[str] = []
    if main.boqname.strip():
        names.append(main.boqname.strip())
    if dlq:
        names.append(dlq)
    for ep in endpoints:
        if ep.provider == "sca_export":
            names += [ep.module_destination, ep.failed_event_queue]
    names += list(extra)
    out: list[QueueSpec] = []
    for name in dict.fromkeys(names):
        if name == main.name:
            continue
        try:
            attrs = qm.inquire_queue(name)
        except MQError:  # missing (2085) or not visible: modelled as missing
            continue
        if attrs.type != QueueType.LOCAL:
            continue
        out.append(modelled_queue(attrs, with_messages=False))
    return out


def scenario_from_queue(qm: QueueManager, queue: str, endpoints: EndpointsFile,
                        fails: Sequence[str] = (), *,
                        max_messages: int = DEFAULT_MAX_MESSAGES,
                        limits: Limits | None = None,
                        plugins: Collection[str] | None = None,
                        progress: Progress | None = None,
                        stop: threading.Event | None = None) -> QueueScenario:
    """Build a scenario from ``queue``'s real attributes and messages (browse only);
    ``plugins``: the names of the plugins' failure rules ``--fail plugin=NAME`` may use."""
    attrs = qm.inquire_queue(queue)
    if attrs.type != QueueType.LOCAL or attrs.usage == Usage.XMITQ:
        raise ReplaySetupError(f"{queue} is not a local application queue "
                               f"({attrs.type.value}); replay reads local queues")
    readers = [ep for ep in endpoints.endpoints if ep.queue == queue]
    if not readers:
        where = f" in {endpoints.source}" if endpoints.source else ""
        named = ", ".join(sorted({ep.queue for ep in endpoints.endpoints})) or "none"
        raise ReplaySetupError(f"no endpoint{where} reads {queue} (they read: {named})")
    info = qm.inquire_qmgr()
    dlq = info.dead_letter_queue.strip()
    labels: list[str] = []
    msgid_labels: dict[str, list[str]] = {}
    messages: list[MessageSpec] = []
    truncated = False
    with qm.browse(queue) as cursor:
        while True:
            room = max_messages - len(messages)
            if room <= 0:
                truncated = cursor.next() is not None
                break
            want = min(500, room)
            batch = cursor.next_batch(want)
            for m in batch:
                hex_id = m.md.msg_id.hex().upper()
                same = msgid_labels.setdefault(hex_id, [])
                label = hex_id if not same else f"{hex_id}#{len(same) + 1}"
                same.append(label)
                labels.append(label)
                persistent = m.md.persistence == MQPER_PERSISTENT or (
                    m.md.persistence == MQPER_PERSISTENCE_AS_Q_DEF
                    and attrs.default_persistence == MQPER_PERSISTENT)
                messages.append(MessageSpec(id=label, queue=queue,
                                            backout_count=m.md.backout_count,
                                            persistent=persistent))
            if stop is not None and stop.is_set():
                raise ReplayStopped(f"replay stopped after reading {counted(len(messages))}")
            if progress is not None:
                progress("read", len(messages), min(attrs.depth or 0, max_messages) or None)
            if len(batch) < want:
                break
    rules = [parse_fail(f, labels=labels, msgid_labels=msgid_labels, plugins=plugins)
             for f in fails]
    move_targets = [r.move_to for r in rules if r.move_to]
    main = modelled_queue(attrs, with_messages=True)
    others = related_queues(qm, attrs, dlq, readers, move_targets)
    defined = {main.name, *(q.name for q in others)}
    for target in move_targets:
        if target not in defined:
            raise ReplaySetupError(f"--fail then=move:{target}: no local queue {target}")
    for rule in rules:
        unknown = [e for e in rule.endpoints or () if e not in {r.name for r in readers}]
        if unknown:
            raise ReplaySetupError(f"--fail endpoint={unknown[0]}: no endpoint of that name "
                                   f"reads {queue}")
    authorities = None
    if endpoints.authorities is not None:
        authorities = tuple(AuthoritySpec(a.principal, a.queue, a.grant)
                            for a in endpoints.authorities)
    scenario = Scenario(
        queue_manager=QueueManagerSpec(name=info.name, platform=platform_of(info.platform),
                                       dead_letter_queue=dlq),
        queues=(main, *others), authorities=authorities, messages=tuple(messages),
        endpoints=tuple(readers), failures=tuple(rules), actions=(),
        limits=limits or Limits(), source=f"queue {queue} on {info.name}")
    return QueueScenario(scenario, labels, msgid_labels, truncated)


def replay_queue(qm: QueueManager, queue: str, endpoints: EndpointsFile,
                 fails: Sequence[str] = (), *, max_messages: int = DEFAULT_MAX_MESSAGES,
                 limits: Limits | None = None, timeline: bool = False,
                 plugins: Mapping[str, FailurePlugin] | None = None,
                 progress: Progress | None = None,
                 stop: threading.Event | None = None) -> QueueReplay:
    """Replay ``queue`` as it is now, read by ``endpoints``, with ``fails`` short forms.

    ``timeline`` also keeps what each event changed, for a screen to step through (it costs
    about as much again as the replay itself, never a copy of the queue per event)."""
    built = scenario_from_queue(qm, queue, endpoints, fails, max_messages=max_messages,
                                limits=limits or limits_of(), plugins=list(plugins or {}),
                                progress=progress, stop=stop)
    result = run_scenario(built.scenario, timeline=timeline, plugins=plugins,
                          progress=progress, stop=stop)
    return QueueReplay(built.scenario, result, built.labels, built.truncated, queue,
                       [e.name for e in built.scenario.endpoints], max_messages, tuple(fails))


# ------------------------------------------------------------------------------------------
# Words for people
# ------------------------------------------------------------------------------------------


def short_label(label: str, width: int = 16) -> str:
    """A message's label cut to ``width`` from its start: MsgIds of one queue manager share
    their first 32 digits (``AMQ QM1 …``) and differ at the end, as ``#2`` repeats do, so
    the end is what tells messages apart."""
    return label if len(label) <= width else "…" + label[-(width - 1):]


def short_name(name: str, width: int = 14) -> str:
    """An endpoint's name for a narrow list, cut at no word: a long name of several words is
    its first word (after an article) and the initials of the rest ("the model activation
    specification" is "model AS"); one long word keeps its start and an ellipsis."""
    if len(name) <= width:
        return name
    words = name.split()
    if words and words[0].lower() in ("the", "a", "an") and len(words) > 1:
        words = words[1:]
    if len(words) > 1:
        short = f"{words[0]} {''.join(w[0].upper() for w in words[1:])}"
        if len(short) <= width:
            return short
    return name[:width - 1] + "…"


def event_text(ev: Mapping[str, Any], *, width: int = 16,
               names: Mapping[str, str] | None = None) -> str:
    """One line saying what an event means (no time, no sequence number); ``names``: the
    endpoints' names as the line says them (short ones for a narrow list)."""
    t = ev["type"]
    msg = short_label(str(ev.get("message", "")), width)
    who = ev.get("endpoint", "")
    if names:
        who = names.get(who, who)
    if "session" in ev:
        who = f"{who}/{ev['session']}"
    q = ev.get("queue", "")
    count = ev.get("backout_count")
    if t == "deliver":
        return f"{who} gets {msg} from {q} (backout count {count})"
    if t == "success":
        return f"{who} processed {msg}: committed"
    if t == "rollback":
        return (f"{who} rolled {msg} back onto {q}: backout count {count}, rollback counter "
                f"{ev.get('rollback_counter')}")
    if t == "transaction_timeout":
        return f"{who}: the transaction around {msg} outlived its lifetime and is rolled back"
    if t == "counter_reset":
        return f"{who}: a success resets the rollback counter to 0"
    if t == "endpoint_stopped":
        return f"{who} STOPPED (rollback counter {ev.get('rollback_counter')})"
    if t == "endpoint_started":
        return f"{who} restarted by the operator (rollback counter {ev.get('rollback_counter')})"
    if t == "requeued":
        return f"{msg} moved from {q} to {ev.get('to')} (backout count was {count})"
    if t == "dead_lettered":
        cause = f"; backout queue unusable: {ev['cause']} ({ev['cause_code']})" \
            if "cause_code" in ev else ""
        return (f"{msg} moved from {q} to the dead-letter queue {ev.get('to')} with "
                f"{ev.get('reason')} ({ev.get('reason_code')}){cause}")
    if t == "to_exception_destination":
        return f"{msg} moved from {q} to the exception destination {ev.get('to')}"
    if t == "to_module_destination":
        return f"{msg} moved from {q} to the module destination {ev.get('to')}"
    if t == "blocked_retry_wait":
        return f"{msg} stays on {q}, skipped until the blocked retry timeout passes"
    if t == "lost":
        return f"{msg} LOST from {q} (no copy anywhere)"
    if t == "qmgr_restart":
        return "the queue manager restarts"
    if t == "attribute_changed":
        return f"{q}: {ev.get('attribute')} {ev.get('old')!r} -> {ev.get('new')!r}"
    return t


def summary_text(result: ReplayResult) -> str:
    s = result.summary
    return (f"{s['deliveries']} deliveries, {s['successes']} successes, {s['rollbacks']} "
            f"rollbacks, {s['requeued']} requeued, {s['dead_lettered']} dead-lettered, "
            f"{s['to_exception_destination']} to exception destinations, {s['lost']} lost, "
            f"{s['endpoint_stops']} endpoint stops; ended: {s['stopped_by']}")
