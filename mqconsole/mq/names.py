"""Names for MQ's coded values: reason and feedback codes, formats, message types,
persistence, put application types.

The numbers come from IBM's CMQC (generated into ``_generated_constants``, cross-checked
by a test); this module only chooses which name to show when several share a value.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache

from . import _generated_constants as g

# When several CMQC names share one value, show the one an operator knows.
_PREFERRED = {
    "MQAT_UNIX", "MQAT_ZOS", "MQAT_WINDOWS_NT", "MQAT_QMGR_PUBLISH", "MQAT_NSK",
    "MQFMT_RF_HEADER_1", "MQRC_Q_MGR_NOT_AVAILABLE",
}


def _invert(table: Mapping[str, int | str], prefix: str) -> dict[int | str, str]:
    out: dict[int | str, str] = {}
    for name, value in table.items():
        short = name[len(prefix):]
        if value not in out or name in _PREFERRED:
            out[value] = short
    return out


def _codes(table: dict[str, int]) -> dict[str, int]:
    """A family without its range markers (``MQFB_APPL_FIRST`` is a bound, not a code)."""
    return {k: v for k, v in table.items() if not k.endswith(("_FIRST", "_LAST"))}


REASONS = _invert(_codes(g.MQRC), "MQRC_")
FEEDBACKS = _invert(_codes(g.MQFB), "MQFB_")
FORMATS = _invert(g.MQFMT, "MQFMT_")
MSG_TYPES = _invert(_codes(g.MQMT), "MQMT_")
PERSISTENCES = _invert(g.MQPER, "MQPER_")
APPL_TYPES = _invert(_codes(g.MQAT), "MQAT_")

# Reason and feedback codes by name (short, without MQRC_/MQFB_), for expressions.
REASON_BY_NAME: dict[str, int] = {k[5:]: v for k, v in g.MQRC.items()}
FEEDBACK_BY_NAME: dict[str, int] = {k[5:]: v for k, v in g.MQFB.items()}


def reason_name(code: int) -> str:
    """``2053`` → ``MQRC_Q_FULL``; feedback codes (as on a dead-letter header) → ``MQFB_*``."""
    if code in REASONS and code != 0:
        return "MQRC_" + REASONS[code]
    if code in FEEDBACKS and code != 0:
        return "MQFB_" + FEEDBACKS[code]
    if code == 0:
        return "MQRC_NONE"
    if 301 <= code <= 399:
        return f"MQFB_IMS_{code - 300}"
    if 900 <= code <= 999:  # MQRC_APPL_FIRST..MQRC_APPL_LAST
        return f"MQRC_APPL_{code}"
    if code >= 65536:
        return f"MQFB_APPL_{code}"
    return f"UNKNOWN_{code}"


def known_reason_name(code: int) -> str | None:
    """MQ's name for a reason or feedback code (as :func:`reason_name`), None for a number
    MQ has no name for (never the made-up ``UNKNOWN_65535``)."""
    name = reason_name(code)
    return None if name.startswith("UNKNOWN_") else name


def reason_label(code: int | None, *, none: str = "(no dead-letter header)") -> str:
    """The one way a reason is said for a person, in every face: MQ's name and the number,
    ``MQRC_Q_FULL (2053)``; a number MQ has no name for alone, ``65535`` (as ``mqrc`` and
    the AMQ messages give it); ``none`` when there is no reason."""
    if code is None:
        return none
    name = known_reason_name(code)
    return f"{name} ({code})" if name else str(code)


def feedback_name(code: int) -> str:
    if code == 0:
        return "MQFB_NONE"
    if code in FEEDBACKS:
        return "MQFB_" + FEEDBACKS[code]
    if 301 <= code <= 399:
        return f"MQFB_IMS_{code - 300}"
    if code >= 65536:
        return f"MQFB_APPL_{code}"
    if code in REASONS:
        return "MQRC_" + REASONS[code]
    return f"UNKNOWN_{code}"


def format_name(fmt: str) -> str:
    """``'MQSTR   '`` → ``MQFMT_STRING``; an unknown (application) format is shown as itself."""
    key = fmt.rstrip(" \x00").ljust(8)[:8]
    if key in FORMATS:
        return "MQFMT_" + FORMATS[key]
    return fmt.rstrip(" \x00")


def format_by_text(text: str) -> str:
    """``MQSTR``, ``STRING``, ``MQFMT_STRING`` (any case) or any application format of at
    most 8 characters, as the MQMD's 8-character Format; ValueError names a longer one."""
    t = text.strip()
    up = t.upper()
    for key in (up, "MQFMT_" + up):
        if key in g.MQFMT:
            return str(g.MQFMT[key])
    if len(t) > 8:
        raise ValueError(f"format {text!r} is longer than 8 characters")
    return t.ljust(8)


def msg_type_name(code: int) -> str:
    return "MQMT_" + MSG_TYPES[code] if code in MSG_TYPES else f"APPL_{code}"


def persistence_name(code: int) -> str:
    return "MQPER_" + PERSISTENCES[code] if code in PERSISTENCES else f"UNKNOWN_{code}"


def appl_type_name(code: int) -> str:
    if code in APPL_TYPES:
        return "MQAT_" + APPL_TYPES[code]
    if code >= 65536:
        return f"MQAT_USER_{code}"
    return f"UNKNOWN_{code}"


@cache
def reason_by_text(text: str) -> int | None:
    """Resolve ``2053``, ``Q_FULL``, ``MQRC_Q_FULL``, ``MQFB_EXPIRATION`` (any case) to a code."""
    t = text.strip().upper()
    if t.lstrip("-").isdigit():
        return int(t)
    if t.startswith("MQRC_"):
        return REASON_BY_NAME.get(t[5:])
    if t.startswith("MQFB_"):
        return FEEDBACK_BY_NAME.get(t[5:])
    return REASON_BY_NAME.get(t, FEEDBACK_BY_NAME.get(t))
