"""Replay scenarios (replay-format.md): parsed from YAML, validated, with line-numbered errors.

:func:`load_scenario` / :func:`parse_scenario` return a :class:`Scenario` of frozen
dataclasses with every default of delivery-model.md filled in. Every problem — an unknown
field, a wrong type, a value out of range, a reference to an undefined queue, message or
endpoint — becomes a :class:`ScenarioError` whose message names the file, the line and the
field::

    orders.yaml line 14: endpoints[0].provider: must be one of sib, mq_activation_spec, ...

The one exception to "references must be defined" is the format's: ``boqname``,
``exception_destination`` and ``dead_letter_queue`` may name a queue the scenario does not
define (that is how a missing queue is modelled).

Validation is in two steps, as the configuration's: the file's shape by pydantic models
(``schema.py``: each section's fields, their types and ranges by the checks of ``checks.py``;
``sentences.py`` turns pydantic's errors into the sentences), then, here, what refers to what.

:func:`parse_endpoints` reads an *endpoints file* (the ``endpoints:`` block of the format,
optionally with ``authorities:``), used by ``replay --queue`` and ``doctor``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

from pydantic import ValidationError

from mqconsole.yamlines import Loc, YamlProblem, dotted, read

from .checks import KINDS
from .problems import Problem, ScenarioError, type_name
from .schema import (
    ActionIn,
    AuthorityIn,
    EndpointIn,
    EndpointsFileIn,
    FailureIn,
    FileModel,
    ScenarioIn,
)
from .sentences import line_of, problems

__all__ = ["KINDS", "ActionSpec", "AuthoritySpec", "EndpointSpec", "EndpointsFile", "FailureRule",
           "Limits", "MessageSpec", "Problem", "QueueManagerSpec", "QueueSpec", "Scenario",
           "ScenarioError", "load_endpoints", "load_scenario", "parse_endpoints",
           "parse_scenario", "scenario_from_data"]


# ------------------------------------------------------------------------------------------
# The scenario
# ------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class QueueManagerSpec:
    name: str = "QM1"
    platform: str = "distributed"
    dead_letter_queue: str = ""
    messaging_engine: str = "ME1"
    blocked_retry_interval_ms: int = 5000


@dataclass(frozen=True, slots=True)
class QueueSpec:
    name: str
    bothresh: int = 0
    boqname: str = ""
    hardenbo: bool = False
    put_inhibited: bool = False
    max_depth: int = 5000
    max_failed_deliveries: int = 5
    exception_destination: str = "system"
    blocked_retry_timeout_ms: int = -1
    given: frozenset[str] = frozenset()  # the fields the scenario set explicitly


@dataclass(frozen=True, slots=True)
class AuthoritySpec:
    principal: str
    queue: str  # a queue name or a generic profile (APP.*)
    grant: frozenset[str]


@dataclass(frozen=True, slots=True)
class MessageSpec:
    id: str
    queue: str
    payload: str = ""
    backout_count: int = 0
    persistent: bool = True


@dataclass(frozen=True, slots=True)
class EndpointSpec:
    name: str
    queue: str
    provider: str
    run_as: str | None = None
    transaction: str = "required"
    syncpoint: bool = True
    stop_endpoint_on_failure: bool = True
    sequential_failures_before_suspend: int = 0
    max_server_sessions: int = 10
    max_retries: int = 0  # 1 for sca_export (filled in by the parser)
    max_sessions: int = 1
    non_asf_receive_timeout_ms: int = 0
    total_transaction_lifetime_timeout_s: int = 120
    processing_ms: int = 10
    arrival_wait_ms: int = 0
    binding: str = "mq"
    module_destination: str = ""  # <queue>.SCA (filled in by the parser)
    failed_event_queue: str = "FAILED.EVENTS"

    @property
    def under_syncpoint(self) -> bool:
        """Whether the provider's get is covered by a syncpoint (delivery-model.md §1)."""
        return self.transaction == "required" or self.syncpoint

    @property
    def non_asf(self) -> bool:
        return (self.provider in ("mq_listener_port", "sca_export")
                and self.non_asf_receive_timeout_ms > 0)


@dataclass(frozen=True, slots=True)
class FailureRule:
    """Which deliveries fail. The first rule that matches a delivery and still applies wins."""

    messages: tuple[str, ...] | None = None
    first: int | None = None
    between_ms: tuple[int, int] | None = None
    endpoints: tuple[str, ...] | None = None
    plugin: str | None = None
    kind: str = "component"
    then: str = "rollback"  # rollback | discard | move
    move_to: str | None = None  # for then == "move"
    line: int | None = None


@dataclass(frozen=True, slots=True)
class ActionSpec:
    at_ms: int
    restart_endpoint: str | None = None
    restart_queue_manager: bool = False
    set_queue: str | None = None  # the queue name
    changes: tuple[tuple[str, Any], ...] = ()  # (attribute, value) in file order
    line: int | None = None


@dataclass(frozen=True, slots=True)
class Limits:
    max_events: int = 10000
    until_ms: int = 600000


@dataclass(frozen=True, slots=True)
class Scenario:
    queue_manager: QueueManagerSpec = field(default_factory=QueueManagerSpec)
    queues: tuple[QueueSpec, ...] = ()
    authorities: tuple[AuthoritySpec, ...] | None = None
    messages: tuple[MessageSpec, ...] = ()
    endpoints: tuple[EndpointSpec, ...] = ()
    failures: tuple[FailureRule, ...] = ()
    actions: tuple[ActionSpec, ...] = ()
    limits: Limits = field(default_factory=Limits)
    source: str | None = None

    def queue(self, name: str) -> QueueSpec | None:
        for q in self.queues:
            if q.name == name:
                return q
        return None

    def replace(self, **changes: Any) -> Scenario:
        return replace(self, **changes)


@dataclass(frozen=True, slots=True)
class EndpointsFile:
    """An endpoints file: endpoints (and optional authorities) without queues or messages."""

    endpoints: tuple[EndpointSpec, ...]
    authorities: tuple[AuthoritySpec, ...] | None = None
    source: str | None = None


# ------------------------------------------------------------------------------------------
# Reading a file
# ------------------------------------------------------------------------------------------


MAX_FILE_BYTES = 16 * 1024 * 1024  # a scenario or endpoints file is YAML an operator wrote


def _text_of(path: str | os.PathLike[str]) -> str:
    """The file's text, read with a limit: ``/dev/zero`` or a pipe that never ends is one
    sentence, not memory exhausted (OSError when it cannot be read)."""
    from mqconsole.inputfile import NotAFile, open_input

    try:
        fp = open_input(path)  # a FIFO is a sentence, never waited for
    except NotAFile as exc:
        raise ScenarioError([Problem("", f"is {exc.kind}, not a scenario or endpoints file",
                                     None, str(path))]) from None
    with fp:
        data = fp.read(MAX_FILE_BYTES + 1)
    if len(data) > MAX_FILE_BYTES:
        raise ScenarioError([Problem("", f"holds more than {MAX_FILE_BYTES // (1024 * 1024)} "
                                     "MiB: not a scenario or endpoints file", None, str(path))])
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise ScenarioError([Problem("", "is not UTF-8 text", None, str(path))]) from None


def _load(text: str, file: str | None) -> tuple[Any, dict[Loc, int]]:
    try:
        doc = read(text)
    except YamlProblem as e:
        raise ScenarioError([Problem("", e.problem, e.line, file)]) from None
    if doc.duplicates:
        dup = doc.duplicates[0]
        raise ScenarioError([Problem("", f"{dup.loc[-1]!s} appears twice in one mapping (first at "
                                         f"line {dup.first}); YAML would keep only the last",
                                     dup.line, file)])
    return doc.data, doc.lines


def load_scenario(path: str | os.PathLike[str]) -> Scenario:
    """Read and validate a scenario file (OSError when it cannot be read)."""
    return parse_scenario(_text_of(path), file=str(path))


def parse_scenario(text: str, *, file: str | None = None) -> Scenario:
    data, lines = _load(text, file)
    return scenario_from_data(data, lines, file=file)


def load_endpoints(path: str | os.PathLike[str]) -> EndpointsFile:
    return parse_endpoints(_text_of(path), file=str(path))


def parse_endpoints(text: str, *, file: str | None = None) -> EndpointsFile:
    """An endpoints file: ``endpoints:`` (and optional ``authorities:``), or a bare list."""
    data, lines = _load(text, file)
    if isinstance(data, list):
        data, lines = {"endpoints": data}, {("endpoints", *k): v for k, v in lines.items()}
    if not isinstance(data, dict):
        raise ScenarioError([Problem("", "an endpoints file is a mapping with endpoints: (and "
                                         f"authorities:), not {type_name(data)}",
                                     line_of((), lines), file)])
    doc = _validated(EndpointsFileIn, data, lines, file)
    refs = _References(lines, file, None)
    endpoints = refs.endpoints(doc.endpoints)
    authorities = refs.authorities(doc.authorities)
    refs.check()
    return EndpointsFile(tuple(endpoints), authorities, file)


# ------------------------------------------------------------------------------------------
# Validation: the file's shape by its models (schema.py), then what refers to what
# ------------------------------------------------------------------------------------------


def scenario_from_data(data: Any, lines: dict[Loc, int] | None = None, *,
                       file: str | None = None) -> Scenario:
    """Validate plain data (as YAML gives it) into a Scenario; raises ScenarioError."""
    lines = lines or {}
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ScenarioError([Problem("", "a scenario must be a mapping (queues:, messages:, "
                                         f"endpoints:, ...), not {type_name(data)}",
                                     line_of((), lines), file)])
    doc = _validated(ScenarioIn, data, lines, file)
    refs = _References(lines, file, set())
    qm = QueueManagerSpec(**doc.queue_manager.given())
    queues = refs.queues(doc)
    authorities = refs.authorities(doc.authorities)
    messages = refs.messages(doc)
    endpoints = refs.endpoints(doc.endpoints)
    failures = refs.failures(doc.failures, {m.id for m in messages},
                             {e.name for e in endpoints})
    actions = refs.actions(doc.actions, data["actions"] if doc.actions else [],
                           {e.name for e in endpoints})
    refs.check()
    return Scenario(queue_manager=qm, queues=tuple(queues), authorities=authorities,
                    messages=tuple(messages), endpoints=tuple(endpoints),
                    failures=tuple(failures), actions=tuple(actions),
                    limits=Limits(**doc.limits.given()), source=file)


_M = TypeVar("_M", bound=FileModel)


def _validated(model: type[_M], data: dict[Any, Any], lines: dict[Loc, int],
               file: str | None) -> _M:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise ScenarioError(problems(exc, model, lines, file)) from None


class _References:
    """What the sections name must be defined (and defined once); every problem collected.

    ``queue_names`` is None for an endpoints file, whose queues are the queue manager's."""

    def __init__(self, lines: dict[Loc, int], file: str | None,
                 queue_names: set[str] | None) -> None:
        self.lines = lines
        self.file = file
        self.queue_names = queue_names
        self.problems: list[Problem] = []

    def bad(self, loc: Loc, problem: str) -> None:
        self.problems.append(Problem(dotted(loc), problem, line_of(loc, self.lines), self.file))

    def check(self) -> None:
        if self.problems:
            raise ScenarioError(self.problems)

    def need_queue(self, loc: Loc, name: str) -> None:
        if self.queue_names is not None and name not in self.queue_names:
            self.bad(loc, f"queue {name} is not defined in queues:")

    def queues(self, doc: ScenarioIn) -> list[QueueSpec]:
        assert self.queue_names is not None
        out: list[QueueSpec] = []
        for i, q in enumerate(doc.queues):
            if q.name in self.queue_names:
                self.bad(("queues", i, "name"), f"queue {q.name} is defined twice")
                continue
            self.queue_names.add(q.name)
            got = q.given()
            out.append(QueueSpec(**got, given=frozenset(k for k in got if k != "name")))
        return out

    def authorities(self, records: tuple[AuthorityIn, ...] | None
                    ) -> tuple[AuthoritySpec, ...] | None:
        if records is None:
            return None
        for i, a in enumerate(records):
            if "*" not in a.queue:
                self.need_queue(("authorities", i, "queue"), a.queue)
        return tuple(AuthoritySpec(principal=a.principal, queue=a.queue, grant=a.grant)
                     for a in records)

    def messages(self, doc: ScenarioIn) -> list[MessageSpec]:
        out: list[MessageSpec] = []
        ids: set[str] = set()
        for i, m in enumerate(doc.messages):
            if m.id in ids:
                self.bad(("messages", i, "id"), f"message {m.id} is defined twice")
                continue
            self.need_queue(("messages", i, "queue"), m.queue)
            ids.add(m.id)
            out.append(MessageSpec(**m.given()))
        return out

    def endpoints(self, items: tuple[EndpointIn, ...]) -> list[EndpointSpec]:
        out: list[EndpointSpec] = []
        names: set[str] = set()
        for i, e in enumerate(items):
            if e.name in names:
                self.bad(("endpoints", i, "name"), f"endpoint {e.name} is defined twice")
                continue
            names.add(e.name)
            self.need_queue(("endpoints", i, "queue"), e.queue)
            got = e.given()
            got.setdefault("max_retries", 1 if e.provider == "sca_export" else 0)
            got.setdefault("module_destination", f"{e.queue}.SCA")
            out.append(EndpointSpec(**got))
        return out

    def failures(self, rules: tuple[FailureIn, ...], message_ids: set[str],
                 endpoint_names: set[str]) -> list[FailureRule]:
        out: list[FailureRule] = []
        for i, rule in enumerate(rules):
            loc = ("failures", i)
            for j, mid in enumerate(rule.messages or ()):
                if mid not in message_ids:
                    self.bad((*loc, "messages", j), f"message {mid} is not defined in messages:")
            for j, name in enumerate(rule.endpoints or ()):
                if name not in endpoint_names:
                    self.bad((*loc, "endpoints", j),
                             f"endpoint {name} is not defined in endpoints:")
            got = rule.given()
            then, move_to = got.pop("then", None) or ("rollback", None)
            if move_to is not None:
                self.need_queue((*loc, "then", "move"), move_to)
            out.append(FailureRule(**got, then=then, move_to=move_to,
                                   line=line_of(loc, self.lines)))
        return out

    def actions(self, items: tuple[ActionIn, ...], raw: list[Any],
                endpoint_names: set[str]) -> list[ActionSpec]:
        out: list[ActionSpec] = []
        for i, a in enumerate(items):
            loc = ("actions", i)
            line = line_of(loc, self.lines)
            if a.restart_endpoint is not None:
                if a.restart_endpoint not in endpoint_names:
                    self.bad((*loc, "restart_endpoint"),
                             f"endpoint {a.restart_endpoint} is not defined in endpoints:")
                    continue
                out.append(ActionSpec(at_ms=a.at_ms, restart_endpoint=a.restart_endpoint,
                                      line=line))
            elif a.restart_queue_manager:
                out.append(ActionSpec(at_ms=a.at_ms, restart_queue_manager=True, line=line))
            elif a.set_queue is not None:
                self.need_queue((*loc, "set_queue", "name"), a.set_queue.name)
                got = a.set_queue.given()
                # the changes in file order (the engine makes them in turn)
                changes = tuple((k, got[k]) for k in raw[i]["set_queue"] if k != "name")
                out.append(ActionSpec(at_ms=a.at_ms, set_queue=a.set_queue.name,
                                      changes=changes, line=line))
        return out
