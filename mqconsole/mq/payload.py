"""Payloads as an operator sees them: CCSID-aware text (EBCDIC included), hex dumps, one-line
previews, and text made safe for a terminal.

Decoding never raises. A payload is shown as text when its Format is a text format
(``MQSTR``) or when it decodes cleanly in its CCSID's codec and is mostly printable; else it
is shown as hex and ``DecodedText.note`` says why. ``safe_text`` turns every control
character (but newline and tab), escape sequences, bidi overrides and invisible characters
into visible escapes such as ``\\x1b`` or ``\\u202e``; a literal backslash is left as it is.
Markup such as ``[bold red]`` is plain text here: escaping it is the display layer's job.
"""

from __future__ import annotations

import codecs
import json
import re
import unicodedata
from dataclasses import dataclass
from functools import cache

from .ccsid import codec_for, is_ebcdic

# Formats whose payload is text by definition (without padding).
TEXT_FORMATS = frozenset({"MQSTR"})
# Formats known to be binary structures: shown as hex even when the bytes look printable.
BINARY_FORMATS = frozenset({
    "MQADMIN", "MQPCF", "MQEVENT", "MQHEPCF", "MQDEAD", "MQHRF2", "MQHRF", "MQXMIT",
    "MQHMDE", "MQHDIST", "MQHREF", "MQCICS", "MQIMS", "MQTRIG", "MQHWIH", "MQCHCOM",
})
UTF16_CODECS = frozenset({"utf-16-be", "utf-16-le"})

MIN_PRINTABLE = 0.95  # share of printable characters for a non-text format to count as text
MIN_PRINTABLE_TEXT_FORMAT = 0.75  # the same for MQSTR, below which it is shown as hex


@dataclass(slots=True, frozen=True)
class DecodedText:
    """``text`` (None: show hex), the codec used, and a note when the choice needs a word."""

    text: str | None
    codec: str | None
    note: str | None = None


def _key(fmt: str) -> str:
    return (fmt or "").rstrip(" \x00")


# Control characters other than tab, LF, CR; DEL; C1; replacement and non-characters.
_UNPRINTABLE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ufffd\ufffe\uffff"
                          "\ud800-\udfff]")


def _printable_share(text: str) -> float:
    if not text:
        return 1.0
    return 1.0 - len(_UNPRINTABLE.findall(text)) / len(text)


def _utf16_order(data: bytes, codec: str, encoding: int | None) -> tuple[str, bytes]:
    """UTF-16 byte order: a BOM, else the message's Encoding, else where the zeros are."""
    if data[:2] == b"\xfe\xff":
        return "utf-16-be", data[2:]
    if data[:2] == b"\xff\xfe":
        return "utf-16-le", data[2:]
    if encoding is not None and encoding & 0x0F in (1, 2):
        return ("utf-16-be" if encoding & 0x0F == 1 else "utf-16-le"), data
    sample = data[:4096]
    even = sample[0::2].count(0)
    odd = sample[1::2].count(0)
    if odd > even:
        return "utf-16-le", data
    return codec, data


def _decode(data: bytes, ccsid: int, fmt: str, encoding: int | None,
            final: bool) -> DecodedText:
    key = _key(fmt)
    if key in BINARY_FORMATS:
        return DecodedText(None, None, f"Format {key} is a binary structure: shown as hex")
    note = None
    if ccsid is None or ccsid <= 0:
        codec = "utf-8"
        note = f"CCSID {ccsid} (the queue manager's) is unknown here: read as UTF-8"
    else:
        found = codec_for(ccsid)
        if found is None:
            return DecodedText(None, None, f"CCSID {ccsid} has no codec here: shown as hex")
        codec = found
    if codec in UTF16_CODECS:
        codec, data = _utf16_order(data, codec, encoding)
    is_text_format = key in TEXT_FORMATS
    try:
        text = codecs.getincrementaldecoder(codec)("strict").decode(data, final=final)
    except UnicodeDecodeError as exc:
        if not is_text_format:
            return DecodedText(None, None, f"not valid text in CCSID {ccsid} ({codec}) at "
                                           f"byte {exc.start}: shown as hex")
        text = codecs.getincrementaldecoder(codec)("replace").decode(data, final=final)
        if _printable_share(text) < MIN_PRINTABLE_TEXT_FORMAT:
            return DecodedText(None, None, f"Format {key} but not text in CCSID {ccsid} "
                                           f"({codec}): shown as hex")
        return DecodedText(text, codec, f"bytes not valid in CCSID {ccsid} ({codec}) are "
                                        "shown as \ufffd")
    except (LookupError, ValueError) as exc:  # a codec that cannot be used here
        return DecodedText(None, None, f"CCSID {ccsid} ({codec}) cannot be decoded here "
                                       f"({exc}): shown as hex")
    share = _printable_share(text)
    if is_text_format:
        if share < MIN_PRINTABLE_TEXT_FORMAT:
            return DecodedText(None, None, f"Format {key} but mostly unprintable in CCSID "
                                           f"{ccsid} ({codec}): shown as hex")
        return DecodedText(text, codec, note)
    if share < MIN_PRINTABLE:
        shown = key or "MQFMT_NONE"
        return DecodedText(None, None, f"Format {shown} is not a text format and the bytes "
                                       "are not printable text: shown as hex")
    return DecodedText(text, codec, note)


def decode_text(data: bytes, ccsid: int, format: str, *,
                encoding: int | None = None) -> DecodedText:
    """The payload as text when it is text (see the module doc), else ``text=None`` and a
    note. ``encoding`` (the MQ Encoding) picks the byte order of UTF-16 without a BOM."""
    try:
        return _decode(bytes(data), ccsid, format, encoding, final=True)
    except Exception as exc:  # never let a payload break the screen
        return DecodedText(None, None, f"cannot decode ({type(exc).__name__}): shown as hex")


def kind_of(payload: bytes, fmt: str, text: str | None = None) -> str:
    """``"json"``, ``"xml"``, ``"text"`` or ``"binary"`` (``text`` from :func:`decode_text`)."""
    if text is None:
        return "binary"
    s = text.lstrip("\ufeff \t\r\n\x00")
    if s[:1] in ("{", "["):
        try:
            json.loads(text.strip("\ufeff \t\r\n\x00"))
            return "json"
        except (ValueError, RecursionError):
            pass
    if s.startswith("<") and s.rstrip(" \t\r\n\x00").endswith(">"):
        return "xml"
    return "text"


# -- hex --------------------------------------------------------------------------------


@cache
def _column_table(codec: str | None) -> dict[int, str]:
    """latin-1 code point of a byte → the character shown for it in the text column."""
    table: dict[int, str] = {}
    for b in range(256):
        ch = chr(b)
        if codec is not None:
            try:
                ch = bytes([b]).decode(codec)
            except (UnicodeDecodeError, LookupError):
                ch = "."
        table[b] = ch if len(ch) == 1 and 0x20 <= ord(ch) < 0x7F else "."
    return table


def hex_dump(data: bytes, width: int = 16, *, ccsid: int | None = None) -> str:
    """``00000000  48 65 6c 6c 6f  |Hello|`` lines. The text column shows printable ASCII,
    else '.'; with an EBCDIC ``ccsid`` it shows the bytes as EBCDIC."""
    try:
        data = bytes(data)
        width = width if isinstance(width, int) and width > 0 else 16
        codec = codec_for(ccsid) if ccsid is not None and is_ebcdic(ccsid) else None
        table = _column_table(codec)
        lines = []
        for off in range(0, len(data), width):
            chunk = data[off:off + width]
            hexpart = chunk.hex(" ").ljust(width * 3 - 1)
            column = chunk.decode("latin-1").translate(table)
            lines.append(f"{off:08x}  {hexpart}  |{column}|")
        return "\n".join(lines)
    except Exception as exc:  # pragma: no cover - defensive
        return f"<hex dump failed: {type(exc).__name__}>"


# -- terminal safety ------------------------------------------------------------------------

# Format (Cf) characters, as of Unicode 15: bidi controls, zero-width characters, tags …
_FORMAT_RANGES = (
    (0x00AD, 0x00AD), (0x0600, 0x0605), (0x061C, 0x061C), (0x06DD, 0x06DD),
    (0x070F, 0x070F), (0x0890, 0x0891), (0x08E2, 0x08E2), (0x180E, 0x180E),
    (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x2064), (0x2066, 0x206F),
    (0xFEFF, 0xFEFF), (0xFFF9, 0xFFFB), (0x110BD, 0x110BD), (0x110CD, 0x110CD),
    (0x13430, 0x1343F), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A), (0xE0001, 0xE0001),
    (0xE0020, 0xE007F),
)
# Also: C0 but tab and LF, DEL, C1, line/paragraph separators, surrogates, non-characters.
_OTHER_RANGES = ((0x00, 0x08), (0x0A + 1, 0x1F), (0x7F, 0x9F), (0x2028, 0x2029),
                 (0xD800, 0xDFFF), (0xFFFE, 0xFFFF))


def _class(ranges) -> str:
    parts = []
    for lo, hi in ranges:
        parts.append(re.escape(chr(lo)))
        if hi != lo:
            parts.append("-" + re.escape(chr(hi)))
    return "".join(parts)


_UNSAFE = re.compile(f"[{_class(_FORMAT_RANGES)}{_class(_OTHER_RANGES)}]")
_NAMED = {"\r": "\\r"}


def _escape(m: re.Match) -> str:
    ch = m.group()
    cp = ord(ch)
    if ch in _NAMED:
        return _NAMED[ch]
    if cp <= 0xFF:
        return f"\\x{cp:02x}"
    if cp <= 0xFFFF:
        return f"\\u{cp:04x}"
    return f"\\U{cp:08x}"


def safe_text(text: str) -> str:
    """Text safe to print on a terminal: controls, ESC, DEL, C1, bidi overrides and
    invisible format characters become visible escapes (``\\x1b``, ``\\u202e``); newline
    and tab stay. Backslashes and markup are left alone."""
    if text.isprintable():
        return text
    return _UNSAFE.sub(_escape, text)


def one_line(text: str) -> str:
    """Text for a one-sentence error message: every non-printable character, newlines and
    tabs included, is shown escaped (``\\n``, ``\\x1b``), so the sentence stays on one line."""
    return "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii")
                   for ch in text)


def located(problem: str, *, file: str | None = None, line: int | None = None,
            subject: str | None = None, column: int | None = None) -> str:
    """One line saying what is wrong and where: ``FILE line N column C: SUBJECT: PROBLEM``
    (the parts not known left out), escaped as :func:`one_line` does."""
    where = file or ""
    if line is not None:
        where = f"{where} line {line}" if where else f"line {line}"
        if column is not None:
            where += f" column {column}"
    return one_line(": ".join([p for p in (where, subject) if p] + [problem]))


def first_of(sentences: list[str]) -> str:
    """The first problem's sentence, saying how many more there are: ``… (and 2 more
    problems)``."""
    more = len(sentences) - 1
    if more < 1:
        return sentences[0]
    return f"{sentences[0]} (and {more} more problem{'s' if more > 1 else ''})"


def is_unsafe_char(ch: str) -> bool:
    """True for a character :func:`safe_text` escapes."""
    return _UNSAFE.fullmatch(ch) is not None


def _cells(ch: str) -> int:
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


def _fit(text: str, width: int) -> str:
    """Cut ``text`` to ``width`` terminal cells, with '…' when cut."""
    if len(text) <= width and all(ord(c) < 0x1100 for c in text):
        return text
    used = 0
    for i, ch in enumerate(text):
        used += _cells(ch)
        if used > width:
            out = text[:i]
            while out and sum(_cells(c) for c in out) > width - 1:
                out = out[:-1]
            return out + "…"
    return text


def preview(data: bytes, ccsid: int, format: str, width: int = 60, *,
            encoding: int | None = None) -> str:
    """One safe line for a list: the text with newlines shown as ⏎ and tabs as spaces, or
    ``‹binary, N bytes› 48 65 …``; at most ``width`` cells."""
    try:
        data = bytes(data)
        width = width if isinstance(width, int) and width > 0 else 60
        head = data[:max(256, width * 8)]
        decoded = _decode(head, ccsid, format, encoding, final=len(head) == len(data))
        if decoded.text is None:
            line = f"‹binary, {len(data)} bytes› {head[:width].hex(' ')}"
        else:
            line = decoded.text.replace("\r\n", "⏎").replace("\n", "⏎").replace("\t", " ")
            line = safe_text(line)
        return _fit(line, width)
    except Exception as exc:  # never let a payload break a list
        return _fit(f"‹unreadable payload: {type(exc).__name__}›", max(1, int(width or 60)))
