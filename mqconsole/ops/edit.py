"""Editing a message: replace its body and chosen MQMD fields atomically.

The original is found by browsing (MsgIds need not be unique: with several, a ``position``
must pick one). The edited message is built from it (:func:`build_edited`), checked
(:func:`validate`: a list of checks, to which plugins add their own), then swapped in one
unit of work, in the order that leaves nothing to undo when MQ refuses the put
(``real-mq.md``, "Order inside a unit of work"):

1. put the edited message under syncpoint (on the same queue or ``to``);
2. get the original under the browse cursor under syncpoint, checking it is the one browsed;
3. commit.

A failed put leaves the original untouched; a failed get or commit backs the unit of work
out, so the queue holds the original only, exactly once. MsgId and context are kept
(set-all) unless ``new_context``/``new_msg_id`` say otherwise.

Checks are callables ``check(original, edited, target) -> iterable of Problem`` where
``target`` is the :class:`~mqconsole.mq.queue.QueueAttrs` of the queue the edited message
goes to (None when unknown). A problem of level ``error`` refuses the edit unless forced;
a ``warning`` is reported. :data:`CHECKS` holds the built-in ones.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from mqconsole.backends.base import Context, QueueManager, settle_failed_commit
from mqconsole.mq import _generated_constants as g
from mqconsole.mq.ccsid import codec_for
from mqconsole.mq.chain import parse_body, parse_body_lenient
from mqconsole.mq.errors import HeaderError, MQError
from mqconsole.mq.md import MQMD, is_big_endian
from mqconsole.mq.message import Message
from mqconsole.mq.names import FEEDBACK_BY_NAME
from mqconsole.mq.payload import decode_text, kind_of
from mqconsole.mq.queue import QueueAttrs
from mqconsole.mq.reasons import MQRC_NO_MSG_AVAILABLE, MQRC_NO_MSG_UNDER_CURSOR
from mqconsole.ops.result import (
    Failure,
    OperationResult,
    PutCheck,
    refused_by_plugin,
    would_fail_by_plugin,
)
from mqconsole.ops.savefile.save import message_key

# The MQMD fields an edit may set: MQ name -> MQMD attribute.
EDITABLE: dict[str, str] = {
    "Format": "format",
    "Encoding": "encoding",
    "CodedCharSetId": "ccsid",
    "Priority": "priority",
    "Persistence": "persistence",
    "Expiry": "expiry",
    "CorrelId": "correl_id",
    "ReplyToQ": "reply_to_q",
    "ReplyToQMgr": "reply_to_qmgr",
    "MsgType": "msg_type",
    "Feedback": "feedback",
}
_ALIASES = {"ccsid": "CodedCharSetId"}
EDITABLE_LIST = ", ".join(EDITABLE)


class EditError(ValueError):
    """An edit that cannot be done as asked (one sentence; nothing was changed)."""

    def __init__(self, message: str, *, problems: list[Problem] | None = None,
                 positions: list[int] | None = None) -> None:
        super().__init__(message)
        self.problems = problems or []
        self.positions = positions or []


# -- --set FIELD=VALUE ----------------------------------------------------------------------

def _field(name: str) -> str:
    key = name.strip()
    for mq in EDITABLE:
        if mq.lower() == key.lower():
            return mq
    if key.lower() in _ALIASES:
        return _ALIASES[key.lower()]
    raise EditError(f"MQMD field {name!r} cannot be set; the fields that can: {EDITABLE_LIST}")


def _int(text: str) -> int | None:
    t = text.strip()
    try:
        return int(t, 0) if t.lower().startswith(("0x", "-0x")) else int(t)
    except ValueError:
        return None


def _named(family: dict[str, int], prefix: str, text: str) -> int | None:
    """A coded value by name: ``PERSISTENT``, ``MQPER_PERSISTENT``, ``AS_Q_DEF`` …"""
    t = text.strip().upper()
    if t.startswith(prefix) and t in family:
        return family[t]
    if prefix + t in family:
        return family[prefix + t]
    ends = {v for k, v in family.items() if k.endswith("_" + t)}
    return ends.pop() if len(ends) == 1 else None


def _names(family: dict[str, Any], prefix: str) -> str:
    return ", ".join(sorted(k[len(prefix):] for k in family if not k.endswith(("_FIRST",
                                                                               "_LAST"))))


def _mqlong(mq: str, value: int) -> int:
    if not -(2**31) <= value <= 2**31 - 1:
        raise EditError(f"{mq} {value} is not an MQLONG (a 32-bit signed number)")
    return value


def parse_value(mq: str, text: str) -> Any:
    """The MQMD attribute value for ``--set MQ=TEXT`` (names of coded values accepted)."""
    if mq == "Format":
        t = text.strip()
        up = t.upper()
        for key in ("MQFMT_" + up, up):
            if key in g.MQFMT:
                return g.MQFMT[key]
        if up in ("NONE", ""):
            return " " * 8
        if len(t) > 8:
            raise EditError(f"Format {text!r} is longer than 8 characters")
        return t.ljust(8)
    if mq == "CorrelId":
        t = text.strip()
        if t.upper() in ("NONE", "MQCI_NONE"):
            return b"\x00" * 24
        if t.lower().startswith("0x"):
            t = t[2:]
        try:
            raw = bytes.fromhex(t)
        except ValueError:
            raise EditError(f"CorrelId {text!r} is not hexadecimal (or NONE)") from None
        if len(raw) > 24:
            raise EditError(f"CorrelId {text!r} is longer than 24 bytes")
        return raw.ljust(24, b"\x00")
    if mq in ("ReplyToQ", "ReplyToQMgr"):
        t = text.strip()
        if len(t) > 48:
            raise EditError(f"{mq} {text!r} is longer than 48 characters")
        return t
    families: dict[str, tuple[dict[str, int], str]] = {
        "Encoding": (g.MQENC, "MQENC_"),
        "CodedCharSetId": (g.MQCCSI, "MQCCSI_"),
        "Priority": (g.MQPRI, "MQPRI_"),
        "Persistence": (g.MQPER, "MQPER_"),
        "Expiry": (g.MQEI, "MQEI_"),
        "MsgType": (g.MQMT, "MQMT_"),
        "Feedback": ({"MQFB_" + k: v for k, v in FEEDBACK_BY_NAME.items()}, "MQFB_"),
    }
    family, prefix = families[mq]
    value = _int(text)
    if value is None:
        value = _named(family, prefix, text)
    if value is None:
        raise EditError(f"{mq} {text!r} is neither a number nor one of "
                        f"{_names(family, prefix)}")
    value = _mqlong(mq, value)
    if mq == "Priority" and not (0 <= value <= 9 or value == -1):
        raise EditError(f"Priority {value} is not 0-9 (or -1, the queue's default)")
    if mq == "Persistence" and value not in (0, 1, 2):
        raise EditError(f"Persistence {value} is not NOT_PERSISTENT (0), PERSISTENT (1) or "
                        "PERSISTENCE_AS_Q_DEF (2)")
    if mq == "Expiry" and not (value == -1 or value > 0):
        raise EditError(f"Expiry {value} is not UNLIMITED (-1) or a positive number of "
                        "tenths of a second")
    if mq == "CodedCharSetId" and value < 0:
        raise EditError(f"CodedCharSetId {value} cannot be set on a message")
    return value


def parse_assignments(items: Iterable[str]) -> dict[str, Any]:
    """``["Persistence=PERSISTENT", "Format=MQSTR"]`` → ``{"persistence": 1, "format": …}``."""
    out: dict[str, Any] = {}
    for item in items:
        if "=" not in item:
            raise EditError(f"--set {item!r} is not FIELD=VALUE (fields: {EDITABLE_LIST})")
        name, _, text = item.partition("=")
        mq = _field(name)
        out[EDITABLE[mq]] = parse_value(mq, text)
    return out


# -- building the edited message ------------------------------------------------------------

def text_codec_for(ccsid: int, encoding: int) -> str:
    """The codec to encode text for a body in ``ccsid`` (EditError when there is none)."""
    if ccsid <= 0:
        raise EditError(f"the message's CCSID is {ccsid} (the queue manager's): give "
                        "--set CodedCharSetId=N to say how to encode the text")
    codec = codec_for(ccsid)
    if codec is None:
        raise EditError(f"CCSID {ccsid} has no codec here: give the payload as a file")
    if codec.startswith("utf-16"):
        codec = "utf-16-be" if is_big_endian(encoding) else "utf-16-le"
    return codec


def _encode(text: str, ccsid: int, encoding: int) -> bytes:
    codec = text_codec_for(ccsid, encoding)
    try:
        return text.encode(codec)
    except UnicodeEncodeError as exc:
        raise EditError(f"the text cannot be encoded in CCSID {ccsid} ({codec}): "
                        f"{exc.object[exc.start:exc.end]!r} at character {exc.start}") from None


def build_edited(original: Message, *, body: bytes | None = None, text: str | None = None,
                 changes: dict[str, Any] | None = None, keep_headers: bool = False
                 ) -> Message:
    """The edited message: the original's descriptor with ``changes`` (MQMD attributes),
    and ``body`` (bytes) or ``text`` (encoded in the message's — possibly new — CCSID).

    With ``keep_headers`` only the payload after the header chain (dead-letter header,
    RFH2, …) is replaced and text is encoded in the payload's CCSID.
    """
    if body is not None and text is not None:
        raise EditError("give the new payload as bytes or as text, not both")
    md: MQMD = original.md.copy(**(changes or {}))
    if body is None and text is None:
        return Message(md, bytes(original.body))
    if keep_headers:
        parsed = parse_body_lenient(md, original.body)
        prefix = bytes(original.body[:parsed.payload_offset])
        payload = body if body is not None else _encode(text or "", parsed.ccsid,
                                                        parsed.encoding)
        return Message(md, prefix + payload)
    payload = body if body is not None else _encode(text or "", md.ccsid, md.encoding)
    return Message(md, payload)


# -- validation -----------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Problem:
    level: Literal["error", "warning"]
    check: str
    text: str

    def to_json(self) -> dict[str, str]:
        return {"level": self.level, "check": self.check, "text": self.text}


Check = Callable[[Message, Message, QueueAttrs | None], Iterable[Problem]]


def _payload(message: Message) -> tuple[bytes, str, int, int]:
    parsed = parse_body_lenient(message.md, message.body)
    return parsed.payload, parsed.format_name, parsed.ccsid, parsed.encoding


def check_length(original: Message, edited: Message, target: QueueAttrs | None
                 ) -> list[Problem]:
    """The body must fit the target queue's MAXMSGL."""
    if target is None or target.max_msg_length is None:
        return []
    if len(edited.body) > target.max_msg_length:
        return [Problem("error", "length", f"the body is {len(edited.body)} bytes; "
                        f"{target.name} takes at most {target.max_msg_length} (MAXMSGL)")]
    return []


def check_text(original: Message, edited: Message, target: QueueAttrs | None
               ) -> list[Problem]:
    """A payload of Format MQSTR must be valid text in its CCSID."""
    payload, fmt, ccsid, encoding = _payload(edited)
    if fmt != "MQSTR":
        return []
    if ccsid <= 0:
        return [Problem("warning", "text", f"Format MQSTR with CCSID {ccsid} (the queue "
                        "manager's): the text was not checked")]
    codec = codec_for(ccsid)
    if codec is None:
        return [Problem("warning", "text", f"CCSID {ccsid} has no codec here: the text was "
                        "not checked")]
    if codec.startswith("utf-16"):
        codec = "utf-16-be" if is_big_endian(encoding) else "utf-16-le"
    try:
        payload.decode(codec)
    except UnicodeDecodeError as exc:
        return [Problem("error", "text", f"Format MQSTR but the payload is not valid text in "
                        f"CCSID {ccsid} ({codec}) at byte {exc.start}")]
    except LookupError:
        return []
    return []


def _text_of(message: Message) -> str | None:
    payload, fmt, ccsid, encoding = _payload(message)
    return decode_text(payload, ccsid, fmt, encoding=encoding).text


def _xml_error(text: str) -> str | None:
    """None when ``text`` is well-formed XML, else the parser's complaint."""
    from xml.parsers import expat

    parser = expat.ParserCreate(encoding="UTF-8")

    def no_entities(*_args: object) -> None:
        raise ValueError("entity declarations are not accepted")

    parser.EntityDeclHandler = no_entities
    try:
        parser.Parse(text.strip("\ufeff \t\r\n\x00").encode("utf-8"), True)
    except expat.ExpatError as exc:
        return expat.errors.messages.get(exc.code, str(exc)) + f" (line {exc.lineno}, " \
            f"column {exc.offset})"
    except ValueError as exc:
        return str(exc)
    return None


def check_structure(original: Message, edited: Message, target: QueueAttrs | None
                    ) -> list[Problem]:
    """When the original payload was JSON or XML, the edited one must be well-formed too."""
    before = _text_of(original)
    if before is None:
        return []
    kind = kind_of(b"", "", before)
    if kind == "xml" and _xml_error(before) is not None:
        return []  # the original was not well-formed XML either
    if kind not in ("json", "xml"):
        return []
    after = _text_of(edited)
    if after is None:
        return [Problem("error", kind, f"the original payload was {kind.upper()}; the edited "
                        "one is not text")]
    if kind == "json":
        try:
            json.loads(after.strip("\ufeff \t\r\n\x00"))
        except (ValueError, RecursionError) as exc:
            return [Problem("error", "json", f"the original payload was JSON; the edited one "
                            f"is not well-formed: {exc}")]
        return []
    problem = _xml_error(after)
    if problem is not None:
        return [Problem("error", "xml", f"the original payload was XML; the edited one is not "
                        f"well-formed: {problem}")]
    return []


def check_headers(original: Message, edited: Message, target: QueueAttrs | None
                  ) -> list[Problem]:
    """A Format that names a header (MQDEAD, MQHRF2 …) needs that header at the body's start."""
    try:
        parse_body(edited.md, edited.body)
    except HeaderError as exc:
        try:
            parse_body(original.md, original.body)
        except HeaderError:
            return []  # the original was malformed too: not this edit's doing
        return [Problem("error", "headers", f"Format {edited.md.format_name} but the body "
                        f"holds no valid header there ({exc}); give --keep-headers to replace "
                        "only the payload, or --set Format=")]
    return []


CHECKS: list[Check] = [check_length, check_headers, check_text, check_structure]


def validate(original: Message, edited: Message, *, target: QueueAttrs | None = None,
             checks: Iterable[Check] | None = None) -> list[Problem]:
    """Run every check (default: :data:`CHECKS`, plugins included); a check that raises
    becomes an error naming it."""
    problems: list[Problem] = []
    for check in list(CHECKS if checks is None else checks):
        name = getattr(check, "__name__", repr(check))
        try:
            problems.extend(check(original, edited, target) or [])
        except Exception as exc:
            problems.append(Problem("error", name, f"the check {name} failed: "
                                    f"{type(exc).__name__}: {exc}"))
    return problems


# -- the edit -------------------------------------------------------------------------------

@dataclass
class EditOutcome:
    result: OperationResult
    problems: list[Problem] = field(default_factory=list)
    original: Message | None = None
    edited: Message | None = None
    position: int | None = None
    new_msgid: str | None = None

    def to_json(self) -> dict[str, Any]:
        doc = self.result.to_json()
        doc.update(position=self.position, msgid=self.new_msgid,
                   problems=[p.to_json() for p in self.problems])
        return doc


def find_original(qm: QueueManager, queue: str, msg_id: bytes, position: int | None = None
                  ) -> tuple[int, Message]:
    """The message to edit, by browsing: ``(position, message)``.

    Several messages with the MsgId need ``position`` (the browse position) to choose.
    """
    found: list[tuple[int, Message]] = []
    pos = 0
    with qm.browse(queue) as cursor:
        while True:
            batch = cursor.next_batch(200)
            for m in batch:
                pos += 1
                if m.md.msg_id == msg_id:
                    found.append((pos, m))
            if len(batch) < 200:
                break
    hex_id = msg_id.hex().upper()
    if not found:
        raise EditError(f"no message with MsgId {hex_id} on {queue}")
    if position is not None:
        for p, m in found:
            if p == position:
                return p, m
        raise EditError(f"the message at position {position} of {queue} does not have MsgId "
                        f"{hex_id} (it is at position "
                        f"{', '.join(str(p) for p, _ in found)})",
                        positions=[p for p, _ in found])
    if len(found) > 1:
        raise EditError(f"{len(found)} messages on {queue} have MsgId {hex_id} (positions "
                        f"{', '.join(str(p) for p, _ in found)}): give --position to choose",
                        positions=[p for p, _ in found])
    return found[0]


def edit_message(qm: QueueManager, queue: str, msg_id: bytes, *, body: bytes | None = None,
                 text: str | None = None, changes: dict[str, Any] | None = None,
                 to: str | None = None, position: int | None = None,
                 new_context: bool = False, new_msg_id: bool = False,
                 keep_headers: bool = False, force: bool = False, dry_run: bool = False,
                 checks: Iterable[Check] | None = None,
                 put_check: PutCheck | None = None) -> EditOutcome:
    """Replace one message of ``queue`` with its edited version (on ``queue`` or ``to``).

    Raises :class:`EditError` (nothing changed) when the message is not found or ambiguous,
    the new body cannot be made, or a check reports an error and ``force`` is not given.
    A refused put, get or commit is a failure in the result (the original stays), and so
    is a refusal by ``put_check`` (the plugins' put checks, given the edited message).
    """
    dest = to or queue
    msg_id = bytes(msg_id[:24]).ljust(24, b"\x00")
    pos, original = find_original(qm, queue, msg_id, position)
    edited = build_edited(original, body=body, text=text, changes=changes,
                          keep_headers=keep_headers)
    target = qm.inquire_queue(dest)
    problems = validate(original, edited, target=target, checks=checks)
    errors = [p for p in problems if p.level == "error"]
    if errors and not force:
        raise EditError("the edited message fails a check (--force goes ahead anyway): "
                        + "; ".join(p.text for p in errors), problems=problems)
    result = OperationResult(operation="edit", source=queue, destination=dest, selected=1,
                             dry_run=dry_run)
    result.warnings.extend(p.text if p.level == "warning" else f"forced past an error: {p.text}"
                           for p in problems)
    outcome = EditOutcome(result, problems, original, edited, pos)
    hex_id = original.msg_id_hex
    refusal = put_check(edited, dest) if put_check is not None else None
    if dry_run:
        step = {"position": pos, "msgid": hex_id, "destination": dest,
                "action": "replace" if dest == queue else f"replace on {dest}",
                "changes": sorted(changes or {})}
        if refusal is not None:
            step["would_fail"] = would_fail_by_plugin(refusal)
        result.plan = [step]
        return outcome
    if refusal is not None:
        result.failed.append(refused_by_plugin(hex_id, pos, refusal, dest))
        return outcome
    key = message_key(original)
    context = Context.NEW if new_context else Context.SET_ALL
    with qm.browse(queue, for_get=True) as cursor:
        while True:  # put the cursor on the original again (it may have moved)
            browsed = cursor.next()
            if browsed is None:
                result.failed.append(Failure(hex_id, pos, MQRC_NO_MSG_AVAILABLE,
                                             detail="the message left the queue meanwhile"))
                return outcome
            if message_key(browsed) == key:
                break
        try:
            put = qm.put(dest, edited, context=context, syncpoint=True, new_msg_id=new_msg_id)
        except MQError as exc:
            _backout_quietly(qm)  # nothing of ours is in the unit of work; be sure
            result.failed.append(Failure(hex_id, pos, exc.reason, detail=exc.detail,
                                         destination=dest))
            return outcome
        except BaseException:
            _backout_quietly(qm)
            raise
        try:
            got = cursor.get_current(syncpoint=True)
            if message_key(got) != key:
                raise MQError(MQRC_NO_MSG_UNDER_CURSOR,
                              "the message under the cursor is not the one browsed")
        except MQError as exc:
            _backout_quietly(qm)
            result.failed.append(Failure(hex_id, pos, exc.reason, detail=exc.detail,
                                         destination=dest))
            return outcome
        except BaseException:
            _backout_quietly(qm)
            raise
        try:
            qm.commit()
        except MQError as exc:
            if not settle_failed_commit(qm, exc):  # it may have committed: never redone
                result.outcome_unknown = True
                result.warnings.append(f"the commit's outcome is unknown ({exc.reason_name}): "
                                       f"browse {queue} and {dest} to see which message is "
                                       "there")
                return outcome
            result.failed.append(Failure(hex_id, pos, exc.reason, detail=exc.detail,
                                         destination=dest))
            return outcome
    outcome.new_msgid = put.md.msg_id.hex().upper()
    result.record_done(hex_id, dest)
    return outcome


def _backout_quietly(qm: QueueManager) -> None:
    if qm.in_unit_of_work:
        with contextlib.suppress(MQError):
            qm.backout()


__all__ = ["CHECKS", "EDITABLE", "Check", "EditError", "EditOutcome", "Problem",
           "build_edited", "check_headers", "check_length", "check_structure", "check_text",
           "edit_message", "find_original", "parse_assignments", "parse_value", "validate"]
