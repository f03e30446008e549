"""One engine for every pattern an operator types: RE2 (``google-re2``), linear in the text.

RE2 matches with automata, never by backtracking, so no pattern can make a search run for
hours (``(a|aa)+$`` on 10,000 a's and a ``!`` takes as long as ``a``), and no search needs a
time bound. It refuses the features that need backtracking (backreferences, lookaround,
atomic groups, possessive quantifiers): :func:`compile_pattern` says which, and where, before
anything is read. The dialect is RE2's (https://github.com/google/re2/wiki/Syntax), as
docs/where.md describes it for operators.

A payload is searched where it lies, as bytes, and decoded only when the bytes hold a
match (:meth:`Pattern.in_payload`):

* UTF-8 (CCSID 1208, and an unknown CCSID, read as UTF-8): the pattern itself runs on the
  raw bytes (RE2 matches text as its UTF-8 bytes anyway);
* a single-byte CCSID (Latin-1, the Windows and DOS code pages, EBCDIC): the pattern is
  converted once per CCSID into a pattern over bytes: each character, class or ``.``
  becomes the set of bytes that decode to a character it matches (case folding included),
  so it runs on the raw bytes with RE2's Latin-1 mode; on EBCDIC, ``\\b`` and line anchors
  (``(?m)^``) cannot be converted (RE2 knows ASCII's words and newline), so those payloads
  are decoded first;
* anything else (UTF-16, the double-byte code pages) is decoded first.

And a literal the pattern needs (:attr:`Pattern.literal`: ``order 4711`` in
``"order 4711"`` or in ``order 4711.*EUR``) gives the byte strings a body must contain for
the payload to match, in whichever CCSID it is (:meth:`Pattern.body_forms`): the embedded
queue manager tests them in SQLite (``instr``) before a row reaches Python.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass
from functools import cache, lru_cache

import re2
from re2 import _re2

from mqconsole.mq.ccsid import codec_for, known_codecs

__all__ = ["Pattern", "PatternError", "Wildcard", "compile_pattern", "escape"]

_UNANCHORED = _re2.RE2.Anchor.UNANCHORED
_BOTH = _re2.RE2.Anchor.ANCHOR_BOTH
_NONE = (-1, -1)


class PatternError(ValueError):
    """A pattern RE2 refuses: ``message`` (one sentence) and ``offset``, 0-based, into the
    pattern."""

    def __init__(self, message: str, offset: int) -> None:
        self.message = message
        self.offset = offset
        super().__init__(message)


def _options(*, latin1: bool = False) -> re2.Options:
    o = re2.Options()
    o.log_errors = False  # RE2 would print its complaint on stderr
    o.never_capture = True  # a search asks whether, not what
    if latin1:
        o.encoding = re2.Options.Encoding.LATIN1
    return o


_UTF8 = _options()
_LATIN1 = _options(latin1=True)


def _re2_compile(pattern: bytes, options: re2.Options) -> _re2.RE2:
    rx = _re2.RE2(pattern, options)
    if not rx.ok():
        raise re2.error(rx.error())
    return rx


# -- reading a pattern ------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class _Tok:
    """A piece of a pattern. ``kind``: ``char`` (one literal character: ``char``), ``set``
    (any other one-character atom: ``.``, a class, ``\\d``, ``\\pL``), ``assert`` (``^ $ \\A
    \\z \\b \\B``), ``byte`` (``\\C``), ``open`` (a group's start; ``flags`` what it sets),
    ``flags`` (``(?i)``: sets ``flags`` until the group's end), ``close``, ``alt``,
    ``repeat`` (a quantifier; ``least`` its minimum)."""

    kind: str
    text: str
    pos: int
    char: str = ""
    flags: tuple[str, str] = ("", "")  # (set, cleared)
    least: int = 0


_REPEAT = re.compile(r"\{(\d+)(,(\d*))?\}")
_COMMA_FIRST = re.compile(r"\{,(\d+)\}")
_FLAGS = re.compile(r"\(\?([A-Za-z]*)(?:-([A-Za-z]*))?([:)])")
_HEX = re.compile(r"\{([0-9A-Fa-f]+)\}|([0-9A-Fa-f]{2})")
_OCTAL = re.compile(r"0[0-7]{0,2}")
_NAME = re.compile(r"(?:P?<)([A-Za-z0-9_]+)>")
_SIMPLE_ESCAPES = {"a": "\a", "f": "\f", "t": "\t", "n": "\n", "r": "\r", "v": "\v"}
_MAX_REPEAT = 1000  # RE2's bound on {n,m}


def _refuse(what: str, pos: int, hint: str = "") -> PatternError:
    return PatternError(f"RE2 does not support {what}{hint}", pos)


def _scan(p: str) -> list[_Tok]:
    """The pattern's pieces; :class:`PatternError` for what RE2 refuses by design. What is
    merely malformed is left for RE2 to say (the caller compiles after this)."""
    toks: list[_Tok] = []
    i, n = 0, len(p)
    while i < n:
        c = p[i]
        if c == "\\":
            i = _escape(p, i, toks)
        elif c == "[":
            j = _class_end(p, i)
            toks.append(_Tok("set", p[i:j], i))
            i = j
        elif c == "(":
            i = _group(p, i, toks)
        elif c == ")":
            toks.append(_Tok("close", c, i))
            i += 1
        elif c == "|":
            toks.append(_Tok("alt", c, i))
            i += 1
        elif c in "*+?" or (c == "{" and _REPEAT.match(p, i)):
            i = _repeat(p, i, toks)
        elif c == "{" and (m := _COMMA_FIRST.match(p, i)):
            raise PatternError(f"RE2 reads '{m.group(0)}' as text, not as a repetition: "
                               f"write {{0,{m.group(1)}}} (or '\\{{' for the text)", i)
        elif c == ".":
            toks.append(_Tok("set", c, i))
            i += 1
        elif c in "^$":
            toks.append(_Tok("assert", c, i))
            i += 1
        else:
            toks.append(_Tok("char", c, i, c))
            i += 1
    return toks


def _repeat(p: str, i: int, toks: list[_Tok]) -> int:
    c = p[i]
    if c == "{":
        m = _REPEAT.match(p, i)
        assert m is not None
        low = int(m.group(1))
        high = int(m.group(3)) if m.group(3) else low
        if max(low, high) > _MAX_REPEAT:
            raise PatternError(f"RE2 does not support a repetition over {_MAX_REPEAT} "
                               f"('{m.group(0)}')", i)
        j, least = m.end(), low
    else:
        j, least = i + 1, 0 if c in "*?" else 1
    if j < len(p) and p[j] == "+":
        raise _refuse("possessive quantifiers", i, f" ('{p[i:j + 1]}')")
    if j < len(p) and p[j] == "?":
        j += 1  # lazy: the same matches, found another way
    toks.append(_Tok("repeat", p[i:j], i, least=least))
    return j


def _escape(p: str, i: int, toks: list[_Tok]) -> int:
    n = len(p)
    if i + 1 >= n:
        toks.append(_Tok("char", "\\", i, "\\"))  # RE2: trailing backslash
        return n
    e = p[i + 1]
    j = i + 2
    if e in "123456789":
        raise _refuse("backreferences", i, f" ('\\{e}'; RE2 cannot match what a group "
                      "matched again)")
    if e in "kg":
        raise _refuse("backreferences", i, f" ('\\{e}')")
    if e == "Z":
        raise _refuse("\\Z", i, ": write \\z for the end of the text")
    if e == "G":
        raise _refuse("\\G", i)
    if e == "N":
        raise _refuse("named characters (\\N{...})", i, ": write \\x{hex}")
    if e in "uU":
        raise _refuse(f"\\{e} escapes", i, ": write \\x{hex}, e.g. \\x{e9}")
    if e == "e":
        raise _refuse("\\e", i, ": write \\x1b")
    if e == "0":
        m = _OCTAL.match(p, i + 1)
        assert m is not None
        toks.append(_Tok("char", p[i:m.end()], i, chr(int(m.group(0), 8))))
        return m.end()
    if e == "x":
        m = _HEX.match(p, i + 2)
        if m is None:
            toks.append(_Tok("set", p[i:j], i))  # malformed: RE2 says so
            return j
        value = int(m.group(1) or m.group(2), 16)
        ch = chr(value) if value <= 0x10FFFF else ""
        toks.append(_Tok("char" if ch else "set", p[i:m.end()], i, ch))
        return m.end()
    if e in "pP":
        if j < n and p[j] == "{":
            close = p.find("}", j)
            j = n if close < 0 else close + 1
        else:
            j = min(n, j + 1)
        toks.append(_Tok("set", p[i:j], i))
        return j
    if e in "dDwWsS":
        toks.append(_Tok("set", p[i:j], i))
        return j
    if e in _SIMPLE_ESCAPES:
        toks.append(_Tok("char", p[i:j], i, _SIMPLE_ESCAPES[e]))
        return j
    if e in "bBAz":
        toks.append(_Tok("assert", p[i:j], i))
        return j
    if e == "C":
        toks.append(_Tok("byte", p[i:j], i))
        return j
    if e == "Q":
        end = p.find("\\E", j)
        stop = n if end < 0 else end
        for k in range(j, stop):
            toks.append(_Tok("char", re2.escape(p[k]), k, p[k]))
        return n if end < 0 else end + 2
    if not e.isalnum():
        toks.append(_Tok("char", p[i:j], i, e))  # an escaped punctuation character
        return j
    toks.append(_Tok("set", p[i:j], i))  # an escape RE2 does not know: RE2 says so
    return j


def _class_end(p: str, i: int) -> int:
    """Where the class starting at ``p[i] == '['`` ends (after its ``]``); ``len(p)`` when
    it does not (RE2 says so)."""
    n = len(p)
    j = i + 1
    if j < n and p[j] == "^":
        j += 1
    if j < n and p[j] == "]":
        j += 1
    while j < n:
        c = p[j]
        if c == "]":
            return j + 1
        if p.startswith("[:", j):
            close = p.find(":]", j + 2)
            j = j + 1 if close < 0 else close + 2
            continue
        if c == "\\" and j + 1 < n:
            e = p[j + 1]
            if e in "123456789":
                raise _refuse("backreferences", j, f" ('\\{e}')")
            if e in "xpP" and j + 2 < n and p[j + 2] == "{":
                close = p.find("}", j + 2)
                j = n if close < 0 else close + 1
                continue
            j += 2
            continue
        j += 1
    return n


def _group(p: str, i: int, toks: list[_Tok]) -> int:
    if not p.startswith("(?", i):
        toks.append(_Tok("open", "(", i))
        return i + 1
    rest = p[i + 2:i + 4]
    if rest.startswith(":"):
        toks.append(_Tok("open", "(?:", i))
        return i + 3
    if rest.startswith(("=", "!")):
        raise _refuse("lookahead", i, f" ('(?{rest[0]}'): search for the text itself, or "
                      "combine two comparisons with 'and' / 'and not'")
    if rest in ("<=", "<!"):
        raise _refuse("lookbehind", i, f" ('(?{rest}'): search for the text itself, or "
                      "combine two comparisons with 'and' / 'and not'")
    if rest.startswith(">"):
        raise _refuse("atomic groups", i, " ('(?>')")
    if rest.startswith("#"):
        raise _refuse("comments", i, " ('(?#')")
    if rest.startswith("("):
        raise _refuse("conditionals", i, " ('(?(')")
    if rest == "P=":
        raise _refuse("backreferences", i, " ('(?P=')")
    if rest == "P>" or rest.startswith(("R", "&", "+")) or rest[:1].isdigit():
        raise _refuse("recursion", i, f" ('(?{rest}')")
    m = _NAME.match(p, i + 2)
    if m is not None:
        toks.append(_Tok("open", p[i:m.end()], i))
        return m.end()
    m = _FLAGS.match(p, i)
    if m is not None:
        on, off = m.group(1), m.group(2) or ""
        for letter in on + off:
            if letter not in "imsU":
                verbose = " (verbose patterns)" if letter == "x" else ""
                raise PatternError(f"RE2 does not support the flag {letter}{verbose}: its "
                                   "flags are i, m, s and U", i)
        kind = "open" if m.group(3) == ":" else "flags"
        toks.append(_Tok(kind, m.group(0), i, flags=(on, off)))
        return m.end()
    toks.append(_Tok("open", "(?", i))  # something else: RE2 says what
    return i + 2


def _located(message: str, pattern: str) -> PatternError:
    """RE2's complaint (``missing ): (a``) as a sentence, at the piece it names."""
    text = message.strip()
    detail = text
    offset = 0
    if ": " in text:
        what, piece = text.split(": ", 1)
        found = pattern.find(piece) if piece else -1
        if found < 0 and piece:
            found = pattern.find(piece[:8])
        offset = max(found, 0)
        detail = f"{what}: {piece}" if piece else what
    return PatternError(f"not a valid regular expression ({detail})", offset)


# -- a compiled pattern -----------------------------------------------------------------------

class Pattern:
    """A compiled pattern (:func:`compile_pattern`). ``search(text)`` on text;
    ``in_payload(data, ccsid)`` on a payload's bytes; ``literal`` and ``body_forms()`` for
    a search where the messages are."""

    __slots__ = ("_by_codec", "_rx", "_toks", "literal", "text")

    def __init__(self, text: str, toks: list[_Tok], rx: _re2.RE2) -> None:
        self.text = text
        self._toks = toks
        self._rx = rx
        self._by_codec: dict[str, _re2.RE2 | None] = {}
        #: the longest run of characters every match contains (case-sensitive, at least
        #: two characters), or None
        self.literal = _required_literal(toks)

    def __repr__(self) -> str:
        return f"Pattern({self.text!r})"

    def search(self, text: str) -> bool:
        """Whether the pattern is found in ``text``."""
        data = text.encode("utf-8", "surrogatepass")
        return self._rx.Match(_UNANCHORED, data, 0, len(data))[0] != _NONE

    def search_utf8(self, data: bytes) -> bool:
        """Whether it is found in UTF-8 bytes (as in the text they decode to, when valid)."""
        return self._rx.Match(_UNANCHORED, data, 0, len(data))[0] != _NONE

    def in_payload(self, data: bytes, ccsid: int) -> bool | None:
        """Whether the text a payload in ``ccsid`` decodes to may hold a match, read from
        its bytes: False is certain (no decoding needed: the text, if any, holds none);
        True says the bytes hold a match (decode to be sure it is text); None: these bytes
        cannot be searched as they are (decode them)."""
        codec = "utf-8" if ccsid is None or ccsid <= 0 else codec_for(ccsid)
        if codec is None:
            return None
        if codec == "utf-8":
            if self._rx.Match(_UNANCHORED, data, 0, len(data))[0] != _NONE:
                return True
            if data.isascii():
                return False
            try:  # RE2 does not read invalid UTF-8 as the decoder's U+FFFD: decode then
                data.decode("utf-8")
            except UnicodeDecodeError:
                return None
            return False
        rx = self._for_codec(codec)
        if rx is None:
            return None
        return rx.Match(_UNANCHORED, data, 0, len(data))[0] != _NONE

    def _for_codec(self, codec: str) -> _re2.RE2 | None:
        try:
            return self._by_codec[codec]
        except KeyError:
            pass
        table = _single_byte_table(codec)
        rx = None
        if table is not None:
            translated = _translate(self._toks, codec, table)
            if translated is not None:
                try:
                    rx = _re2_compile(translated, _LATIN1)
                except re2.error:
                    rx = None
        self._by_codec[codec] = rx
        return rx

    def body_forms(self) -> tuple[bytes, ...] | None:
        """Byte strings one of which the body of every message whose payload text holds a
        match contains, whatever its CCSID (the literal in each codec); None when there is
        none to give (no literal, or one a codec could spell in several ways)."""
        return _forms(self.literal) if self.literal else None


def compile_pattern(text: str) -> Pattern:
    """Compile ``text`` as RE2 reads it; :class:`PatternError` (position and one sentence)
    when RE2 does not support a feature it uses or it is not a valid pattern."""
    toks = _scan(text)
    try:
        rx = _re2_compile(text.encode("utf-8", "surrogatepass"), _UTF8)
    except re2.error as exc:
        raw = exc.args[0] if exc.args else str(exc)
        message = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
        raise _located(message, text) from None
    return Pattern(text, toks, rx)


def escape(text: str) -> str:
    """``text`` as a pattern that matches exactly it."""
    return re2.escape(text)


class Wildcard:
    """``*`` (any run) and ``?`` (any one character) over a whole value, everything else
    literal, matched by RE2 (linear in the value, however many stars)."""

    __slots__ = ("_rx",)

    def __init__(self, pattern: str) -> None:
        parts = [".*" if ch == "*" else "." if ch == "?" else re2.escape(ch) for ch in pattern]
        self._rx = _re2_compile(("(?s)" + "".join(parts)).encode("utf-8", "surrogatepass"),
                                _UTF8)

    def fullmatch(self, value: str) -> bool:
        data = value.encode("utf-8", "surrogatepass")
        return self._rx.Match(_BOTH, data, 0, len(data))[0] != _NONE


# -- the literal a match needs ---------------------------------------------------------------

def _required_literal(toks: list[_Tok]) -> str | None:
    """The longest run of literal characters at the top level of a pattern without a
    top-level ``|``, each required once (not under ``?``, ``*`` or ``{0,…}``), compared
    case-sensitively (``(?i)`` keeps only characters without case)."""
    depth = 0
    for t in toks:
        depth += t.kind == "open"
        depth -= t.kind == "close"
        if t.kind == "alt" and depth == 0:
            return None
    runs: list[str] = []
    cur: list[str] = []
    fold = False
    depth = 0

    def end() -> None:
        if cur:
            runs.append("".join(cur))
            cur.clear()

    for k, t in enumerate(toks):
        if depth:
            depth += t.kind == "open"
            depth -= t.kind == "close"
            continue
        if t.kind == "open":
            end()
            depth = 1
            continue
        if t.kind == "flags":
            on, off = t.flags
            fold = ("i" in on) or (fold and "i" not in off)
            continue
        caseless = t.kind == "char" and not (fold and _has_case(t.char))
        if not caseless:
            end()
            continue
        nxt = toks[k + 1] if k + 1 < len(toks) else None
        if nxt is not None and nxt.kind == "repeat":
            if nxt.least > 0:
                cur.append(t.char)
            end()
            continue
        cur.append(t.char)
    end()
    best = max(runs, key=len, default="")
    return best if len(best) >= 2 else None


def _has_case(ch: str) -> bool:
    return not (ch.isascii() and not ch.isalpha())


# -- bytes forms of a literal, per codec ------------------------------------------------------

_UNICODE_FORMS = ("utf-8", "utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be")


@lru_cache(maxsize=256)
def _forms(literal: str) -> tuple[bytes, ...] | None:
    if "\ufffd" in literal:  # a decoder's replacement: no bytes spell it
        return None
    forms: set[bytes] = set()
    for codec in {*known_codecs(), *_UNICODE_FORMS}:
        form = _form(literal, codec)
        if form is None:
            return None
        if form:  # a piece of it will do: UTF-16 and UTF-32 of both byte orders share one
            forms.add(form.strip(b"\x00") or form)
    if not forms:
        return None
    kept = {f for f in forms if not any(g != f and g in f for g in forms)}
    return tuple(sorted(kept))


def _form(literal: str, codec: str) -> bytes | None:
    """The bytes that text holding ``literal`` holds in ``codec``; ``b""``: that codec
    never gives such text; None: no one form can be named."""
    name = codecs.lookup(codec).name
    if name in _UNICODE_FORMS:
        try:
            return literal.encode(codec)
        except UnicodeEncodeError:  # a lone surrogate: no decoder gives one
            return b""
    if name.startswith(("utf-16", "utf-32")):
        return None
    table = _single_byte_table(codec)
    if table is None:  # a multi-byte code page: its ASCII bytes are ASCII, nothing else is
        runs = re.findall(r"[\x00-\x7f]{2,}", literal)
        if not runs:
            return None
        return max(runs, key=len).encode("ascii")
    spelled = _spellings(codec)
    out = bytearray()
    best = b""
    for ch in literal:
        options = spelled.get(ch)
        if not options:
            return b""  # a character this code page has not: its text never holds it
        if len(options) > 1:  # spelled two ways: take the longest run spelled one way
            best = max(best, bytes(out), key=len)
            out.clear()
            continue
        out.append(options[0])
    best = max(best, bytes(out), key=len)
    return best if len(best) >= 2 else None


@cache
def _spellings(codec: str) -> dict[str, list[int]]:
    table = _single_byte_table(codec)
    assert table is not None
    out: dict[str, list[int]] = {}
    for b, ch in enumerate(table):
        if ch != "\ufffd":
            out.setdefault(ch, []).append(b)
    return out


# -- single-byte code pages -------------------------------------------------------------------

@cache
def _single_byte_table(codec: str) -> tuple[str, ...] | None:
    """What each byte decodes to in ``codec`` (U+FFFD: not a character there, as a decoder
    replacing errors gives it), when the codec reads every byte as one character; else
    None."""
    name = codecs.lookup(codec).name
    if name.startswith(("utf", "euc", "gb", "big5", "cp932", "cp949", "cp950", "shift",
                        "iso2022", "hz", "johab")):
        return None
    try:
        forward = bytes(range(256)).decode(codec, "replace")
        backward = bytes(range(255, -1, -1)).decode(codec, "replace")
    except (LookupError, ValueError):
        return None
    # one character a byte, whatever comes before it: a code page of one byte a character
    if len(forward) != 256 or backward != forward[::-1]:
        return None
    table = list(forward)
    return tuple(table)


def _ascii_compatible(table: tuple[str, ...]) -> bool:
    """Bytes 0-127 are ASCII and no other byte is: RE2's ``\\b`` and newline hold."""
    return all(table[b] == chr(b) for b in range(128)) and \
        all(not table[b].isascii() for b in range(128, 256))


def _translate(toks: list[_Tok], codec: str, table: tuple[str, ...]) -> bytes | None:
    """The pattern over bytes of ``codec`` (RE2's Latin-1 mode), or None when it cannot be
    (``\\C``; on a code page that is not ASCII's, ``\\b`` or ``(?m)`` line anchors)."""
    ascii_ok = _ascii_compatible(table)
    stack: list[tuple[bool, bool, bool]] = [(False, False, False)]  # (i, s, m) flags
    out: list[str] = []

    def changed(flags: tuple[bool, bool, bool], on: str, off: str) -> tuple[bool, bool, bool]:
        i, s, m = flags
        return (("i" in on) or (i and "i" not in off), ("s" in on) or (s and "s" not in off),
                ("m" in on) or (m and "m" not in off))

    def kept(on: str, off: str, end: str) -> str:
        on2 = "".join(c for c in on if c in "mU")
        off2 = "".join(c for c in off if c in "mU")
        if not on2 and not off2:
            return "(?:" if end == ":" else "(?:)"
        return f"(?{on2}{'-' + off2 if off2 else ''}{end}"

    for t in toks:
        i, s, m = stack[-1]
        if t.kind in ("char", "set"):
            out.append(_byte_set(t.text if t.kind == "set" else re2.escape(t.char), i, s,
                                 codec))
        elif t.kind == "assert":
            if not ascii_ok and (t.text in ("\\b", "\\B") or (t.text in "^$" and m)):
                return None
            out.append(t.text)
        elif t.kind == "byte":
            return None
        elif t.kind == "open":
            on, off = t.flags
            stack.append(changed(stack[-1], on, off))
            if t.text == "(?:":
                out.append(t.text)
            elif t.text.endswith(":"):  # (?flags:
                out.append(kept(on, off, ":"))
            else:  # a group, named or not: names do not matter here
                out.append("(")
        elif t.kind == "flags":
            on, off = t.flags
            stack[-1] = changed(stack[-1], on, off)
            out.append(kept(on, off, ")"))
        elif t.kind == "close":
            if len(stack) > 1:
                stack.pop()
            out.append(")")
        else:  # alt, repeat
            out.append(t.text)
    try:
        return "".join(out).encode("ascii")
    except UnicodeEncodeError:
        return None


@lru_cache(maxsize=4096)
def _byte_set(atom: str, fold: bool, dotall: bool, codec: str) -> str:
    """The bytes of ``codec`` whose character ``atom`` matches (with these flags), as a
    Latin-1 pattern piece."""
    table = _single_byte_table(codec)
    assert table is not None
    flags = ("i" if fold else "") + ("s" if dotall else "")
    rx = _re2_compile(((f"(?{flags})" if flags else "") + atom).encode("utf-8"), _UTF8)
    hits = []
    for b, ch in enumerate(table):
        data = ch.encode("utf-8")
        if rx.Match(_BOTH, data, 0, len(data))[0] != _NONE:
            hits.append(b)
    if not hits:
        return "[^\\x00-\\xff]"  # no byte: never matches
    if len(hits) == 1:
        return f"\\x{hits[0]:02x}"
    ranges: list[str] = []
    start = prev = hits[0]
    for b in [*hits[1:], -2]:
        if b == prev + 1:
            prev = b
            continue
        ranges.append(f"\\x{start:02x}" if start == prev else f"\\x{start:02x}-\\x{prev:02x}")
        start = prev = b
    return "[" + "".join(ranges) + "]"
