"""One message as the console shows it: the browse row, the full ``show`` view, and the
values that ``--where`` expressions and ``summary`` read.

A :class:`MessageView` wraps a browsed :class:`~mqconsole.mq.message.Message` and its position
on the queue. It parses lazily and leniently: the dead-letter header only when someone asks
for the reason or destination, the header chain and payload only for the row's preview, the
text or ``show``; decoding the payload text only when asked. Nothing in this class raises on
bad message bytes: a malformed header becomes ``header_error`` and the fields it would have
given are missing (``None``).

Browse row (``row()``), the JSON of ``mqconsole browse --json``::

    {"position", "msgid", "token", "correlid", "put_time", "format", "persistence", "priority",
     "backout_count", "length", "user", "put_appl_name",
     "dlh": null | {"reason", "reason_name", "dest_q", "dest_qmgr", "format",
                    "put_appl_name", "put_time"},   # reason_name null: MQ has no name
     "preview"}

- ids are upper-case hex; times ISO 8601 UTC with milliseconds (``2026-09-22T02:34:28.280Z``),
  ``null`` when the descriptor's PutDate/PutTime are not a time;
- ``format`` is the MQMD Format without padding (``MQDEAD``, ``MQSTR``, ``""`` for none);
- ``persistence`` is a name without the ``MQPER_`` prefix: ``PERSISTENT``,
  ``NOT_PERSISTENT``, ``PERSISTENCE_AS_Q_DEF``, or ``UNKNOWN_<n>``;
- ``length`` is the length of the whole body (headers included), in bytes;
- ``preview`` is one line of safe text from the *payload* (after all headers).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from mqconsole.mq import chain as _chain
from mqconsole.mq import payload as _payload
from mqconsole.mq._generated_constants import MQMF, MQRO
from mqconsole.mq.facts import destination_label, strip_field
from mqconsole.mq.message import Message
from mqconsole.mq.names import (
    appl_type_name,
    feedback_name,
    format_name,
    known_reason_name,
    msg_type_name,
    persistence_name,
    reason_name,
)

from .timefmt import add_seconds, age_seconds, iso_utc, parse_put_datetime, utcnow

__all__ = ["PREVIEW_WIDTH", "MessageView", "md_lines", "msg_flag_names",
           "report_option_names"]

PREVIEW_WIDTH = 60
_UNSET: Any = object()


def _short_persistence(code: int) -> str:
    name = persistence_name(code)
    return name[6:] if name.startswith("MQPER_") else name


# -- report options and message flags as names ------------------------------------------------

# Each family: its variants from most to least data (a "with full data" option includes the
# bits of "with data", which include the bits of the plain option).
_RO_FAMILIES = ("COA", "COD", "EXCEPTION", "EXPIRATION")
_RO_SINGLE = ("PAN", "NAN", "ACTIVITY", "PASS_CORREL_ID", "PASS_MSG_ID",
              "PASS_DISCARD_AND_EXPIRY", "DISCARD_MSG")


def report_option_names(report: int) -> list[str]:
    """The MQRO_ options set in a Report field, e.g. ``["MQRO_COA_WITH_DATA", "MQRO_PAN"]``.

    Options whose value is 0 (MQRO_NEW_MSG_ID, MQRO_DEAD_LETTER_Q, ...) are the defaults and
    are not listed; bits that are no known option are listed as ``UNKNOWN_0x<hex>``.
    """
    r = report & 0xFFFFFFFF
    names: list[str] = []
    used = 0
    for fam in _RO_FAMILIES:
        for suffix in ("_WITH_FULL_DATA", "_WITH_DATA", ""):
            value = MQRO.get(f"MQRO_{fam}{suffix}", 0)
            if value and r & value == value:
                names.append(f"MQRO_{fam}{suffix}")
                used |= value
                break
    for single in _RO_SINGLE:
        value = MQRO.get(f"MQRO_{single}", 0)
        if value and r & value == value:
            names.append(f"MQRO_{single}")
            used |= value
    rest = r & ~used
    if rest:
        names.append(f"UNKNOWN_0x{rest:X}")
    return names


def msg_flag_names(flags: int) -> list[str]:
    """The MQMF_ flags set in MsgFlags (``MQMF_MSG_IN_GROUP``, ``MQMF_SEGMENT``, ...)."""
    f = flags & 0xFFFFFFFF
    names: list[str] = []
    used = 0
    for name in ("MQMF_SEGMENTATION_ALLOWED", "MQMF_SEGMENT", "MQMF_LAST_SEGMENT",
                 "MQMF_MSG_IN_GROUP", "MQMF_LAST_MSG_IN_GROUP"):
        value = MQMF.get(name, 0)
        if value and f & value == value:
            names.append(name)
            used |= value
    rest = f & ~used
    if rest:
        names.append(f"UNKNOWN_0x{rest:X}")
    return names


class MessageView:
    """A browsed message at a position, with everything the console shows about it.

    ``now`` is the reference time for ages (default: the time the view was made); pass one
    ``now`` to every view of a browse so that ages agree with each other.
    """

    __slots__ = ("_decoded", "_dlh", "_dlh_error", "_parsed", "_put_dt", "message", "now",
                 "position")

    def __init__(self, position: int, message: Message, now: datetime | None = None) -> None:
        self.position = position
        self.message = message
        self.now = utcnow() if now is None else now
        self._dlh: Any = _UNSET
        self._dlh_error: str | None = None
        self._parsed: Any = _UNSET
        self._decoded: Any = _UNSET
        self._put_dt: Any = _UNSET

    def __repr__(self) -> str:
        return f"MessageView(position={self.position}, msgid={self.msgid})"

    # -- descriptor fields ---------------------------------------------------------------------
    @property
    def md(self):
        return self.message.md

    @property
    def msgid(self) -> str:
        return bytes(self.md.msg_id).hex().upper()

    @property
    def correlid(self) -> str:
        return bytes(self.md.correl_id).hex().upper()

    @property
    def format(self) -> str:
        """MQMD Format without padding (``MQDEAD``, ``MQSTR``; ``""`` for MQFMT_NONE)."""
        return strip_field(self.md.format)

    @property
    def persistence(self) -> int:
        return self.md.persistence

    @property
    def persistence_name(self) -> str:
        return _short_persistence(self.md.persistence)

    @property
    def priority(self) -> int:
        return self.md.priority

    @property
    def backout_count(self) -> int:
        return self.md.backout_count

    @property
    def msg_type(self) -> int:
        return self.md.msg_type

    @property
    def feedback(self) -> int:
        return self.md.feedback

    @property
    def expiry(self) -> int:
        return self.md.expiry

    @property
    def ccsid(self) -> int:
        return self.md.ccsid

    @property
    def encoding(self) -> int:
        return self.md.encoding

    @property
    def user(self) -> str:
        return strip_field(self.md.user_identifier)

    @property
    def put_appl_name(self) -> str:
        return strip_field(self.md.put_appl_name)

    @property
    def put_appl_type(self) -> int:
        return self.md.put_appl_type

    @property
    def reply_to_q(self) -> str:
        return strip_field(self.md.reply_to_q)

    @property
    def reply_to_qmgr(self) -> str:
        return strip_field(self.md.reply_to_qmgr)

    @property
    def length(self) -> int:
        """Length of the whole body (headers included), in bytes."""
        return len(self.message.body)

    @property
    def put_datetime(self) -> datetime | None:
        if self._put_dt is _UNSET:
            self._put_dt = parse_put_datetime(self.md.put_date, self.md.put_time)
        return self._put_dt

    @property
    def put_time(self) -> str | None:
        """The put time in ISO 8601 UTC, or None when PutDate/PutTime are not a time."""
        return iso_utc(self.put_datetime)

    @property
    def age_seconds(self) -> float | None:
        return age_seconds(self.put_datetime, self.now)

    @property
    def dlh_put_datetime(self) -> datetime | None:
        """The dead-letter header's put time; None without a DLH or when it is not a time."""
        d = self.dlh
        return None if d is None else parse_put_datetime(d.put_date, d.put_time)

    @property
    def arrival_datetime(self) -> datetime | None:
        """When the message reached this queue: the dead-letter header's put time, else the
        MQMD's (the audit's arrival, from which its report counts ages)."""
        dlh_time = self.dlh_put_datetime
        return dlh_time if dlh_time is not None else self.put_datetime

    # -- the dead-letter header --------------------------------------------------------------
    @property
    def dlh(self):
        """The MQDLH at the start of the body, or None (no DLH, or a malformed one)."""
        if self._dlh is _UNSET:
            try:  # None when Format is not MQDEAD or the header is malformed
                self._dlh = _chain.dead_letter_header(self.md, self.message.body)
            except Exception as exc:  # never raise on bad message bytes
                self._dlh = None
                self._dlh_error = str(exc) or type(exc).__name__
        return self._dlh

    @property
    def reason(self) -> int | None:
        """The dead-letter reason (an MQRC_ or MQFB_ code), None without a DLH."""
        d = self.dlh
        return None if d is None else d.reason

    @property
    def reason_name(self) -> str | None:
        r = self.reason
        return None if r is None else reason_name(r)

    @property
    def dest_q(self) -> str | None:
        d = self.dlh
        return None if d is None else strip_field(d.dest_q_name)

    @property
    def dest_qmgr(self) -> str | None:
        d = self.dlh
        return None if d is None else strip_field(d.dest_qmgr_name)

    def destination(self, local_qmgr: str | None = None) -> str | None:
        """Where the dead-letter header says the message was going: ``QUEUE``, or
        ``QUEUE@QMGR`` when that is another queue manager than ``local_qmgr`` (a local
        queue of the same name is another queue), as resubmit labels it."""
        return destination_label(self.dest_q, self.dest_qmgr, local_qmgr)

    @property
    def dlh_format(self) -> str | None:
        d = self.dlh
        return None if d is None else strip_field(d.format)

    @property
    def dlh_put_appl_name(self) -> str | None:
        d = self.dlh
        return None if d is None else strip_field(d.put_appl_name)

    @property
    def dlh_put_time(self) -> str | None:
        d = self.dlh
        return None if d is None else iso_utc(parse_put_datetime(d.put_date, d.put_time))

    @property
    def original_format(self) -> str:
        """The format of what the dead-letter header carries, else the MQMD Format."""
        f = self.dlh_format
        return self.format if f is None else f

    # -- the header chain and the payload ------------------------------------------------------
    @property
    def parsed(self):
        """The header chain (``mq.chain.ParsedBody``), parsed leniently; None if that failed."""
        if self._parsed is _UNSET:
            dlh = self._dlh if self._dlh is not _UNSET else None  # read once, not twice
            try:
                self._parsed = _chain.parse_body_lenient(self.md, self.message.body, dlh=dlh)
            except Exception:  # parse_body_lenient should not raise; be sure
                self._parsed = None
        return self._parsed

    @property
    def header_error(self) -> str | None:
        """Why a header could not be parsed, or None when the chain parsed cleanly."""
        p = self.parsed
        err = getattr(p, "error", None) if p is not None else "the header chain could not be parsed"
        if err is None and self.dlh is None and self._dlh_error:
            err = self._dlh_error
        return None if err is None else str(err)

    @property
    def headers(self) -> list:
        p = self.parsed
        return list(getattr(p, "headers", None) or []) if p is not None else []

    @property
    def payload(self) -> bytes:
        """The bytes after the last header that parsed (the whole body when none did)."""
        p = self.parsed
        data = getattr(p, "payload", None) if p is not None else None
        return self.message.body if data is None else bytes(data)

    @property
    def payload_format(self) -> str:
        p = self.parsed
        fmt = getattr(p, "format", None) if p is not None else None
        return strip_field(self.md.format if fmt is None else fmt)

    @property
    def payload_ccsid(self) -> int:
        p = self.parsed
        v = getattr(p, "ccsid", None) if p is not None else None
        return self.md.ccsid if v is None else v

    @property
    def payload_encoding(self) -> int:
        p = self.parsed
        v = getattr(p, "encoding", None) if p is not None else None
        return self.md.encoding if v is None else v

    @property
    def payload_offset(self) -> int:
        p = self.parsed
        v = getattr(p, "payload_offset", None) if p is not None else None
        return 0 if v is None else v

    @property
    def decoded(self):
        """``mq.payload.DecodedText`` of the payload (None if decoding itself failed)."""
        if self._decoded is _UNSET:
            try:
                self._decoded = _payload.decode_text(self.payload, self.payload_ccsid,
                                                     self._payload_format_padded(),
                                                     encoding=self.payload_encoding)
            except Exception:
                self._decoded = None
        return self._decoded

    @property
    def text(self) -> str | None:
        """The whole payload decoded as text by its CCSID, or None when it is not text."""
        d = self.decoded
        return None if d is None else getattr(d, "text", None)

    @property
    def preview(self) -> str:
        """One line of safe text from the payload, at most ``PREVIEW_WIDTH`` characters."""
        try:
            return _payload.preview(self.payload, self.payload_ccsid,
                                    self._payload_format_padded(), width=PREVIEW_WIDTH,
                                    encoding=self.payload_encoding)
        except Exception:
            return ""

    def _payload_format_padded(self) -> str:
        return self.payload_format.ljust(8)

    # -- the JSON views ----------------------------------------------------------------------
    def dlh_dict(self) -> dict[str, Any] | None:
        d = self.dlh
        if d is None:
            return None
        return {
            "reason": d.reason,
            "reason_name": known_reason_name(d.reason),  # null: MQ has no name (as summary)
            "dest_q": strip_field(d.dest_q_name),
            "dest_qmgr": strip_field(d.dest_qmgr_name),
            "format": strip_field(d.format),
            "put_appl_name": strip_field(d.put_appl_name),
            "put_time": iso_utc(parse_put_datetime(d.put_date, d.put_time)),
        }

    def row(self) -> dict[str, Any]:
        """The browse row: exactly the keys of ``mqconsole browse --json``."""
        return {
            "position": self.position,
            "msgid": self.msgid,
            "token": self.message.token.hex().upper() if self.message.token else None,
            "correlid": self.correlid,
            "put_time": self.put_time,
            "format": self.format,
            "persistence": self.persistence_name,
            "priority": self.priority,
            "backout_count": self.backout_count,
            "length": self.length,
            "user": self.user,
            "put_appl_name": self.put_appl_name,
            "dlh": self.dlh_dict(),
            "preview": self.preview,
        }

    def expiry_info(self) -> dict[str, Any]:
        """Expiry as MQ reports it on a browse: the time *remaining*, in tenths of a second."""
        e = self.md.expiry
        if e < 0:
            return {"ExpiryUnlimited": True, "ExpiryRemainingSeconds": None, "ExpiresAt": None}
        remaining = e / 10.0
        return {"ExpiryUnlimited": False, "ExpiryRemainingSeconds": remaining,
                "ExpiresAt": iso_utc(add_seconds(self.now, remaining))}

    def md_dict(self) -> dict[str, Any]:
        md = self.md
        out: dict[str, Any] = dict(md.as_mq_dict())
        out["MsgTypeName"] = msg_type_name(md.msg_type)
        out["ReportOptions"] = report_option_names(md.report)
        out["FeedbackName"] = feedback_name(md.feedback)
        out["EncodingByteOrder"] = "big-endian" if (md.encoding & 0x0F) == 1 else "little-endian"
        out["FormatName"] = format_name(md.format)
        out["PersistenceName"] = persistence_name(md.persistence)
        out["PutApplTypeName"] = appl_type_name(md.put_appl_type)
        out["PutDateTime"] = self.put_time
        out["AgeSeconds"] = self.age_seconds
        out.update(self.expiry_info())
        if md.version >= 2:
            out["MsgFlagNames"] = msg_flag_names(md.msg_flags)
        return out

    def show(self) -> dict[str, Any]:
        """Everything about the message: ``mqconsole show --json``."""
        headers: list[dict[str, Any]] = []
        for h in self.headers:
            try:
                headers.append(h.to_dict())
            except Exception as exc:  # a header that cannot describe itself still shows
                headers.append({"type": type(h).__name__, "error": str(exc)})
        data = self.payload
        d = self.decoded
        kind = self._kind(data, d)
        out: dict[str, Any] = {
            "position": self.position,
            "md": self.md_dict(),
            "headers": headers,
            "payload": {
                "format": self.payload_format,
                "ccsid": self.payload_ccsid,
                "encoding": self.payload_encoding,
                "offset": self.payload_offset,
                "length": len(data),
                "kind": kind,
                "codec": getattr(d, "codec", None) if d is not None else None,
                "text": getattr(d, "text", None) if d is not None else None,
                "note": getattr(d, "note", None) if d is not None else None,
                "hex": data.hex().upper(),
            },
        }
        err = self.header_error
        if err is not None:
            out["header_error"] = err
        full = getattr(self.message, "truncated_from", None)
        if full is not None:  # a preview over a channel whose MAXMSGL is smaller
            out["truncated"] = {
                "length": full, "shown": len(self.message.body),
                "note": f"only the first {len(self.message.body)} of its {full} bytes come "
                        "over this channel (its MAXMSGL is smaller): it cannot be moved, "
                        "saved or deleted over this channel"}
        return out

    def _kind(self, data: bytes, decoded: Any) -> str:
        text = getattr(decoded, "text", None) if decoded is not None else None
        try:
            k = _payload.kind_of(data, self._payload_format_padded(), text)
            if isinstance(k, str):
                return k
        except Exception:
            pass
        return "binary" if text is None else "text"


# MQMD fields shown by name first, the number after it: field -> the md_dict key naming it
NAMED_FIELDS = {"Report": "ReportOptions", "MsgType": "MsgTypeName",
                "Feedback": "FeedbackName", "Persistence": "PersistenceName",
                "PutApplType": "PutApplTypeName", "MsgFlags": "MsgFlagNames"}


def field_text(v: Any) -> str:
    """A header field's value for a person: bytes in hex, a list joined, nothing as '-'."""
    if isinstance(v, bytes | bytearray):
        return bytes(v).hex().upper()
    if isinstance(v, list):
        return ", ".join(str(x) for x in v) if v else "-"
    if v is None:
        return "-"
    return str(v)


def md_lines(md: dict[str, Any]) -> list[tuple[str, str]]:
    """``md_dict`` for a person, in both faces (the console's MQMD tab, ``show``): a field
    with a name says the name before the number (``MsgType  MQMT_DATAGRAM (8)``), and
    the name's own line is not repeated."""
    names = set(NAMED_FIELDS.values())
    rows = []
    for field, value in md.items():
        if field in names:
            continue
        named = md.get(NAMED_FIELDS.get(field, ""))
        if named not in (None, "", []) and not isinstance(value, bytes | bytearray):
            rows.append((field, f"{field_text(named)} ({field_text(value)})"))
        else:
            rows.append((field, field_text(value)))
    return rows
