"""Queue listing and attributes as operators see them (which queue is the DLQ, who names a BOQ)."""

from __future__ import annotations

from typing import Any

from mqconsole.backends.base import QueueManager
from mqconsole.mq.errors import MQError
from mqconsole.mq.queue import CHANGEABLE, MQSC_KEYWORDS, QueueAttrs, QueueType, check_value
from mqconsole.mq.reasons import MQRC_UNKNOWN_OBJECT_NAME


def backout_queue_map(queues: list[QueueAttrs]) -> dict[str, list[str]]:
    """Backout queue name → the queues whose BOQNAME names it."""
    out: dict[str, list[str]] = {}
    for q in queues:
        boq = q.boqname.strip()
        if boq:
            out.setdefault(boq, []).append(q.name)
    return out


def queue_row(q: QueueAttrs, *, dlq: str, boq_map: dict[str, list[str]]) -> dict[str, Any]:
    return {
        "name": q.name,
        "type": q.type.value if isinstance(q.type, QueueType) else str(q.type),
        "depth": q.depth,
        "max_depth": q.max_depth,
        "put_inhibited": q.put_inhibited,
        "get_inhibited": q.get_inhibited,
        "bothresh": q.bothresh,
        "boqname": q.boqname.strip(),
        "hardenbo": q.hardenbo,
        "is_dead_letter_queue": bool(dlq) and q.name == dlq,
        "backout_queue_for": sorted(boq_map.get(q.name, [])),
    }


def model_queue_problem(attrs: QueueAttrs) -> str | None:
    """Why a queue cannot be a source or a destination of messages: a model queue is a
    template (any MQOPEN of it, MQPUT1 included, makes a new dynamic queue — an empty one
    to read, or one whose messages go with it). None for any other queue."""
    if attrs.type is not QueueType.MODEL:
        return None
    return (f"{attrs.name} is a model queue, a template that holds no messages (opening it "
            "would create a new dynamic queue): name a local queue")


def queue_rows(qm: QueueManager, pattern: str = "*") -> list[dict[str, Any]]:
    """The rows of ``mqconsole queues``: every queue with DLQ and backout-queue marks.

    The queue manager is asked with the operator's pattern, never ``*`` for a narrower
    one: each queue a generic display skips for want of +dsp writes AMQ8245 to its log.
    MQ's generic names end in their only ``*``; a pattern with another star is asked by
    its prefix and filtered here. Backout-queue marks cover the queues listed."""
    info = qm.inquire_qmgr()
    star = pattern.find("*")
    generic = pattern if star < 0 or star == len(pattern) - 1 else pattern[:star + 1]
    all_queues = qm.list_queues(generic)
    boq_map = backout_queue_map(all_queues)
    dlq = info.dead_letter_queue.strip()
    if generic != pattern:
        import fnmatch

        all_queues = [q for q in all_queues if fnmatch.fnmatchcase(q.name, pattern)]
    ordered = sorted(all_queues, key=lambda q: q.name)
    return [queue_row(q, dlq=dlq, boq_map=boq_map) for q in ordered]


def queue_doc(qm: QueueManager, name: str) -> dict[str, Any]:
    """Everything about one queue: attributes, status, and its DLQ/backout relations."""
    q = qm.inquire_queue(name)
    info = qm.inquire_qmgr()
    boq_map = backout_queue_map(qm.list_queues("*"))
    doc: dict[str, Any] = {
        "name": q.name,
        "type": q.type.value,
        "depth": q.depth,
        "max_depth": q.max_depth,
        "max_msg_length": q.max_msg_length,
        "put_inhibited": q.put_inhibited,
        "get_inhibited": q.get_inhibited,
        "bothresh": q.bothresh,
        "boqname": q.boqname.strip(),
        "hardenbo": q.hardenbo,
        "description": q.description,
        "usage": q.usage.value,
        "default_persistence": q.default_persistence,
        "default_priority": q.default_priority,
        "is_dead_letter_queue": q.name == info.dead_letter_queue.strip(),
        "backout_queue_for": sorted(boq_map.get(q.name, [])),
    }
    if q.type == QueueType.ALIAS:
        doc["target_q"] = q.target_q
    if q.type == QueueType.REMOTE:
        doc.update(remote_q_name=q.remote_q_name, remote_qmgr_name=q.remote_qmgr_name,
                   xmit_q=q.xmit_q)
    if q.type == QueueType.LOCAL:
        st = qm.queue_status(name)
        doc["status"] = {
            "open_input_count": st.open_input_count,
            "open_output_count": st.open_output_count,
            "uncommitted_messages": st.uncommitted_messages,
            "oldest_message_age": st.oldest_message_age,
            "last_get": st.last_get.isoformat() if st.last_get else None,
            "last_put": st.last_put.isoformat() if st.last_put else None,
        }
    return doc


#: ``queue_doc``'s keys as MQ operators know them (MQSC), and how a value reads there
_LABELS: dict[str, str] = {"name": "QUEUE", "type": "TYPE", "depth": "CURDEPTH",
                           **MQSC_KEYWORDS, "is_dead_letter_queue": "dead-letter queue",
                           "backout_queue_for": "backout queue for"}
_STATUS_LABELS = {"open_input_count": "IPPROCS", "open_output_count": "OPPROCS",
                  "uncommitted_messages": "UNCOM", "oldest_message_age": "MSGAGE (s)",
                  "last_get": "LGETDATE/LGETTIME", "last_put": "LPUTDATE/LPUTTIME"}
_TYPES = {"local": "QLOCAL", "alias": "QALIAS", "remote": "QREMOTE", "model": "QMODEL"}


def _mqsc_value(key: str, value: Any) -> str:
    """A value in MQSC's words: PUT/GET ENABLED or DISABLED (never a bare True/False, and
    never colour alone), YES/NO, QLOCAL, ..., '-' for nothing."""
    if key in ("put_inhibited", "get_inhibited"):
        return "DISABLED" if value else "ENABLED"
    if key == "type":
        return _TYPES.get(str(value), str(value).upper())
    if key == "usage":
        return str(value).upper()
    if key == "default_persistence":
        return "YES" if value else "NO"
    if isinstance(value, bool):
        return "YES" if value else "NO"
    if isinstance(value, list):
        return ", ".join(map(str, value)) or "-"
    if value is None or value == "":
        return "-"
    return str(value)


def attribute_lines(doc: dict[str, Any]) -> list[tuple[str, str]]:
    """``queue_doc`` as (name, value) lines for a person, in MQ's names and words (BOTHRESH
    3, PUT ENABLED, HARDENBO YES, IPPROCS 0, ...): ``queue show`` and the console's ``i``."""
    lines = [(_LABELS.get(k, k), _mqsc_value(k, v)) for k, v in doc.items() if k != "status"]
    for k, v in (doc.get("status") or {}).items():
        lines.append((_STATUS_LABELS.get(k, k), _mqsc_value(k, v)))
    return lines


def validate_changes(changes: dict[str, Any]) -> dict[str, Any]:
    """Drop unset options and refuse unknown attributes (a bug, not user input)."""
    out = {k: v for k, v in changes.items() if v is not None}
    unknown = set(out) - CHANGEABLE
    if unknown:
        raise ValueError(f"not a changeable queue attribute: {', '.join(sorted(unknown))}")
    return {k: check_value(k, v) for k, v in out.items()}


def define_queue(qm: QueueManager, name: str, **attrs: Any) -> QueueAttrs:
    changes = validate_changes(attrs)
    qm.define_queue(QueueAttrs(name=name, **changes))
    return qm.inquire_queue(name)


def missing_backout_queue(qm: QueueManager, attrs: QueueAttrs) -> str | None:
    """A warning when ``attrs``' BOQNAME names a queue that does not exist on ``qm`` (MQ
    accepts it: a backout queue may be defined later), else None. Any other answer
    (not authorized to inquire, ...) says nothing: only a queue known to be missing is
    warned of."""
    boq = attrs.boqname.strip()
    if not boq:
        return None
    try:
        qm.inquire_queue(boq)
    except MQError as e:
        if e.reason != MQRC_UNKNOWN_OBJECT_NAME:
            return None
    else:
        return None
    return (f"BOQNAME {boq} names a queue that does not exist on {qm.name}: a message backed "
            f"out BOTHRESH times cannot be requeued there until it is defined")


def set_queue(qm: QueueManager, name: str, **attrs: Any) -> tuple[QueueAttrs, QueueAttrs]:
    """Change attributes; returns (before, after) so callers can record the change."""
    changes = validate_changes(attrs)
    before = qm.inquire_queue(name)
    after = qm.change_queue(name, **changes) if changes else before
    return before, after
