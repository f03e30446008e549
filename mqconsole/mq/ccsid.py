"""CCSIDs to Python codecs (EBCDIC included, via the ``ebcdic`` package for 1047 and friends)."""

from __future__ import annotations

import codecs
import contextlib

# registers cp1047, cp1140 ... as Python codecs; without it (a declared dependency) those
# CCSIDs have no codec and are shown as hex
with contextlib.suppress(ImportError):
    import ebcdic  # noqa: F401

# CCSID → Python codec name. Unknown CCSIDs have no codec: callers show hex and say so.
_CODECS: dict[int, str] = {
    367: "ascii", 437: "cp437", 819: "latin-1", 850: "cp850", 858: "cp858", 912: "iso8859-2",
    913: "iso8859-3", 915: "iso8859-5", 923: "iso8859-15", 1200: "utf-16-be", 1208: "utf-8",
    1250: "cp1250", 1251: "cp1251", 1252: "cp1252", 1253: "cp1253", 1254: "cp1254",
    1255: "cp1255", 1256: "cp1256", 1257: "cp1257", 1258: "cp1258", 1051: "hp-roman8",
    13488: "utf-16-be", 17584: "utf-16-be", 1232: "utf-32-be", 1233: "utf-32-le", 5348: "cp1252",
    4909: "iso8859-7", 813: "iso8859-7", 920: "iso8859-9", 954: "euc-jp", 943: "cp932",
    932: "cp932", 5488: "gb18030", 1386: "gbk", 1363: "cp949", 950: "big5", 1381: "gb2312",
    # EBCDIC
    37: "cp037", 273: "cp273", 277: "cp277", 278: "cp278", 280: "cp280", 284: "cp284",
    285: "cp285", 297: "cp297", 424: "cp424", 500: "cp500", 875: "cp875", 1026: "cp1026",
    1047: "cp1047", 1140: "cp1140", 1141: "cp1141", 1142: "cp1142", 1143: "cp1143",
    1144: "cp1144", 1145: "cp1145", 1146: "cp1146", 1147: "cp1147", 1148: "cp1148",
    1149: "cp1149",
}

EBCDIC_CCSIDS = frozenset({37, 273, 277, 278, 280, 284, 285, 297, 424, 500, 875, 1026, 1047,
                           1140, 1141, 1142, 1143, 1144, 1145, 1146, 1147, 1148, 1149})


def codec_for(ccsid: int) -> str | None:
    """The Python codec for a CCSID, or None when this machine has none for it."""
    name = _CODECS.get(ccsid)
    if name is None:
        return None
    try:
        codecs.lookup(name)
    except LookupError:
        return None
    return name


def is_ebcdic(ccsid: int) -> bool:
    return ccsid in EBCDIC_CCSIDS


def text_codec(ccsid: int) -> str:
    """Codec for MQCHAR fields of a structure: its CCSID's, else latin-1 (lossless for bytes).

    CCSID 0 (MQCCSI_Q_MGR) and unknown CCSIDs fall back to latin-1 so that every byte survives
    a decode/encode round-trip.
    """
    name = codec_for(ccsid)
    if name is None or name.startswith("utf-16") or name.startswith("utf-32") or name == "utf-8":
        # MQCHAR fields are single-byte; UTF-8 names are ASCII in practice, and latin-1 is
        # lossless where they are not.
        return "latin-1"
    if name == "ascii":
        return "latin-1"
    return name


def known_codecs() -> frozenset[str]:
    """Every codec a payload's CCSID can name here (those this machine has)."""
    return frozenset(name for name in set(_CODECS.values()) if _has_codec(name))


def _has_codec(name: str) -> bool:
    try:
        codecs.lookup(name)
    except LookupError:
        return False
    return True
