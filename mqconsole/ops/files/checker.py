"""Check a written dmpmqmsg file against every rule of the format (dmpmqmsg-format.md).

The reader is lenient (it takes what IBM's loader takes); this checker is strict: it says
whether a file is laid out exactly as dmpmqmsg writes it. Rules checked:

- line ends are ``\\n`` (no ``\\r``), and the file ends with one;
- the header: ``* DMPMQMSG Version:<v> Created:<ctime>`` or ``* QLOAD …``, then optionally
  ``* Qmgr  = <name>`` and ``* Queue = <name>``, then one empty line;
- per message: an optional ``* Index <n>``; then ``N`` alone, or every descriptor line in
  dmpmqmsg's order (VER…AOX, then GRP MSQ OFF MSF ORL exactly when VER >= 2), the id in
  columns 3–5 and the value from column 7: integers as signed decimals within an MQLONG,
  text at the field's full length, bytes as upper-case hex at full length (AID/AOD text
  accepted in place of AIX/AOX);
- the body: ``X`` lines of 50 upper-case hex digits except the last of a run (a lone ``X ``
  only for an empty body); ``S "…"`` lines of 1–48 printable characters with ``"`` written
  ``~"`` and ``~`` written ``~~``, 48 except the last of a run; in a body with ``S`` lines the
  ``X`` runs hold only non-printable bytes and the body starts with an ``S`` line (a lone
  ``S `` when the first byte is not printable); ``T`` lines are accepted;
- exactly one empty line after each message, and no other empty lines.
"""

from __future__ import annotations

import os
import re

from .common import (
    FIELDS,
    MQLONG_MAX,
    MQLONG_MIN,
    S_CHARS_PER_LINE,
    TEXT_VARIANTS,
    X_BYTES_PER_LINE,
    parse_ctime,
)

_HEADER = re.compile(r"\* (DMPMQMSG|QLOAD) Version:(\S+) Created:((?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)"
                     r" (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [ 123][0-9] "
                     r"[0-9]{2}:[0-9]{2}:[0-9]{2} [0-9]{4})")
_QMGR = re.compile(r"\* Qmgr  = (\S.*)")
_QUEUE = re.compile(r"\* Queue = (\S.*)")
_INDEX = re.compile(r"\* Index [0-9]+")
_INT = re.compile(r"-?(?:0|[1-9][0-9]*)")
_UPPER_HEX = re.compile(r"[0-9A-F]*")
_ANY_HEX = re.compile(r"[0-9A-Fa-f]*")
_MAX_PROBLEMS = 200


class _Problems(list):
    def add(self, number: int, text: str) -> None:
        if len(self) < _MAX_PROBLEMS:
            self.append(f"line {number}: {text}")


def check_dmp_text(text: str) -> list[str]:
    """Problems found in a dmpmqmsg file's text (``line N: …``); empty when it conforms."""
    problems = _Problems()
    if not text:
        return ["the file is empty: it has no header"]
    if not text.endswith("\n"):
        problems.append("the file does not end with a line end")
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    for n, line in enumerate(lines, 1):
        if "\r" in line:
            problems.add(n, "contains a carriage return (line ends must be \\n)")
    i = _check_header(lines, problems)
    while i < len(lines) and len(problems) < _MAX_PROBLEMS:
        i = _check_message(lines, i, problems)
    return list(problems)


def check_dmp_file(path: str | os.PathLike) -> list[str]:
    """:func:`check_dmp_text` for a file (its bytes read as latin-1)."""
    from mqconsole.inputfile import open_input

    with open_input(path) as fp:  # a FIFO: NotAFile, never waited for
        return check_dmp_text(fp.read().decode("latin-1"))


def _check_header(lines: list[str], problems: _Problems) -> int:
    m = _HEADER.fullmatch(lines[0]) if lines else None
    if m is None:
        problems.add(1, "the header must be '* DMPMQMSG Version:<v> Created:<ctime>' or "
                        "'* QLOAD Version:<v> Created:<ctime>'")
    elif parse_ctime(m.group(3)) is None:
        problems.add(1, f"Created: {m.group(3)!r} is not a date")
    i = 1
    for pattern, label in ((_QMGR, "Qmgr"), (_QUEUE, "Queue")):
        if i < len(lines) and lines[i].startswith("* " + label):
            q = pattern.fullmatch(lines[i])
            if q is None or q.group(1) != q.group(1).rstrip() or len(q.group(1)) > 48:
                spacing = "  " if label == "Qmgr" else " "
                problems.add(i + 1, f"must be '* {label}{spacing}= <name>' (a name of at most "
                                    "48 characters, no trailing blanks)")
            i += 1
    if i >= len(lines):
        problems.add(i, "the header must end with an empty line")
        return i
    if lines[i] != "":
        problems.add(i + 1, "the header must end with an empty line")
        return i
    return i + 1


def _check_message(lines: list[str], i: int, problems: _Problems) -> int:
    start = i
    if lines[i] == "":
        problems.add(i + 1, "an extra empty line (one empty line ends each message)")
        return i + 1
    if lines[i].startswith("*"):
        if not _INDEX.fullmatch(lines[i]):
            problems.add(i + 1, "a comment between messages must be '* Index <n>'")
        i += 1
    if i >= len(lines):
        problems.add(start + 1, "a message has no descriptor and no data")
        return i
    if lines[i] == "N":
        i += 1
    else:
        i = _check_descriptor(lines, i, problems)
    body_start = i
    while i < len(lines) and lines[i] != "" and lines[i][:1] in ("X", "S", "T"):
        i += 1
    if i == body_start:
        problems.add(i + 1, "a message needs data lines ('X', 'S' or 'T') after its descriptor")
    else:
        _check_body(lines, body_start, i, problems)
    if i >= len(lines):
        problems.add(i, "the last message is not followed by an empty line")
        return i
    if lines[i] != "":
        problems.add(i + 1, f"expected the empty line that ends the message, found "
                            f"{lines[i][:30]!r}")
        # resynchronise at the next descriptor
        while i < len(lines) and lines[i] != "" and not lines[i].startswith(("A VER", "N", "*")):
            i += 1
        return i if i > start else start + 1
    return i + 1


def _check_descriptor(lines: list[str], i: int, problems: _Problems) -> int:
    version = None
    if lines[i].startswith("A VER ") and _INT.fullmatch(lines[i][6:]):
        version = int(lines[i][6:])
    expected = [f for f in FIELDS if f[4] == 1 or (version is not None and version >= 2)]
    for fid, _, kind, length, _ in expected:
        if i >= len(lines) or not lines[i].startswith("A "):
            problems.add(i + 1, f"descriptor line 'A {fid}' is missing")
            return i
        line = lines[i]
        got = line[2:5]
        if got != fid and TEXT_VARIANTS.get(got, (None, None))[1] != _attr(fid):
            problems.add(i + 1, f"expected descriptor field {fid}, found {line[:6]!r}")
            i += 1
            continue
        if got in TEXT_VARIANTS:
            kind = "c"
        if len(line) < 6 or line[5] != " ":
            problems.add(i + 1, f"{got} must be followed by one blank and its value")
            i += 1
            continue
        _check_value(got, kind, length, line[6:], i + 1, problems)
        i += 1
    while i < len(lines) and lines[i].startswith("A "):
        fid = lines[i][2:5]
        if fid in ("GRP", "MSQ", "OFF", "MSF", "ORL"):
            problems.add(i + 1, f"{fid} is written only when VER is 2 or more")
        else:
            problems.add(i + 1, f"descriptor field {fid!r} is out of place")
        i += 1
    return i


def _attr(fid: str) -> str:
    return next(f[1] for f in FIELDS if f[0] == fid)


def _check_value(fid: str, kind: str, length: int, value: str, number: int,
                 problems: _Problems) -> None:
    if kind == "l":
        if not _INT.fullmatch(value):
            problems.add(number, f"{fid} must be a signed decimal, not {value[:20]!r}")
        elif not MQLONG_MIN <= int(value) <= MQLONG_MAX:
            problems.add(number, f"{fid} {value} does not fit in an MQLONG")
    elif kind == "c":
        if len(value) != length:
            problems.add(number, f"{fid} must hold {length} characters (trailing blanks kept), "
                                 f"it holds {len(value)}")
    else:
        if len(value) != 2 * length or not _ANY_HEX.fullmatch(value):
            problems.add(number, f"{fid} must be {2 * length} hex digits, found "
                                 f"{len(value)} characters")
        elif not _UPPER_HEX.fullmatch(value):
            problems.add(number, f"{fid} hex must be upper-case")


def _parse_s(line: str) -> tuple[bytes | None, str | None]:
    """Content of an ``S "…"`` line, or a problem."""
    if line == "S ":
        return b"", None
    if not line.startswith('S "') or len(line) < 4 or not line.endswith('"'):
        return None, "an S line must be 'S \"<text>\"'"
    out = []
    i, end = 3, len(line) - 1
    while i < end:
        ch = line[i]
        if ch == "~":
            if i + 1 < end and line[i + 1] in '"~':
                out.append(line[i + 1])
                i += 2
                continue
            return None, "'~' must be written '~~' and '\"' written '~\"'"
        if ch == '"':
            return None, "a '\"' inside an S line must be written '~\"'"
        out.append(ch)
        i += 1
    data = "".join(out)
    if any(not 0x20 <= ord(c) <= 0x7E for c in data):
        return None, "an S line holds only printable characters"
    return data.encode("ascii"), None


def _check_body(lines: list[str], start: int, end: int, problems: _Problems) -> None:
    kinds = [lines[k][0] for k in range(start, end)]
    has_s = "S" in kinds
    if "T" in kinds:
        for k in range(start, end):
            if kinds[k - start] == "T" and len(lines[k]) > 1 and lines[k][1] != " ":
                problems.add(k + 1, "a T line must be 'T <text>'")
        return
    if has_s and kinds[0] != "S":
        problems.add(start + 1, "a body with S lines starts with an S line (a lone 'S ' when "
                                "its first byte is not printable)")
    k = start
    while k < end:
        kind = kinds[k - start]
        run_end = k
        while run_end < end and kinds[run_end - start] == kind:
            run_end += 1
        if kind == "X":
            _check_x_run(lines, k, run_end, start, end, has_s, problems)
        else:
            _check_s_run(lines, k, run_end, start, end, problems)
        k = run_end


def _check_x_run(lines, k, run_end, start, end, has_s, problems) -> None:
    data = bytearray()
    for j in range(k, run_end):
        line = lines[j]
        if not line.startswith("X "):
            problems.add(j + 1, "an X line must be 'X <hex>'")
            continue
        digits = line[2:]
        if not _ANY_HEX.fullmatch(digits) or len(digits) % 2:
            problems.add(j + 1, "an X line holds pairs of hex digits only")
            continue
        if not _UPPER_HEX.fullmatch(digits):
            problems.add(j + 1, "hex must be upper-case")
        if digits == "":
            if has_s or end - start != 1:
                problems.add(j + 1, "a lone 'X ' is only for an empty body")
        elif j < run_end - 1 and len(digits) != 2 * X_BYTES_PER_LINE:
            problems.add(j + 1, f"an X line holds {X_BYTES_PER_LINE} bytes "
                                f"({2 * X_BYTES_PER_LINE} hex digits) unless it is the last "
                                f"of its run; this one holds {len(digits)} digits")
        elif len(digits) > 2 * X_BYTES_PER_LINE:
            problems.add(j + 1, f"an X line holds at most {2 * X_BYTES_PER_LINE} hex digits")
        data += bytes.fromhex(digits)
    if has_s and any(0x20 <= b <= 0x7E for b in data):
        problems.add(k + 1, "in a body with S lines, printable bytes go on S lines, not X lines")


def _check_s_run(lines, k, run_end, start, end, problems) -> None:
    for j in range(k, run_end):
        data, problem = _parse_s(lines[j])
        if problem or data is None:
            problems.add(j + 1, problem or "not an S line")
            continue
        if data == b"":
            if j != start:
                problems.add(j + 1, "a lone 'S ' only starts a body whose first byte is not "
                                    "printable, or an empty body")
            elif run_end - k > 1:
                problems.add(j + 1, "a lone 'S ' is followed by X lines, not S lines")
            continue
        if len(data) > S_CHARS_PER_LINE:
            problems.add(j + 1, f"an S line holds at most {S_CHARS_PER_LINE} characters")
        elif j < run_end - 1 and len(data) != S_CHARS_PER_LINE:
            problems.add(j + 1, f"an S line holds {S_CHARS_PER_LINE} characters unless it is "
                                "the last of its run")


__all__ = ["check_dmp_file", "check_dmp_text"]
