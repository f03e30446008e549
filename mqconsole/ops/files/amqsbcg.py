"""Parse the output of IBM's amqsbcg browse sample into messages.

amqsbcg (``samples/c/amqsbcg0.c``) prints, per message::

     MQGET of message number 1, CompCode:0 Reason:0
    ****Message descriptor****

      StrucId  : 'MD  '  Version : 2
      Report   : 0  MsgType : 8
      ...
      MsgId : X'414D5120514D312020202020202020203F8EA85D1EA66A20'
      ...
      AccountingToken :
       X'0000000000000000000000000000000000000000000000000000000000000000'
      ...
      OriginalLength : '-1'

    ****   Message      ****

     length - 174 of 174 bytes

    00000000:  5246 4820 0000 0002 0000 009C 0000 0111           'RFH ............'

Older versions print ``length - 15 bytes`` and no CompCode. Text fields are printed with
``%.*s`` (raw bytes, cut at the first NUL: a shorter value is padded back with NULs). Newer
versions (9.4) print a ``****Dead Letter Header****`` section and dump only the data after
the header: the header is rebuilt from the printed fields so that the body is whole again.
With property option 1 amqsbcg prints ``****Message properties****``: those properties are
not in the body and cannot be loaded (a warning says so). A message amqsbcg truncated
(``length - 65536 of 100000 bytes``) is an error: its body is not in the file.
"""

from __future__ import annotations

import re
import struct
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Protocol

from mqconsole.mq.dlh import MQDLH
from mqconsole.mq.md import MQMD, is_big_endian
from mqconsole.mq.message import Message
from mqconsole.ops.words import agree, counted

from .common import MQLONG_MAX, MQLONG_MIN

if TYPE_CHECKING:
    from .common import DmpFileInfo
    from .lines import Lines


class DmpReader(Protocol):
    """What this parser uses of :class:`~.reader.DmpReader` (the reader imports this module)."""

    lines: Lines
    info: DmpFileInfo
    warnings: list[str]

# amqsbcg label → (attribute, kind, length); kind "i" integer, "c" quoted text, "x" X'hex'
MD_LABELS: dict[str, tuple[str, str, int]] = {
    "StrucId": ("struc_id", "c", 4),
    "Version": ("version", "i", 4),
    "Report": ("report", "i", 4),
    "MsgType": ("msg_type", "i", 4),
    "Expiry": ("expiry", "i", 4),
    "Feedback": ("feedback", "i", 4),
    "Encoding": ("encoding", "i", 4),
    "CodedCharSetId": ("ccsid", "i", 4),
    "Format": ("format", "c", 8),
    "Priority": ("priority", "i", 4),
    "Persistence": ("persistence", "i", 4),
    "MsgId": ("msg_id", "x", 24),
    "CorrelId": ("correl_id", "x", 24),
    "BackoutCount": ("backout_count", "i", 4),
    "ReplyToQ": ("reply_to_q", "c", 48),
    "ReplyToQMgr": ("reply_to_qmgr", "c", 48),
    "UserIdentifier": ("user_identifier", "c", 12),
    "AccountingToken": ("accounting_token", "x", 32),
    "ApplIdentityData": ("appl_identity_data", "c", 32),
    "PutApplType": ("put_appl_type", "i", 4),
    "PutApplName": ("put_appl_name", "c", 28),
    "PutDate": ("put_date", "c", 8),
    "PutTime": ("put_time", "c", 8),
    "ApplOriginData": ("appl_origin_data", "c", 4),
    "GroupId": ("group_id", "x", 24),
    "MsgSeqNumber": ("msg_seq_number", "i", 4),
    "Offset": ("offset", "i", 4),
    "MsgFlags": ("msg_flags", "i", 4),
    "OriginalLength": ("original_length", "i", 4),
}
DLH_LABELS: dict[str, tuple[str, str, int]] = {
    "StrucId": ("struc_id", "c", 4),
    "Version": ("version", "i", 4),
    "Reason": ("reason", "i", 4),
    "DestQName": ("dest_q_name", "c", 48),
    "DestQMgrName": ("dest_qmgr_name", "c", 48),
    "Encoding": ("encoding", "i", 4),
    "CodedCharSetId": ("ccsid", "i", 4),
    "Format": ("format", "c", 8),
    "PutApplType": ("put_appl_type", "i", 4),
    "PutApplName": ("put_appl_name", "c", 28),
    "PutDate": ("put_date", "c", 8),
    "PutTime": ("put_time", "c", 8),
}

_GET = re.compile(r"MQGET of message number\s+(\d+)")
_GET_FAILED = re.compile(r"MQGET\s+(\d+),\s*failed with CompCode:\s*(-?\d+)\s+Reason:\s*(-?\d+)")
_OPEN = re.compile(r"MQOPEN - '(.*)'\s*$")
_BROWSED = re.compile(r"(\d+) messages browsed\.")
_SECTION = re.compile(r"\*{4}\s*(.*?)\s*\*{4}\s*$")
_LABEL = re.compile(r"([A-Za-z][A-Za-z0-9]*)\s*:")
_CONTINUES = re.compile(r"\s*$|\s+[A-Za-z][A-Za-z0-9]*\s*:")
_INT = re.compile(r"'?([+-]?[0-9]+)'?")
_REASON_TEXT = re.compile(r"\s*\[[^\]]*\]")
_HEX = re.compile(r"X'([0-9A-Fa-f]*)'")
_LENGTH = re.compile(r"length\s*-\s*(\d+)(?:\s+of\s+(\d+))?\s+bytes")
_DUMP = re.compile(r"\s*([0-9A-Fa-f]{8}):(.*)$")
_HEX_TOKEN = re.compile(r"(?:[0-9A-Fa-f]{2})+")


def read_preamble(reader: DmpReader) -> None:
    """After ``AMQSBCG0 - starts here``: the queue (``MQOPEN - 'Q'``), up to the first message."""
    for item in reader.lines:
        s = item[1].strip()
        if _GET.match(s) or s.startswith("****Message descriptor"):
            reader.lines.push_back(item)
            return
        if (m := _OPEN.match(s)) and reader.info.queue is None:
            reader.info.queue = m.group(1).rstrip(" \x00") or None


def iter_amqsbcg(reader: DmpReader) -> Iterator[Message]:
    lines = reader.lines
    pending_get: int | None = None
    count = 0
    for number, text in lines:
        s = text.strip()
        if not s:
            continue
        if _GET.match(s):
            if pending_get is not None:
                raise lines.error(pending_get, "'MQGET of message number' is not followed by "
                                               "a message descriptor")
            pending_get = number
            continue
        section = _SECTION.match(s)
        title = section.group(1).strip("* ").lower() if section else None
        if title == "message descriptor":
            count += 1
            yield _message(reader, count)
            pending_get = None
            continue
        if title is not None and title not in ("summary", ""):
            raise lines.error(number, f"section {s!r} outside a message")
        if _DUMP.match(text):
            raise lines.error(number, "a data dump line outside a message")
        if m := _BROWSED.match(s):
            if int(m.group(1)) != count:
                said = int(m.group(1))
                raise lines.error(number, f"amqsbcg says {counted(said)} "
                                          f"{agree(said, 'was', 'were')} browsed "
                                          f"but the file holds {count}")
            continue
        if m := _GET_FAILED.match(s):
            reader.warnings.append(f"amqsbcg stopped at message {m.group(1)}: its MQGET "
                                   f"failed with reason {m.group(3)}, so the file does not "
                                   "hold the rest of the queue")
        # anything else is amqsbcg's own chatter (MQOPEN, No more messages, MQCLOSE, …)
    if pending_get is not None:
        raise lines.error(pending_get, "'MQGET of message number' is not followed by a "
                                       "message descriptor")


def _message(reader: DmpReader, ordinal: int) -> Message:
    lines = reader.lines
    md_values, nxt = _fields(lines, MD_LABELS, "message descriptor")
    md = MQMD()
    for attr, value in md_values.items():
        if attr != "struc_id":
            setattr(md, attr, value)
    dlh_values: dict[str, object] | None = None
    dlh_line = 0
    while True:
        number, text = nxt
        name = _SECTION.match(text.strip())
        title = name.group(1).strip("* ").lower() if name else ""
        if title == "message properties":
            nxt = _properties(reader, ordinal)
        elif title == "dead letter header":
            dlh_line = number
            dlh_values, nxt = _fields(lines, DLH_LABELS, "dead-letter header")
        elif title == "message":
            break
        else:
            raise lines.error(number, f"expected the '****   Message      ****' section, "
                                      f"found {text.strip()!r}")
    body = _dump(lines, number)
    if dlh_values is not None:
        body = _rebuild_dlh(lines, dlh_line, md, dlh_values) + body
    return Message(md, body)


def _properties(reader: DmpReader, ordinal: int) -> tuple[int, str]:
    """Skip a ``Message properties`` section; warn when it lists any property."""
    listed = False
    for number, text in reader.lines:
        s = text.strip()
        if s.startswith("****"):
            if listed:
                reader.warnings.append(f"message {ordinal}: amqsbcg printed message "
                                       "properties apart from the body; they are not loaded")
            return number, text
        if s and s != "None":
            listed = True
    raise reader.lines.error(reader.lines.number, "amqsbcg output ends inside the message "
                                                  "properties")


def _fields(lines: Lines, labels: dict[str, tuple[str, str, int]],
            what: str) -> tuple[dict[str, object], tuple[int, str]]:
    """``Label : value`` pairs up to the next ``****`` line (returned too)."""
    values: dict[str, object] = {}
    pending: str | None = None
    for number, text in lines:
        if text.lstrip().startswith("****"):
            if pending is not None:
                raise lines.error(number, f"amqsbcg field {pending} has no value")
            return values, (number, text)
        pos = 0
        while True:
            while pos < len(text) and text[pos] in " \t":
                pos += 1
            if pos >= len(text):
                break
            if pending is None:
                if text.startswith("**", pos):
                    break  # "** Identity Context"
                m = _LABEL.match(text, pos)
                if m is None:
                    raise lines.error(number, f"cannot read amqsbcg {what} line "
                                              f"{text.strip()[:40]!r}: expected 'Name : value'")
                pending = m.group(1)
                if pending not in labels:
                    raise lines.error(number, f"unknown amqsbcg field {pending!r}")
                pos = m.end()
                continue
            attr, kind, length = labels[pending]
            values[attr], pos = _value(lines, number, text, pos, pending, kind, length)
            pending = None
    raise lines.error(lines.number, f"amqsbcg output ends inside a {what}")


def _value(lines: Lines, number: int, text: str, pos: int, label: str, kind: str,
           length: int) -> tuple[object, int]:
    if kind == "i":
        m = _INT.match(text, pos)
        if m is None:
            raise lines.error(number, f"amqsbcg field {label} is not a whole number")
        n = int(m.group(1))
        if not MQLONG_MIN <= n <= MQLONG_MAX:
            raise lines.error(number, f"amqsbcg field {label} value {n} does not fit in a "
                                      "32-bit MQLONG")
        end = m.end()
        if label == "Reason" and (r := _REASON_TEXT.match(text, end)):
            end = r.end()
        return n, end
    if kind == "x":
        m = _HEX.match(text, pos)
        if m is None or len(m.group(1)) % 2:
            raise lines.error(number, f"amqsbcg field {label} is not X'<hex>'")
        return bytes.fromhex(m.group(1))[:length].ljust(length, b"\x00"), m.end()
    # quoted text printed with %.*s: find the closing quote that the line's layout allows
    if text[pos:pos + 1] != "'":
        raise lines.error(number, f"amqsbcg field {label} is not a quoted value")
    start = pos + 1
    ends = [i for i in range(start, len(text)) if text[i] == "'"
            and _CONTINUES.match(text, i + 1)]
    if not ends:
        raise lines.error(number, f"amqsbcg field {label} has no closing quote")
    exact = [i for i in ends if i - start == length]
    shorter = [i for i in ends if i - start < length]
    end = exact[0] if exact else (shorter[-1] if shorter else ends[0])
    value = text[start:end][:length]
    # %.*s stops at a NUL: what is missing was NULs
    return value.ljust(length, "\x00"), end + 1


def _dump(lines: Lines, section_line: int) -> bytes:
    expected: int | None = None
    total: int | None = None
    length_line = section_line
    for number, text in lines:
        s = text.strip()
        if not s:
            continue
        m = _LENGTH.fullmatch(s)
        if m is None:
            raise lines.error(number, f"expected amqsbcg's 'length - N bytes' line, found "
                                      f"{s[:40]!r}")
        expected = int(m.group(1))
        total = int(m.group(2)) if m.group(2) is not None else expected
        length_line = number
        break
    if expected is None or total is None:
        raise lines.error(lines.number, "amqsbcg output ends before the message data")
    if expected < total:
        raise lines.error(length_line, f"amqsbcg printed only {expected} of the message's "
                                       f"{total} bytes, so the message cannot be loaded")
    body = bytearray()
    for item in lines:
        number, text = item
        if not text.strip():
            continue
        m = _DUMP.match(text)
        if m is None:
            lines.push_back(item)
            break
        offset = int(m.group(1), 16)
        if offset != len(body):
            raise lines.error(number, f"dump line at offset {m.group(1)} does not follow the "
                                      f"previous one (expected {len(body):08X})")
        for token in m.group(2).split():
            if token.startswith("'"):
                break  # the character column
            if not _HEX_TOKEN.fullmatch(token):
                raise lines.error(number, f"badly formed hex {token[:20]!r} in the data dump")
            body += bytes.fromhex(token)
    if len(body) != expected:
        raise lines.error(length_line, f"the data dump holds {len(body)} bytes but amqsbcg "
                                       f"says the message has {expected}")
    return bytes(body)


def _rebuild_dlh(lines: Lines, number: int, md: MQMD, values: dict[str, object]) -> bytes:
    """The 172 header bytes amqsbcg printed as fields (and left out of its dump).

    amqsbcg printed the header's integers in its own byte order; the header is in the MQMD
    Encoding's. A Version printed as 1 means they agree, 16777216 that they differ; the
    integers go back in the byte order that reproduces the bytes amqsbcg saw.
    """
    version = values.get("version", 1)
    data_big = is_big_endian(md.encoding) if md.encoding & 0x0F in (1, 2) else False
    if version == 1:
        printed_big = data_big
    elif version == 0x01000000:
        printed_big = not data_big
    else:
        raise lines.error(number, f"dead-letter header Version {version} is not 1")
    kw: dict[str, Any] = {k: v for k, v in values.items() if k != "struc_id"}
    try:
        return MQDLH(**kw).pack(big_endian=printed_big, ccsid=819)
    except (struct.error, ValueError) as exc:
        raise lines.error(number, f"cannot rebuild the dead-letter header: {exc}") from None


__all__ = ["DLH_LABELS", "MD_LABELS", "iter_amqsbcg", "read_preamble"]
