"""Queue and queue manager attributes, as MQ names them (the domain side of PCF)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import Enum

from .errors import BadValue, MQError


class QueueType(str, Enum):
    LOCAL = "local"  # MQQT_LOCAL 1
    ALIAS = "alias"  # MQQT_ALIAS 3
    REMOTE = "remote"  # MQQT_REMOTE 6
    MODEL = "model"  # MQQT_MODEL 2
    #: a queue this queue manager does not define but resolves when it is put to: a
    #: cluster queue hosted elsewhere (MQQT_CLUSTER 7). Never defined from here.
    CLUSTER = "cluster"


class Usage(str, Enum):
    NORMAL = "normal"  # MQUS_NORMAL 0
    XMITQ = "xmitq"  # MQUS_TRANSMISSION 1


@dataclass(slots=True)
class QueueAttrs:
    """What MQCMD_INQUIRE_Q returns for one queue. ``depth`` is None for non-local queues."""

    name: str
    type: QueueType = QueueType.LOCAL
    depth: int | None = 0
    max_depth: int = 5000
    max_msg_length: int = 4194304
    put_inhibited: bool = False
    get_inhibited: bool = False
    bothresh: int = 0
    boqname: str = ""
    hardenbo: bool = False
    description: str = ""
    usage: Usage = Usage.NORMAL
    default_persistence: int = 0  # DEFPSIST: MQPER_NOT_PERSISTENT
    default_priority: int = 0  # DEFPRTY
    # alias queues
    target_q: str = ""
    # remote queue definitions (and queue manager aliases when remote_q_name is blank)
    remote_q_name: str = ""
    remote_qmgr_name: str = ""
    xmit_q: str = ""
    create_time: datetime | None = None
    alter_time: datetime | None = None


# Attributes that `define`/`change` accept, with their MQSC keywords (for docs and doctor).
MQSC_KEYWORDS: dict[str, str] = {
    "max_depth": "MAXDEPTH", "max_msg_length": "MAXMSGL", "put_inhibited": "PUT",
    "get_inhibited": "GET", "bothresh": "BOTHRESH", "boqname": "BOQNAME",
    "hardenbo": "HARDENBO", "description": "DESCR", "usage": "USAGE",
    "default_persistence": "DEFPSIST", "default_priority": "DEFPRTY", "target_q": "TARGET",
    "remote_q_name": "RNAME", "remote_qmgr_name": "RQMNAME", "xmit_q": "XMITQ",
}
CHANGEABLE = frozenset(MQSC_KEYWORDS)


@dataclass(slots=True)
class QueueStatus:
    """What MQCMD_INQUIRE_Q_STATUS returns (MQIACF_Q_STATUS_TYPE = MQIACF_Q_STATUS)."""

    name: str
    depth: int
    open_input_count: int = 0  # IPPROCS
    open_output_count: int = 0  # OPPROCS
    uncommitted_messages: int = 0  # UNCOM
    oldest_message_age: int | None = None  # MSGAGE, seconds; None when empty
    last_get: datetime | None = None  # LGETDATE/LGETTIME
    last_put: datetime | None = None  # LPUTDATE/LPUTTIME
    handles: list[dict] = field(default_factory=list)


@dataclass(slots=True)
class QMgrInfo:
    name: str
    dead_letter_queue: str = ""
    platform: str = "UNIX"  # MQPL_* name: UNIX, WINDOWS_NT, ZOS, ...
    command_level: int = 940
    ccsid: int = 1208
    encoding: int = 546
    description: str = ""
    backend: str = "embedded"
    #: MAXUMSGS: messages one unit of work may hold (puts, gets and the reports they make);
    #: None when the backend has no such limit or could not read it
    max_uncommitted: int | None = None


# -- validation shared by every backend (checked before any PCF request is built) ----------

MAX_NAME_LENGTH = 48
_NAME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._/%")

# Which attributes each queue type has (the keywords of DEFINE QLOCAL/QALIAS/QREMOTE/QMODEL).
_COMMON = frozenset({"put_inhibited", "description", "default_persistence", "default_priority"})
_LOCAL = _COMMON | {"max_depth", "max_msg_length", "get_inhibited", "bothresh", "boqname",
                    "hardenbo", "usage"}
TYPE_ATTRIBUTES: dict[QueueType, frozenset[str]] = {
    QueueType.LOCAL: frozenset(_LOCAL),
    QueueType.MODEL: frozenset(_LOCAL),
    QueueType.ALIAS: _COMMON | {"get_inhibited", "target_q"},
    QueueType.REMOTE: _COMMON | {"remote_q_name", "remote_qmgr_name", "xmit_q"},
    QueueType.CLUSTER: frozenset(),  # not defined here (define_queue refuses it)
}
# Inclusive ranges of the integer attributes (MQ's limits on distributed platforms).
INT_LIMITS: dict[str, tuple[int, int]] = {
    "max_depth": (0, 999_999_999), "max_msg_length": (0, 104_857_600),
    "bothresh": (0, 999_999_999), "default_priority": (0, 9), "default_persistence": (0, 1),
}
_BOOLS = frozenset({"put_inhibited", "get_inhibited", "hardenbo"})
_NAMES = frozenset({"boqname", "target_q", "remote_q_name", "remote_qmgr_name", "xmit_q"})


def is_valid_name(name: str) -> bool:
    """An MQ object name: 1 to 48 of ``A-Z a-z 0-9 . / _ %``."""
    return 0 < len(name) <= MAX_NAME_LENGTH and all(c in _NAME_CHARS for c in name)


def name_problem(name: str, what: str = "an MQ name") -> str | None:
    """The sentence saying ``name`` is not ``what`` (an MQ object name), or None: the one
    place names are validated (the CLI, the console, scenarios and attributes ask here)."""
    if is_valid_name(name):
        return None
    return f"{name!r} is not {what} (1-48 of A-Z a-z 0-9 . _ / %)"


def check_attribute(qtype: QueueType, attr: str, value: object) -> object:
    """Validate one attribute for a queue of ``qtype``; returns the value normalised.

    An attribute the type does not have raises MQError 2067 (MQRC_SELECTOR_ERROR); a bad
    value raises :class:`BadValue` naming the attribute, the value and what is allowed.
    """
    if attr not in TYPE_ATTRIBUTES[qtype]:
        known = ", ".join(sorted(TYPE_ATTRIBUTES[qtype]))
        what = "is not a queue attribute" if attr not in CHANGEABLE else \
            f"does not apply to a {qtype.value} queue"
        raise MQError(2067, f"{attr!r} {what} (settable: {known})")
    return check_value(attr, value)


def check_value(attr: str, value: object) -> object:
    """Validate the value of one attribute (any queue type); returns it normalised. A bad
    value raises :class:`BadValue` naming the attribute, the value and what is allowed."""
    if attr in INT_LIMITS:
        lo, hi = INT_LIMITS[attr]
        if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
            raise BadValue(f"{attr} must be a whole number from {lo} to {hi}, not {value!r}")
        return value
    if attr in _BOOLS:
        if not isinstance(value, bool) and value not in (0, 1):
            raise BadValue(f"{attr} must be true or false, not {value!r}")
        return bool(value)
    if attr == "usage":
        try:
            return Usage(value.value if isinstance(value, Usage) else str(value).lower())
        except ValueError:
            raise BadValue(f"usage must be 'normal' or 'xmitq', not {value!r}") from None
    if not isinstance(value, str):
        raise BadValue(f"{attr} must be text, not {value!r}")
    value = value.strip()
    if attr == "description":
        if len(value) > 64:
            raise BadValue(f"description is at most 64 characters, not {len(value)}")
        return value
    problem = name_problem(value) if attr in _NAMES and value else None
    if problem is not None:
        raise BadValue(f"{attr} {problem}")
    return value


def changes_problem(queue: str, changes: dict[str, object]) -> str | None:
    """The sentence refusing these attribute values for ``queue`` (an unknown attribute, a
    value out of range, a bad name, the queue as its own backout queue: a poison message
    would be requeued where it failed, for ever), or None. Unset (None) values are not
    looked at. The one check of ``queue define``/``queue set`` and the console's forms."""
    checked: dict[str, object] = {}
    for attr, value in changes.items():
        if value is None:
            continue
        if attr not in CHANGEABLE:
            return f"not a changeable queue attribute: {attr}"
        try:
            checked[attr] = check_value(attr, value)
        except BadValue as e:
            return str(e)
    if checked.get("boqname") and checked["boqname"] == queue:
        return f"{queue} cannot be its own backout queue (BOQNAME)"
    return None

