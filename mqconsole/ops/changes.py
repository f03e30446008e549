"""How a change of a queue attribute or an MQMD field is said, in every face and the same
way: MQ's own names and values — ``HARDENBO: NOHARDENBO → HARDENBO``, ``BOQNAME: ' ' →
APP.CLAIMS.BOQ``, ``PUT: ENABLED → DISABLED``, ``Priority: 0 → 5``, ``Persistence:
MQPER_NOT_PERSISTENT → MQPER_PERSISTENT`` — never Python's (``False → True``) or a blank.

The journal keeps the plain values (``ops.record.field_changes``); this is only how they
are shown (issue 24 item 6: one vocabulary)."""

from __future__ import annotations

from typing import Any

from mqconsole.mq.md import LAYOUT
from mqconsole.mq.names import feedback_name, msg_type_name, persistence_name
from mqconsole.mq.queue import MQSC_KEYWORDS

MD_NAMES: dict[str, str] = {attr: mq for attr, mq, _kind, _len in LAYOUT}
# MQMD fields whose numbers have names (MQPER_*, MQMT_*, MQFB_*)
_MD_CODES = {"persistence": persistence_name, "msg_type": msg_type_name,
             "feedback": feedback_name}
# MQSC's words for a queue's yes/no attributes (DEFINE QLOCAL's keywords)
_MQSC_FLAGS: dict[str, tuple[str, str]] = {
    "hardenbo": ("NOHARDENBO", "HARDENBO"),
    "put_inhibited": ("ENABLED", "DISABLED"),
    "get_inhibited": ("ENABLED", "DISABLED"),
}
_MQSC_CODES: dict[str, dict[int, str]] = {"default_persistence": {0: "NO", 1: "YES"}}


def _blank(value: Any) -> str:
    text = "" if value is None else str(value).rstrip()
    return text if text else "' '"  # MQSC writes a blank name as ' '


def field_name(attr: str) -> str:
    """A queue attribute's MQSC keyword, an MQMD field's MQ name, else the attribute."""
    return MQSC_KEYWORDS.get(attr) or MD_NAMES.get(attr) or attr


def field_value(attr: str, value: Any) -> str:
    """A value as MQ says it (MQSC for queue attributes, names for MQMD codes)."""
    if attr in _MQSC_FLAGS and isinstance(value, bool | int):
        return _MQSC_FLAGS[attr][1 if value else 0]
    if attr in _MQSC_CODES and isinstance(value, int):
        return _MQSC_CODES[attr].get(value, str(value))
    if attr in _MD_CODES and isinstance(value, int) and not isinstance(value, bool):
        return _MD_CODES[attr](value)
    if isinstance(value, bool):
        return "YES" if value else "NO"
    if isinstance(value, str) or value is None:
        return _blank(value)
    return str(value)


def change_line(attr: str, before: Any, after: Any, *, arrow: str = "→") -> str:
    """``HARDENBO: NOHARDENBO → HARDENBO``: the field by its MQ name, old and new value."""
    return f"{field_name(attr)}: {field_value(attr, before)} {arrow} {field_value(attr, after)}"


def change_lines(changes: dict[str, dict[str, Any]], *, arrow: str = "→") -> list[str]:
    """A line for each ``{attr: {"before": …, "after": …}}`` of a queue set or an edit."""
    return [change_line(k, v.get("before"), v.get("after"), arrow=arrow)
            for k, v in changes.items()]


__all__ = ["MD_NAMES", "change_line", "change_lines", "field_name", "field_value"]
