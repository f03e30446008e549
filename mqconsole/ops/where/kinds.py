"""The kinds of ``--where`` fields: how a literal is read (and refused, in one sentence)
and what ``~`` matches against."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

from mqconsole.mq import names as _names
from mqconsole.mq._generated_constants import MQMT, MQPER

from ..timefmt import iso_utc, parse_duration, parse_iso

_SIZE_UNITS = {"": 1, "b": 1, "k": 1024, "kb": 1024, "kib": 1024, "m": 1024 ** 2,
               "mb": 1024 ** 2, "mib": 1024 ** 2, "g": 1024 ** 3, "gb": 1024 ** 3,
               "gib": 1024 ** 3}
_SIZE = re.compile(r"(\d+(?:\.\d*)?|\.\d+)\s*([a-z]*)")
_INT = re.compile(r"[+-]?\d+")
_HEX = re.compile(r"[0-9a-fA-F*?]*")


class BadLiteral(ValueError):
    """A literal that does not fit its field: becomes a WhereError at the literal."""


class Kind:
    """How a field's values are read from literals and compared."""

    name = "value"
    glob = False  # '*' in a = / != / in literal is a wildcard

    def parse(self, text: str, quoted: bool) -> Any:
        raise NotImplementedError

    def as_text(self, value: Any) -> str:
        """What ``~`` matches against."""
        return str(value)


class _IntKind(Kind):
    name = "integer"

    def parse(self, text: str, quoted: bool) -> Any:
        t = text.strip()
        if not _INT.fullmatch(t):
            raise BadLiteral(f"{text!r} is not a whole number")
        return int(t)


class _SizeKind(Kind):
    name = "size"

    def parse(self, text: str, quoted: bool) -> Any:
        m = _SIZE.fullmatch(text.strip().lower())
        if not m or m.group(2) not in _SIZE_UNITS:
            raise BadLiteral(f"{text!r} is not a size (write it like 512, 10k, 1.5m or 2MiB)")
        try:
            return int(float(m.group(1)) * _SIZE_UNITS[m.group(2)])
        except (ValueError, OverflowError):
            raise BadLiteral(f"{text!r} is not a size") from None


class _DurationKind(Kind):
    name = "duration"

    def parse(self, text: str, quoted: bool) -> Any:
        try:
            v = parse_duration(text)
        except ValueError as exc:
            raise BadLiteral(str(exc)) from None
        if math.isnan(v):
            raise BadLiteral(f"{text!r} is not a duration")
        return v


class _TimeKind(Kind):
    name = "date-time"

    def parse(self, text: str, quoted: bool) -> Any:
        try:
            return parse_iso(text)
        except ValueError as exc:
            raise BadLiteral(str(exc)) from None

    def as_text(self, value: Any) -> str:
        return iso_utc(value) or ""


class _BoolKind(Kind):
    name = "true or false"

    def parse(self, text: str, quoted: bool) -> Any:
        t = text.strip().lower()
        if t not in ("true", "false"):
            raise BadLiteral(f"{text!r} is not true or false")
        return t == "true"


class _FloatKind(Kind):
    name = "number"

    def parse(self, text: str, quoted: bool) -> Any:
        v = float(text.strip())
        if math.isnan(v):
            raise BadLiteral(f"{text!r} is not a number")
        return v


class _StrKind(Kind):
    name = "text"
    glob = True

    def parse(self, text: str, quoted: bool) -> Any:
        return text


class _HexKind(Kind):
    """Message and correlation ids: hex, compared without regard to case."""

    name = "hex id"
    glob = True

    def parse(self, text: str, quoted: bool) -> Any:
        t = text.strip()
        if t[:2].lower() == "0x":
            t = t[2:]
        if not _HEX.fullmatch(t):
            raise BadLiteral(
                f"{text!r} is not hexadecimal (ids are shown as hex, e.g. 414D5120...)")
        return t.upper()


class _CodeKind(Kind):
    """A coded MQ value (reason, persistence, ...): named or numbered; compared as numbers,
    matched by ``~`` against the full name (``MQRC_Q_FULL``)."""

    def __init__(self, name: str, lookup: Callable[[str], int | None],
                 to_name: Callable[[int], str], examples: str) -> None:
        self.name = name
        self._lookup = lookup
        self._to_name = to_name
        self._examples = examples

    def parse(self, text: str, quoted: bool) -> Any:
        t = text.strip()
        if _INT.fullmatch(t):
            return int(t)
        code = self._lookup(t)
        if code is None:
            raise BadLiteral(f"{text!r} is not a known {self.name} (for example {self._examples})")
        return code

    def as_text(self, value: Any) -> str:
        return self._to_name(value)


def _lookup_reason(t: str) -> int | None:
    try:
        return _names.reason_by_text(t)
    except Exception:
        return None


def _lookup_in(table: dict[str, int], prefix: str) -> Callable[[str], int | None]:
    by_name = {k[len(prefix):].upper(): v for k, v in table.items()}

    def look(t: str) -> int | None:
        u = t.strip().upper()
        if u.startswith(prefix):
            u = u[len(prefix):]
        return by_name.get(u)
    return look


def _lookup_feedback(t: str) -> int | None:
    u = t.strip().upper()
    if u.startswith("MQFB_"):
        u = u[5:]
    return _names.FEEDBACK_BY_NAME.get(u)


def _short_persistence(code: int) -> str:
    n = _names.persistence_name(code)
    return n[6:] if n.startswith("MQPER_") else n


INT = _IntKind()
SIZE = _SizeKind()
DURATION = _DurationKind()
TIME = _TimeKind()
STR = _StrKind()
HEX = _HexKind()
BOOL = _BoolKind()
FLOAT = _FloatKind()
REASON = _CodeKind("reason", _lookup_reason, _names.reason_name,
                   "Q_FULL, MQRC_Q_FULL, MQFB_EXPIRATION or 2053")
PERSISTENCE = _CodeKind("persistence", _lookup_in(MQPER, "MQPER_"), _short_persistence,
                        "PERSISTENT, NOT_PERSISTENT, 0 or 1")
MSG_TYPE = _CodeKind("message type", _lookup_in(MQMT, "MQMT_"), _names.msg_type_name,
                     "DATAGRAM, REQUEST, REPLY, REPORT or 8")
FEEDBACK = _CodeKind("feedback code", _lookup_feedback, _names.feedback_name,
                     "EXPIRATION, COA or 258")
