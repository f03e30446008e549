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

:func:`parse_endpoints` reads an *endpoints file* (the ``endpoints:`` block of the format,
optionally with ``authorities:``), used by ``replay --queue`` and ``doctor``.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from mqconsole.mq.payload import first_of, located
from mqconsole.mq.queue import is_valid_name, name_problem
from mqconsole.yamlines import Loc, YamlProblem, dotted, read

PROVIDERS = ("sib", "mq_activation_spec", "mq_listener_port", "sca_export")
TRANSACTIONS = ("required", "not_supported", "bean_managed")
PLATFORMS = ("distributed", "zos")
BINDINGS = ("mq", "jms")
KINDS = ("component", "export")
# authority names as setmqaut spells them (without +), and MQ's groups
AUTHORITIES = frozenset({"browse", "get", "put", "inq", "set", "setid", "setall", "passid",
                         "passall", "altusr", "connect", "chg", "dsp", "dlt", "clr", "crt",
                         "ctrl", "ctrlx"})
_AUTH_GROUPS = {"all": AUTHORITIES, "allmqi": frozenset({"browse", "get", "put", "inq", "set",
                "setid", "setall", "passid", "passall", "altusr", "connect"}),
                "none": frozenset()}
MAX_INT = 2**53


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
# Errors
# ------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Problem:
    field: str
    problem: str
    line: int | None = None
    file: str | None = None

    def sentence(self) -> str:
        return located(self.problem, file=self.file, line=self.line, subject=self.field)



class ScenarioError(ValueError):
    """A scenario (or endpoints file) that cannot be used; ``str()`` is one sentence."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = problems
        first = problems[0]
        self.field = first.field
        self.line = first.line
        self.file = first.file
        super().__init__(first_of([p.sentence() for p in problems]))


# ------------------------------------------------------------------------------------------
# Field checkers: each returns the value (normalised) or raises _Bad with the problem
# ------------------------------------------------------------------------------------------


class _Bad(Exception):
    pass


def _type_name(v: Any) -> str:
    if v is None:
        return "nothing (null)"
    if isinstance(v, bool):
        return f"a true/false value ({str(v).lower()})"
    if isinstance(v, int):
        return f"a number ({v})"
    if isinstance(v, float):
        return f"a decimal number ({v})"
    if isinstance(v, str):
        return f"text ({v!r})"
    if isinstance(v, list):
        return "a list"
    if isinstance(v, dict):
        return "a mapping"
    return type(v).__name__


Check = Callable[[Any], Any]


def t_int(lo: int = 0, hi: int = MAX_INT) -> Check:
    def check(v: Any) -> int:
        if isinstance(v, bool) or not isinstance(v, int):
            raise _Bad(f"must be a whole number, not {_type_name(v)}")
        if not lo <= v <= hi:
            raise _Bad(f"must be from {lo} to {hi}, not {v}" if hi < MAX_INT
                       else f"must be {lo} or more, not {v}")
        return v
    return check


def t_bool(v: Any) -> bool:
    if not isinstance(v, bool):
        raise _Bad(f"must be true or false, not {_type_name(v)}")
    return v


def t_text(v: Any) -> str:
    if not isinstance(v, str):
        raise _Bad(f"must be text, not {_type_name(v)}")
    return v


def t_id(v: Any) -> str:
    """Message ids and other labels: text, or a plain number taken as text."""
    if isinstance(v, bool) or not isinstance(v, str | int):
        raise _Bad(f"must be text, not {_type_name(v)}")
    text = str(v)
    if not text.strip():
        raise _Bad("must not be blank")
    return text


def t_name(blank_ok: bool = False) -> Check:
    def check(v: Any) -> str:
        if v is None and blank_ok:
            return ""
        if not isinstance(v, str):
            raise _Bad(f"must be an MQ name (text), not {_type_name(v)}")
        v = v.strip()
        if not v and blank_ok:
            return ""
        problem = name_problem(v)
        if problem is not None:
            raise _Bad(problem)
        return v
    return check


def t_enum(*choices: str) -> Check:
    def check(v: Any) -> str:
        if not isinstance(v, str) or v not in choices:
            raise _Bad(f"must be one of {', '.join(choices)}, not {_type_name(v)}")
        return v
    return check


def t_list(item: Check, *, min_len: int = 0) -> Check:
    def check(v: Any) -> tuple:
        if not isinstance(v, list):
            raise _Bad(f"must be a list, not {_type_name(v)}")
        if len(v) < min_len:
            raise _Bad(f"must list at least {min_len}")
        out = []
        for i, x in enumerate(v):
            try:
                out.append(item(x))
            except _Bad as e:
                raise _Bad(f"item {i + 1}: {e}") from None
        return tuple(out)
    return check


def t_grant(v: Any) -> frozenset[str]:
    if isinstance(v, str):
        v = v.replace(",", " ").split()
    if not isinstance(v, list):
        raise _Bad(f"must be a list of authorities, not {_type_name(v)}")
    out: set[str] = set()
    for raw in v:
        if not isinstance(raw, str):
            raise _Bad(f"authorities are names (get, put, ...), not {_type_name(raw)}")
        name = raw.strip().lstrip("+").lower()
        if name in _AUTH_GROUPS:
            out |= _AUTH_GROUPS[name]
        elif name in AUTHORITIES:
            out.add(name)
        else:
            raise _Bad(f"unknown authority {raw!r} (MQ names: {', '.join(sorted(AUTHORITIES))})")
    return frozenset(out)


# name → (checker, required)
QUEUE_MANAGER_FIELDS: dict[str, tuple[Check, bool]] = {
    "name": (t_name(), False),
    "platform": (t_enum(*PLATFORMS), False),
    "dead_letter_queue": (t_name(blank_ok=True), False),
    "messaging_engine": (t_name(), False),
    "blocked_retry_interval_ms": (t_int(0), False),
}
QUEUE_ATTR_FIELDS: dict[str, tuple[Check, bool]] = {
    "bothresh": (t_int(0, 999_999_999), False),
    "boqname": (t_name(blank_ok=True), False),
    "hardenbo": (t_bool, False),
    "put_inhibited": (t_bool, False),
    "max_depth": (t_int(0, 999_999_999), False),
    "max_failed_deliveries": (t_int(1), False),
    "exception_destination": (t_name(), False),  # system | none | a queue name
    "blocked_retry_timeout_ms": (t_int(-1), False),
}
QUEUE_FIELDS: dict[str, tuple[Check, bool]] = {"name": (t_name(), True), **QUEUE_ATTR_FIELDS}
AUTHORITY_FIELDS: dict[str, tuple[Check, bool]] = {
    "principal": (t_id, True),
    "queue": (t_text, True),
    "grant": (t_grant, True),
}
MESSAGE_FIELDS: dict[str, tuple[Check, bool]] = {
    "id": (t_id, True),
    "queue": (t_name(), True),
    "payload": (t_text, False),
    "backout_count": (t_int(0, 999_999_999), False),
    "persistent": (t_bool, False),
}
ENDPOINT_FIELDS: dict[str, tuple[Check, bool]] = {
    "name": (t_id, True),
    "queue": (t_name(), True),
    "provider": (t_enum(*PROVIDERS), True),
    "run_as": (t_id, False),
    "transaction": (t_enum(*TRANSACTIONS), False),
    "syncpoint": (t_bool, False),
    "stop_endpoint_on_failure": (t_bool, False),
    "sequential_failures_before_suspend": (t_int(0), False),
    "max_server_sessions": (t_int(1, 10_000), False),
    "max_retries": (t_int(0), False),
    "max_sessions": (t_int(1, 10_000), False),
    "non_asf_receive_timeout_ms": (t_int(0), False),
    "total_transaction_lifetime_timeout_s": (t_int(0), False),
    "processing_ms": (t_int(1), False),
    "arrival_wait_ms": (t_int(0), False),
    "binding": (t_enum(*BINDINGS), False),
    "module_destination": (t_name(), False),
    "failed_event_queue": (t_name(), False),
}


def t_then(v: Any) -> tuple[str, str | None]:
    if isinstance(v, str) and v in ("rollback", "discard"):
        return v, None
    if isinstance(v, dict) and list(v) == ["move"]:
        return "move", t_name()(v["move"])
    raise _Bad(f"must be rollback, discard or {{move: QUEUE}}, not {_type_name(v)}")


def t_between(v: Any) -> tuple[int, int]:
    pair = t_list(t_int(0))(v)
    if len(pair) != 2:
        raise _Bad("must be two times [from, to] in milliseconds")
    if pair[0] > pair[1]:
        raise _Bad(f"the window ends ({pair[1]}) before it starts ({pair[0]})")
    return pair[0], pair[1]


FAILURE_FIELDS: dict[str, tuple[Check, bool]] = {
    "messages": (t_list(t_id, min_len=1), False),
    "first": (t_int(1), False),
    "between_ms": (t_between, False),
    "endpoints": (t_list(t_id, min_len=1), False),
    "plugin": (t_id, False),
    "kind": (t_enum(*KINDS), False),
    "then": (t_then, False),
}
SELECTORS = ("messages", "first", "between_ms", "endpoints", "plugin")
LIMIT_FIELDS: dict[str, tuple[Check, bool]] = {
    "max_events": (t_int(1), False),
    "until_ms": (t_int(0), False),
}
TOP_FIELDS = ("queue_manager", "queues", "authorities", "messages", "endpoints", "failures",
              "actions", "limits")


# ------------------------------------------------------------------------------------------
# The checker
# ------------------------------------------------------------------------------------------


class _Checker:
    def __init__(self, lines: dict[Loc, int], file: str | None) -> None:
        self.lines = lines
        self.file = file
        self.problems: list[Problem] = []

    def line(self, loc: Loc) -> int | None:
        while True:
            if loc in self.lines:
                return self.lines[loc]
            if not loc:
                return None
            loc = loc[:-1]

    def bad(self, loc: Loc, problem: str) -> None:
        self.problems.append(Problem(dotted(loc), problem, self.line(loc), self.file))

    def fields(self, data: Any, loc: Loc, schema: dict[str, tuple[Check, bool]],
               what: str) -> dict[str, Any] | None:
        if not isinstance(data, dict):
            self.bad(loc, f"must be a mapping of {what} fields, not {_type_name(data)}")
            return None
        out: dict[str, Any] = {}
        for key, value in data.items():
            if key not in schema:
                close = difflib.get_close_matches(str(key), list(schema), n=1)
                hint = f"did you mean {close[0]}?" if close else \
                    f"known: {', '.join(schema)}"
                self.bad((*loc, key), f"unknown field ({hint})")
                continue
            check, _ = schema[key]
            try:
                out[key] = check(value)
            except _Bad as e:
                self.bad((*loc, key), str(e))
        for key, (_, required) in schema.items():
            if required and key not in data:
                self.bad(loc, f"{key} is required")
        return out

    def items(self, data: Any, loc: Loc, what: str) -> list[tuple[Loc, Any]]:
        if data is None:
            return []
        if not isinstance(data, list):
            self.bad(loc, f"must be a list of {what}, not {_type_name(data)}")
            return []
        return [((*loc, i), item) for i, item in enumerate(data)]


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


def scenario_from_data(data: Any, lines: dict[Loc, int] | None = None, *,
                       file: str | None = None) -> Scenario:
    """Validate plain data (as YAML gives it) into a Scenario; raises ScenarioError."""
    c = _Checker(lines or {}, file)
    if data is None:
        data = {}
    if not isinstance(data, dict):
        c.bad((), f"a scenario must be a mapping (queues:, messages:, endpoints:, ...), "
                  f"not {_type_name(data)}")
        raise ScenarioError(c.problems)
    for key in data:
        if key not in TOP_FIELDS:
            close = difflib.get_close_matches(str(key), TOP_FIELDS, n=1)
            hint = f"did you mean {close[0]}?" if close else f"known: {', '.join(TOP_FIELDS)}"
            c.bad((key,), f"unknown field ({hint})")

    qm = QueueManagerSpec()
    if "queue_manager" in data:
        got = c.fields(data["queue_manager"], ("queue_manager",), QUEUE_MANAGER_FIELDS,
                       "queue manager")
        if got:
            qm = QueueManagerSpec(**got)

    queues: list[QueueSpec] = []
    queue_names: set[str] = set()
    for loc, item in c.items(data.get("queues"), ("queues",), "queues"):
        got = c.fields(item, loc, QUEUE_FIELDS, "queue")
        if not got or "name" not in got:
            continue
        if got["name"] in queue_names:
            c.bad((*loc, "name"), f"queue {got['name']} is defined twice")
            continue
        queue_names.add(got["name"])
        queues.append(QueueSpec(**got, given=frozenset(k for k in got if k != "name")))

    def need_queue(loc: Loc, name: str) -> None:
        if name not in queue_names:
            c.bad(loc, f"queue {name} is not defined in queues:")

    authorities = _authorities(c, data, "authorities" in data, need_queue)

    messages: list[MessageSpec] = []
    message_ids: set[str] = set()
    for loc, item in c.items(data.get("messages"), ("messages",), "messages"):
        got = c.fields(item, loc, MESSAGE_FIELDS, "message")
        if not got or "id" not in got or "queue" not in got:
            continue
        if got["id"] in message_ids:
            c.bad((*loc, "id"), f"message {got['id']} is defined twice")
            continue
        need_queue((*loc, "queue"), got["queue"])
        message_ids.add(got["id"])
        messages.append(MessageSpec(**got))

    endpoints = _endpoints(c, data.get("endpoints"), ("endpoints",), need_queue)
    endpoint_names = {e.name for e in endpoints}

    failures: list[FailureRule] = []
    for loc, item in c.items(data.get("failures"), ("failures",), "failure rules"):
        got = c.fields(item, loc, FAILURE_FIELDS, "failure rule")
        if got is None:
            continue
        if not any(k in got for k in SELECTORS) and \
                not any(k in item for k in SELECTORS):
            c.bad(loc, "a failure rule needs a selector: messages, first, between_ms, "
                       "endpoints or plugin")
            continue
        for i, mid in enumerate(got.get("messages") or ()):
            if mid not in message_ids:
                c.bad((*loc, "messages", i), f"message {mid} is not defined in messages:")
        for i, name in enumerate(got.get("endpoints") or ()):
            if name not in endpoint_names:
                c.bad((*loc, "endpoints", i), f"endpoint {name} is not defined in endpoints:")
        then, move_to = got.pop("then", ("rollback", None))
        if move_to is not None:
            need_queue((*loc, "then", "move"), move_to)
        for key in ("messages", "endpoints"):
            if key in got:
                got[key] = tuple(got[key])
        failures.append(FailureRule(**got, then=then, move_to=move_to, line=c.line(loc)))

    actions: list[ActionSpec] = []
    for loc, item in c.items(data.get("actions"), ("actions",), "actions"):
        action = _action(c, loc, item, endpoint_names, need_queue)
        if action is not None:
            actions.append(action)

    limits = Limits()
    if "limits" in data:
        got = c.fields(data["limits"], ("limits",), LIMIT_FIELDS, "limits")
        if got:
            limits = Limits(**got)

    if c.problems:
        raise ScenarioError(c.problems)
    return Scenario(queue_manager=qm, queues=tuple(queues), authorities=authorities,
                    messages=tuple(messages), endpoints=tuple(endpoints),
                    failures=tuple(failures), actions=tuple(actions), limits=limits,
                    source=file)


def _authorities(c: _Checker, data: dict, present: bool,
                 need_queue: Callable[[Loc, str], None] | None
                 ) -> tuple[AuthoritySpec, ...] | None:
    if not present:
        return None
    out: list[AuthoritySpec] = []
    for loc, item in c.items(data.get("authorities"), ("authorities",), "authority records"):
        got = c.fields(item, loc, AUTHORITY_FIELDS, "authority")
        if not got or not all(k in got for k in ("principal", "queue", "grant")):
            continue
        queue = got["queue"].strip()
        if "*" not in queue:
            if not is_valid_name(queue):
                c.bad((*loc, "queue"), f"{queue!r} is not an MQ name or generic profile")
                continue
            if need_queue is not None:
                need_queue((*loc, "queue"), queue)
        out.append(AuthoritySpec(principal=got["principal"], queue=queue, grant=got["grant"]))
    return tuple(out)


def _endpoints(c: _Checker, data: Any, loc0: Loc,
               need_queue: Callable[[Loc, str], None] | None) -> list[EndpointSpec]:
    out: list[EndpointSpec] = []
    names: set[str] = set()
    for loc, item in c.items(data, loc0, "endpoints"):
        got = c.fields(item, loc, ENDPOINT_FIELDS, "endpoint")
        if not got or not all(k in got for k in ("name", "queue", "provider")):
            continue
        if got["name"] in names:
            c.bad((*loc, "name"), f"endpoint {got['name']} is defined twice")
            continue
        names.add(got["name"])
        if need_queue is not None:
            need_queue((*loc, "queue"), got["queue"])
        if "max_retries" not in got:
            got["max_retries"] = 1 if got["provider"] == "sca_export" else 0
        got.setdefault("module_destination", f"{got['queue']}.SCA")
        if not is_valid_name(got["module_destination"]):
            c.bad((*loc, "queue"), f"the default module destination {got['queue']}.SCA is "
                                   "longer than 48 characters: give module_destination")
            continue
        out.append(EndpointSpec(**got))
    return out


def _action(c: _Checker, loc: Loc, item: Any, endpoint_names: set[str],
            need_queue: Callable[[Loc, str], None]) -> ActionSpec | None:
    if not isinstance(item, dict):
        c.bad(loc, f"an action must be a mapping (at_ms: and what to do), not {_type_name(item)}")
        return None
    known = ("at_ms", "restart_endpoint", "restart_queue_manager", "set_queue")
    ok = True
    for key in item:
        if key not in known:
            close = difflib.get_close_matches(str(key), known, n=1)
            c.bad((*loc, key), f"unknown field ({'did you mean ' + close[0] + '?' if close else 'known: ' + ', '.join(known)})")  # noqa: E501
            ok = False
    at = None
    if "at_ms" not in item:
        c.bad(loc, "at_ms is required")
        ok = False
    else:
        try:
            at = t_int(0)(item["at_ms"])
        except _Bad as e:
            c.bad((*loc, "at_ms"), str(e))
            ok = False
    ok = ok and at is not None
    what = [k for k in known[1:] if k in item]
    if len(what) != 1:
        if ok:
            c.bad(loc, "an action does one of restart_endpoint, restart_queue_manager, "
                       "set_queue" + (f" (this one has {', '.join(what)})" if what else ""))
        return None
    kind = what[0]
    value = item[kind]
    if kind == "restart_endpoint":
        try:
            name = t_id(value)
        except _Bad as e:
            c.bad((*loc, kind), str(e))
            return None
        if name not in endpoint_names:
            c.bad((*loc, kind), f"endpoint {name} is not defined in endpoints:")
            return None
        return ActionSpec(at_ms=at, restart_endpoint=name,
                          line=c.line(loc)) if ok and at is not None else None
    if kind == "restart_queue_manager":
        if value is not True:
            c.bad((*loc, kind), f"must be true, not {_type_name(value)}")
            return None
        return ActionSpec(at_ms=at, restart_queue_manager=True,
                          line=c.line(loc)) if ok and at is not None else None
    schema = {"name": (t_name(), True), **QUEUE_ATTR_FIELDS}
    got = c.fields(value, (*loc, kind), schema, "set_queue")
    if not got or "name" not in got:
        return None
    need_queue((*loc, kind, "name"), got["name"])
    changes = tuple((k, v) for k, v in got.items() if k != "name")
    if not changes:
        c.bad((*loc, kind), "set_queue needs at least one attribute to change")
        return None
    return ActionSpec(at_ms=at, set_queue=got["name"], changes=changes,
                      line=c.line(loc)) if ok and at is not None else None


# ------------------------------------------------------------------------------------------
# Endpoints files
# ------------------------------------------------------------------------------------------


def load_endpoints(path: str | os.PathLike[str]) -> EndpointsFile:
    return parse_endpoints(_text_of(path), file=str(path))


def parse_endpoints(text: str, *, file: str | None = None) -> EndpointsFile:
    """An endpoints file: ``endpoints:`` (and optional ``authorities:``), or a bare list."""
    data, lines = _load(text, file)
    c = _Checker(lines, file)
    if isinstance(data, list):
        data, lines = {"endpoints": data}, {("endpoints", *k): v for k, v in lines.items()}
        c.lines = lines
    if not isinstance(data, dict):
        c.bad((), f"an endpoints file is a mapping with endpoints: (and authorities:), "
                  f"not {_type_name(data)}")
        raise ScenarioError(c.problems)
    for key in data:
        if key not in ("endpoints", "authorities"):
            c.bad((key,), "unknown field (an endpoints file holds endpoints: and authorities:)")
    if "endpoints" not in data:
        c.bad((), "endpoints is required")
    endpoints = _endpoints(c, data.get("endpoints"), ("endpoints",), None)
    authorities = _authorities(c, data, "authorities" in data, None)
    if c.problems:
        raise ScenarioError(c.problems)
    return EndpointsFile(tuple(endpoints), authorities, file)

