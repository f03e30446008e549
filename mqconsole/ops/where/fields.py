"""The fields ``--where`` knows: name, kind, how the value is read from a
:class:`~mqconsole.ops.views.MessageView`, help and aliases."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .kinds import (
    DURATION,
    FEEDBACK,
    HEX,
    INT,
    MSG_TYPE,
    PERSISTENCE,
    REASON,
    SIZE,
    STR,
    TIME,
    Kind,
)


@dataclass(frozen=True, slots=True)
class Field:
    name: str
    kind: Kind
    get: Callable[[Any], Any]
    help: str
    aliases: tuple[str, ...] = ()
    needs_text: bool = False
    needs_payload: bool = False


def _attr(name: str) -> Callable[[Any], Any]:
    def get(view: Any) -> Any:
        return getattr(view, name)
    get.__name__ = f"get_{name}"
    return get


FIELDS: tuple[Field, ...] = (
    Field("reason", REASON, _attr("reason"),
          "dead-letter reason (MQRC_/MQFB_ name or number); missing without a DLH"),
    Field("dest_q", STR, _attr("dest_q"),
          "the queue the dead-lettered message was going to; missing without a DLH",
          ("destq", "dest")),
    Field("dest_qmgr", STR, _attr("dest_qmgr"),
          "the queue manager it was going to; missing without a DLH", ("destqmgr",)),
    Field("format", STR, _attr("format"), "MQMD Format (MQDEAD, MQSTR, MQHRF2, ...)",
          ("fmt",)),
    Field("original_format", STR, _attr("original_format"),
          "the format under the dead-letter header (MQMD Format when there is none)",
          ("orig_format",)),
    Field("payload_format", STR, _attr("payload_format"),
          "the format of the payload after all headers", ("pformat",), needs_payload=True),
    Field("age", DURATION, _attr("age_seconds"), "time since the put (90s, 30m, 2h, 1d, 1w)"),
    Field("put_time", TIME, _attr("put_datetime"), "put date and time, UTC (ISO 8601)",
          ("time", "put")),
    Field("dlh_put_time", TIME, _attr("dlh_put_datetime"),
          "the dead-letter header's put time (when it was dead-lettered); missing without "
          "a DLH", ("dlh_time",)),
    Field("arrival", TIME, _attr("arrival_datetime"),
          "when it reached this queue: the dead-letter header's put time, else the MQMD's "
          "(the audit report's ages count from it)", ("arrived",)),
    Field("backout_count", INT, _attr("backout_count"), "MQMD BackoutCount",
          ("backout", "bo")),
    Field("priority", INT, _attr("priority"), "MQMD Priority", ("prio", "pri")),
    Field("persistence", PERSISTENCE, _attr("persistence"),
          "PERSISTENT / NOT_PERSISTENT (name or number)", ("persist",)),
    Field("msg_type", MSG_TYPE, _attr("msg_type"),
          "DATAGRAM / REQUEST / REPLY / REPORT (name or number)", ("type",)),
    Field("feedback", FEEDBACK, _attr("feedback"), "MQMD Feedback (name or number)"),
    Field("user", STR, _attr("user"), "MQMD UserIdentifier", ("userid",)),
    Field("put_appl_name", STR, _attr("put_appl_name"), "MQMD PutApplName", ("appl",)),
    Field("reply_to_q", STR, _attr("reply_to_q"), "MQMD ReplyToQ", ("replyq",)),
    Field("msgid", HEX, _attr("msgid"), "MsgId in hex", ("msg_id", "id")),
    Field("correlid", HEX, _attr("correlid"), "CorrelId in hex", ("correl_id",)),
    Field("length", SIZE, _attr("length"), "body length in bytes (10k = 10240)", ("size", "len")),
    Field("ccsid", INT, _attr("ccsid"), "MQMD CodedCharSetId"),
    Field("position", INT, _attr("position"), "position on the queue in this browse",
          ("pos",)),
    Field("text", STR, _attr("text"),
          "the payload decoded as text; missing for binary payloads", ("body", "payload"),
          needs_text=True, needs_payload=True),
)

BY_NAME: dict[str, Field] = {}
for _f in FIELDS:
    BY_NAME[_f.name] = _f
    for _a in _f.aliases:
        BY_NAME[_a] = _f


def field_names() -> list[str]:
    """Every field name and alias the language knows, sorted."""
    return sorted(BY_NAME)
