"""``--where``: a small expression language that selects messages.

Hand-written tokenizer and recursive-descent parser (nothing is ever ``eval``-ed); an
expression is compiled once into a predicate over :class:`~mqconsole.ops.views.MessageView`.
The language is documented for operators in ``docs/where.md``; in short::

    expr       := or_expr
    or_expr    := and_expr ( "or" and_expr )*
    and_expr   := not_expr ( "and" not_expr )*
    not_expr   := "not" not_expr | "(" expr ")" | comparison
    comparison := FIELD OP value
                | FIELD [ "not" ] "in" "(" value ( "," value )* ")"
    OP         := "=" | "==" | "!=" | "<>" | "<" | "<=" | ">" | ">=" | "~" | "!~"
    value      := 'single quoted' | "double quoted" | bare-word

Keywords (and, or, not, in, null) and field names are case-insensitive. Inside quotes a
backslash is an ordinary character (handy for regexes) and a quote is written twice.

Comparisons against a missing value (``reason`` of a message with no dead-letter header, the
``text`` of a binary payload, the age of a message without a put time) are false, whatever
the operator (``!=`` and ``!~`` too); ``FIELD = null`` / ``FIELD != null`` test for presence.
"""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from mqconsole.mq import names as _names
from mqconsole.mq._generated_constants import MQMT, MQPER
from mqconsole.mq.facts import FactTest

from .textsearch import Pattern, PatternError, compile_pattern
from .timefmt import iso_utc, parse_duration, parse_iso

__all__ = ["BOOL", "FIELDS", "FLOAT", "INT", "STR", "Field", "Where", "WhereError",
           "compile_where", "field_names"]

MAX_DEPTH = 64
MAX_LENGTH = 10_000


# -- errors ----------------------------------------------------------------------------------

class WhereError(ValueError):
    """A bad expression. ``str()`` is one sentence naming the position, then the expression
    and a caret under that position on the following lines.

    ``position`` is the 0-based offset into ``expression``; ``column`` is 1-based.
    """

    def __init__(self, message: str, position: int, expression: str = "") -> None:
        self.message = message
        self.position = max(0, min(position, len(expression)) if expression else position)
        self.expression = expression
        super().__init__(self._render())

    @property
    def column(self) -> int:
        return self.position + 1

    def _render(self) -> str:
        msg = self.message.rstrip(".")
        head = f"Bad --where expression at position {self.column}: {msg}."
        if not self.expression:
            return head
        shown, caret = _echo(self.expression, self.position)
        return f"{head}\n  {shown}\n  {' ' * caret}^"


def _echo(expr: str, position: int, limit: int = 100) -> tuple[str, int]:
    """The expression as a safe single line (control characters shown as ``?``), cut to
    ``limit`` characters around ``position``; and the caret's offset in it."""
    start = 0
    if len(expr) > limit:
        start = max(0, min(position - limit // 2, len(expr) - limit))
    piece = expr[start:start + limit]
    safe = "".join(c if c.isprintable() else "?" for c in piece)
    prefix = "..." if start else ""
    suffix = "..." if start + limit < len(expr) else ""
    return prefix + safe + suffix, len(prefix) + (position - start)


# -- tokens ----------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class _Tok:
    kind: str  # "word", "string", "op", "(", ")", ",", "end"
    text: str  # the value (unquoted for strings)
    pos: int
    raw: str = ""

    @property
    def is_keyword(self) -> bool:
        return self.kind == "word" and self.text.lower() in ("and", "or", "not", "in")

    def kw(self, word: str) -> bool:
        return self.kind == "word" and self.text.lower() == word


_OPERATORS = ("==", "!=", "<>", "<=", ">=", "!~", "=", "<", ">", "~")
_WORD_STOP = frozenset(" \t\r\n\f\v()=!<>~,'\"")


def _tokenize(expr: str) -> list[_Tok]:
    toks: list[_Tok] = []
    i, n = 0, len(expr)
    while i < n:
        c = expr[i]
        if c.isspace():
            i += 1
            continue
        if c in "(),":
            toks.append(_Tok(c, c, i, c))
            i += 1
            continue
        if c in "=!<>~":
            for op in _OPERATORS:
                if expr.startswith(op, i):
                    toks.append(_Tok("op", op, i, op))
                    i += len(op)
                    break
            else:
                raise WhereError(f"'{c}' is not an operator (use != for 'not equal')", i, expr)
            continue
        if c in "'\"":
            start = i
            i += 1
            buf: list[str] = []
            while True:
                if i >= n:
                    raise WhereError(f"the string starting here has no closing {c}", start, expr)
                if expr[i] == c:
                    if i + 1 < n and expr[i + 1] == c:  # doubled quote = one quote
                        buf.append(c)
                        i += 2
                        continue
                    i += 1
                    break
                buf.append(expr[i])
                i += 1
            toks.append(_Tok("string", "".join(buf), start, expr[start:i]))
            continue
        start = i
        while i < n and expr[i] not in _WORD_STOP and not expr[i].isspace():
            i += 1
        toks.append(_Tok("word", expr[start:i], start, expr[start:i]))
    toks.append(_Tok("end", "", n, ""))
    return toks


# -- field types -----------------------------------------------------------------------------

_SIZE_UNITS = {"": 1, "b": 1, "k": 1024, "kb": 1024, "kib": 1024, "m": 1024 ** 2,
               "mb": 1024 ** 2, "mib": 1024 ** 2, "g": 1024 ** 3, "gb": 1024 ** 3,
               "gib": 1024 ** 3}
_SIZE = re.compile(r"(\d+(?:\.\d*)?|\.\d+)\s*([a-z]*)")
_INT = re.compile(r"[+-]?\d+")
_HEX = re.compile(r"[0-9a-fA-F*?]*")


class _Bad(ValueError):
    """A literal that does not fit its field: becomes a WhereError at the literal."""


class _Kind:
    """How a field's values are read from literals and compared."""

    name = "value"
    glob = False  # '*' in a = / != / in literal is a wildcard

    def parse(self, text: str, quoted: bool) -> Any:
        raise NotImplementedError

    def as_text(self, value: Any) -> str:
        """What ``~`` matches against."""
        return str(value)


class _IntKind(_Kind):
    name = "integer"

    def parse(self, text: str, quoted: bool) -> Any:
        t = text.strip()
        if not _INT.fullmatch(t):
            raise _Bad(f"{text!r} is not a whole number")
        return int(t)


class _SizeKind(_Kind):
    name = "size"

    def parse(self, text: str, quoted: bool) -> Any:
        m = _SIZE.fullmatch(text.strip().lower())
        if not m or m.group(2) not in _SIZE_UNITS:
            raise _Bad(f"{text!r} is not a size (write it like 512, 10k, 1.5m or 2MiB)")
        try:
            return int(float(m.group(1)) * _SIZE_UNITS[m.group(2)])
        except (ValueError, OverflowError):
            raise _Bad(f"{text!r} is not a size") from None


class _DurationKind(_Kind):
    name = "duration"

    def parse(self, text: str, quoted: bool) -> Any:
        try:
            v = parse_duration(text)
        except ValueError as exc:
            raise _Bad(str(exc)) from None
        if math.isnan(v):
            raise _Bad(f"{text!r} is not a duration")
        return v


class _TimeKind(_Kind):
    name = "date-time"

    def parse(self, text: str, quoted: bool) -> Any:
        try:
            return parse_iso(text)
        except ValueError as exc:
            raise _Bad(str(exc)) from None

    def as_text(self, value: Any) -> str:
        return iso_utc(value) or ""


class _BoolKind(_Kind):
    name = "true or false"

    def parse(self, text: str, quoted: bool) -> Any:
        t = text.strip().lower()
        if t not in ("true", "false"):
            raise _Bad(f"{text!r} is not true or false")
        return t == "true"


class _FloatKind(_Kind):
    name = "number"

    def parse(self, text: str, quoted: bool) -> Any:
        v = float(text.strip())
        if math.isnan(v):
            raise _Bad(f"{text!r} is not a number")
        return v


class _StrKind(_Kind):
    name = "text"
    glob = True

    def parse(self, text: str, quoted: bool) -> Any:
        return text


class _HexKind(_Kind):
    """Message and correlation ids: hex, compared without regard to case."""

    name = "hex id"
    glob = True

    def parse(self, text: str, quoted: bool) -> Any:
        t = text.strip()
        if t[:2].lower() == "0x":
            t = t[2:]
        if not _HEX.fullmatch(t):
            raise _Bad(f"{text!r} is not hexadecimal (ids are shown as hex, e.g. 414D5120...)")
        return t.upper()


class _CodeKind(_Kind):
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
            raise _Bad(f"{text!r} is not a known {self.name} (for example {self._examples})")
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


# -- the fields ------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Field:
    name: str
    kind: _Kind
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

_BY_NAME: dict[str, Field] = {}
for _f in FIELDS:
    _BY_NAME[_f.name] = _f
    for _a in _f.aliases:
        _BY_NAME[_a] = _f


def field_names() -> list[str]:
    """Every field name and alias the language knows, sorted."""
    return sorted(_BY_NAME)


# -- compiled nodes --------------------------------------------------------------------------

Pred = Callable[[Any], bool]


def _and(a: Pred, b: Pred) -> Pred:
    return lambda v: a(v) and b(v)


def _or(a: Pred, b: Pred) -> Pred:
    return lambda v: a(v) or b(v)


def _not(a: Pred) -> Pred:
    return lambda v: not a(v)


class _Segment:
    """A piece of a wildcard between two ``*``: literal text, ``?`` matching any one character.

    Its length is fixed, so finding it never backtracks: ``str.find`` when it has no ``?``,
    else a regular expression of literals and ``.`` (no repetition in it)."""

    __slots__ = ("length", "rx", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self.length = len(text)
        self.rx = None if "?" not in text else re.compile(
            "".join("." if c == "?" else re.escape(c) for c in text), re.DOTALL)

    def at(self, s: str, i: int) -> bool:
        if self.rx is None:
            return s.startswith(self.text, i)
        return i + self.length <= len(s) and self.rx.match(s, i) is not None

    def find(self, s: str, start: int, end: int) -> int:
        if self.rx is None:
            return s.find(self.text, start, end)
        m = self.rx.search(s, start, end)
        return -1 if m is None else m.start()


class _Glob:
    """``fnmatch``-style ``*`` and ``?`` over the whole value, in time linear in the text.

    A run of ``*`` is one ``*`` (``'*****Z'`` is ``'*Z'``); the pieces between stars are found
    leftmost-first, which is all a wildcard needs, so no input makes matching backtrack (a
    regular expression ``.*.*.*…Z`` takes minutes on a long value without a Z)."""

    __slots__ = ("first", "last", "middle", "single")

    def __init__(self, pattern: str) -> None:
        parts = pattern.split("*")
        self.single = len(parts) == 1
        self.first = _Segment(parts[0])
        self.last = _Segment(parts[-1])
        self.middle = [_Segment(p) for p in parts[1:-1] if p]

    def fullmatch(self, s: str) -> bool:
        first, last = self.first, self.last
        if self.single:
            return len(s) == first.length and first.at(s, 0)
        end = len(s) - last.length  # where the last piece must start
        if end < first.length or not first.at(s, 0):
            return False
        pos = first.length
        for seg in self.middle:
            at = seg.find(s, pos, end)
            if at < 0:
                return False
            pos = at + seg.length
        return pos <= end and last.at(s, end)


def _safe_get(field: Field) -> Callable[[Any], Any]:
    getter = field.get

    def get(view: Any) -> Any:
        try:
            return getter(view)
        except Exception:  # a value that cannot be read is a missing value
            return None
    return get


def _matcher(field: Field, value: Any) -> Callable[[Any], bool]:
    """Equality test of a field value against one literal (glob-aware for text)."""
    kind = field.kind
    if kind.glob and isinstance(value, str) and ("*" in value or "?" in value):
        glob = _Glob(value)
        return lambda x: isinstance(x, str) and glob.fullmatch(x)
    return lambda x: x == value


def _compare(op: str, x: Any, y: Any) -> bool:
    try:
        if op == "<":
            return x < y
        if op == "<=":
            return x <= y
        if op == ">":
            return x > y
        return x >= y
    except TypeError:
        return False


class _Parser:
    def __init__(self, expr: str, extra: tuple[Field, ...] = ()) -> None:
        self.expr = expr
        self.by_name = {**{f.name.lower(): f for f in extra}, **_BY_NAME}  # built-in names first
        self.extra = extra
        self.toks = _tokenize(expr)
        self.i = 0
        self.depth = 0
        self.needs_text = False
        self.needs_payload = False
        self.fields_used: set[str] = set()
        # the part of each predicate a backend can test on kept facts (mq.facts.FactTest):
        # a necessary condition (None: no condition), keyed by the predicate's id
        self.tests: dict[int, tuple[Pred, FactTest | None]] = {}

    def test_of(self, pred: Pred) -> FactTest | None:
        kept = self.tests.get(id(pred))
        return kept[1] if kept is not None and kept[0] is pred else None

    def tested(self, pred: Pred, test: FactTest | None) -> Pred:
        if test is not None:
            self.tests[id(pred)] = (pred, test)
        return pred

    # helpers
    @property
    def tok(self) -> _Tok:
        return self.toks[self.i]

    def advance(self) -> _Tok:
        t = self.toks[self.i]
        if t.kind != "end":
            self.i += 1
        return t

    def error(self, message: str, tok: _Tok | None = None) -> WhereError:
        t = self.tok if tok is None else tok
        return WhereError(message, t.pos, self.expr)

    @staticmethod
    def describe(t: _Tok) -> str:
        if t.kind == "end":
            return "the end of the expression"
        if t.kind == "string":
            return f"the string {t.raw}"
        shown = t.raw if len(t.raw) <= 30 else t.raw[:27] + "..."
        shown = "".join(c if c.isprintable() else "?" for c in shown)
        return f"'{shown}'"

    # grammar
    def parse(self) -> Pred:
        if self.tok.kind == "end":
            raise self.error("the expression is empty (for example: reason = Q_FULL and age > 1h)")
        pred = self.or_expr()
        if self.tok.kind != "end":
            t = self.tok
            if t.kind == ")":
                raise self.error("this ')' has no matching '('")
            raise self.error(f"expected 'and', 'or' or the end, found {self.describe(t)}")
        return pred

    def enter(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise self.error(f"the expression nests deeper than {MAX_DEPTH} levels")

    def or_expr(self) -> Pred:
        self.enter()
        pred = self.and_expr()
        while self.tok.kw("or"):
            self.advance()
            right = self.and_expr()
            a, b = self.test_of(pred), self.test_of(right)
            pred = self.tested(_or(pred, right),
                               None if a is None or b is None else ("or", a, b))
        self.depth -= 1
        return pred

    def and_expr(self) -> Pred:
        pred = self.not_expr()
        while self.tok.kw("and"):
            self.advance()
            right = self.not_expr()
            a, b = self.test_of(pred), self.test_of(right)
            pred = self.tested(_and(pred, right),
                               b if a is None else a if b is None else ("and", a, b))
        return pred

    def not_expr(self) -> Pred:
        t = self.tok
        if t.kw("not"):
            self.advance()
            self.enter()
            inner = self.not_expr()
            self.depth -= 1
            return _not(inner)
        if t.kind == "(":
            self.advance()
            inner = self.or_expr()
            if self.tok.kind != ")":
                raise self.error(f"expected ')' to close the '(' at position {t.pos + 1}, "
                                 f"found {self.describe(self.tok)}")
            self.advance()
            return inner
        return self.comparison()

    def comparison(self) -> Pred:
        t = self.tok
        if t.kind != "word" or t.is_keyword:
            raise self.error(f"expected a field name (such as reason, age, dest_q), "
                             f"found {self.describe(t)}")
        field = self.by_name.get(t.text.lower())
        if field is None:
            close = difflib.get_close_matches(t.text.lower(), list(self.by_name), n=1)
            hint = f" (did you mean {self.by_name[close[0]].name}?)" if close else ""
            raise self.error(f"unknown field '{self._clean(t.text)}'{hint}; the fields are "
                             + ", ".join(f.name for f in (*FIELDS, *self.extra)))
        self.advance()
        self.fields_used.add(field.name)
        self.needs_text |= field.needs_text
        self.needs_payload |= field.needs_payload
        get = _safe_get(field)

        op_tok = self.tok
        negate_in = False
        if op_tok.kw("not") and self.toks[self.i + 1].kw("in"):
            self.advance()
            negate_in = True
            op_tok = self.tok
        if op_tok.kw("in"):
            self.advance()
            start = self.i
            pred = self.in_list(field, get)
            if negate_in:
                return _not_present_false(get, _not(pred))
            values = [self.value(field, t) for t in self.toks[start:self.i]
                      if t.kind in ("word", "string")]
            return self.tested(pred, _fact_in(field, values))
        if op_tok.kind != "op":
            raise self.error(f"expected an operator (= != < <= > >= ~ !~ in) after "
                             f"'{field.name}', found {self.describe(op_tok)}")
        self.advance()
        op = op_tok.text
        val_tok = self.tok
        if val_tok.kind not in ("word", "string") or (val_tok.kind == "word"
                                                      and val_tok.is_keyword):
            raise self.error(f"expected a value after '{op}', found {self.describe(val_tok)}")
        self.advance()
        return self.build(field, get, op, op_tok, val_tok)

    @staticmethod
    def _clean(text: str) -> str:
        s = "".join(c if c.isprintable() else "?" for c in text)
        return s if len(s) <= 30 else s[:27] + "..."

    def value(self, field: Field, tok: _Tok) -> Any:
        try:
            return field.kind.parse(tok.text, tok.kind == "string")
        except _Bad as exc:
            raise self.error(f"{field.name} {exc}", tok) from None
        except (ValueError, OverflowError, TypeError):
            raise self.error(f"{self.describe(tok)} is not a valid {field.kind.name}",
                             tok) from None

    def in_list(self, field: Field, get: Callable[[Any], Any]) -> Pred:
        if self.tok.kind != "(":
            raise self.error(f"expected '(' after 'in', found {self.describe(self.tok)}")
        self.advance()
        matchers: list[Callable[[Any], bool]] = []
        while True:
            vt = self.tok
            if vt.kind not in ("word", "string") or (vt.kind == "word" and vt.is_keyword):
                raise self.error(f"expected a value in the list, found {self.describe(vt)}")
            self.advance()
            if vt.kind == "word" and vt.text.lower() == "null":
                raise self.error("null cannot be in a list; use 'field = null'", vt)
            matchers.append(_matcher(field, self.value(field, vt)))
            if self.tok.kind == ",":
                self.advance()
                continue
            if self.tok.kind == ")":
                self.advance()
                break
            raise self.error(f"expected ',' or ')' in the list, found {self.describe(self.tok)}")
        ms = tuple(matchers)

        def pred(view: Any) -> bool:
            x = get(view)
            if x is None:
                return False
            return any(m(x) for m in ms)
        return pred

    def pattern(self, tok: _Tok) -> Pattern:
        """The value of ``~`` compiled (RE2); a WhereError at the piece RE2 refuses."""
        try:
            return compile_pattern(tok.text)
        except PatternError as exc:
            where = _raw_offset(tok, exc.offset)
            if exc.message.startswith("RE2 "):
                raise WhereError(exc.message, where, self.expr) from None
            raise WhereError(f"{self.describe(tok)} is {exc.message}", where,
                             self.expr) from None

    def build(self, field: Field, get: Callable[[Any], Any], op: str, op_tok: _Tok,
              val_tok: _Tok) -> Pred:
        kind = field.kind
        # presence tests
        if val_tok.kind == "word" and val_tok.text.lower() == "null":
            if op in ("=", "=="):
                return lambda v: get(v) is None
            if op in ("!=", "<>"):
                return lambda v: get(v) is not None
            raise self.error(f"'{op}' cannot compare with null; use = null or != null", op_tok)

        if op in ("~", "!~"):
            pattern = self.pattern(val_tok)
            if field.name == "text":
                if op == "~":  # the payload's bytes searched, decoded only when they match
                    return self.tested(_payload_search(pattern), _fact_contains(pattern))
                return _payload_absent(pattern)
            as_text = kind.as_text
            want = op == "~"

            def rx_pred(view: Any) -> bool:
                x = get(view)
                if x is None:
                    return False
                try:
                    return pattern.search(x if isinstance(x, str) else as_text(x)) == want
                except Exception:
                    return False
            return rx_pred

        value = self.value(field, val_tok)
        if op in ("=", "==", "!=", "<>"):
            m = _matcher(field, value)
            sql_op = "=" if op in ("=", "==") else "!="
            if op in ("=", "=="):
                return self.tested(lambda v: (x := get(v)) is not None and m(x),
                                   _fact_cmp(field, sql_op, value))
            return self.tested(lambda v: (x := get(v)) is not None and not m(x),
                               _fact_cmp(field, sql_op, value))

        # ordering: numbers, durations, sizes, codes, times; text in character order
        return self.tested(lambda v: (x := get(v)) is not None and _compare(op, x, value),
                           _fact_cmp(field, op, value))


# fields a backend keeps as facts (mq.facts), and the fact each is
_FACT_OF = {"reason": "reason", "dest_q": "dest_q", "original_format": "format",
            "backout_count": "backout_count", "length": "length", "priority": "priority"}


def _fact_value(field: Field, value: Any) -> bool:
    """Whether a backend's comparison of the fact with ``value`` is the field's own."""
    if isinstance(value, str):
        return not (field.kind.glob and ("*" in value or "?" in value))
    # SQLite's integers are 64-bit: a number past them is left to the predicate
    return (isinstance(value, int) and not isinstance(value, bool)
            and _SQLITE_MIN <= value <= _SQLITE_MAX)


_SQLITE_MIN, _SQLITE_MAX = -(2 ** 63), 2 ** 63 - 1


def _fact_cmp(field: Field, op: str, value: Any) -> FactTest | None:
    fact = _FACT_OF.get(field.name)
    if fact is None or not _fact_value(field, value):
        return None
    if isinstance(value, str) and op not in ("=", "!="):
        return None  # text order: left to the predicate
    return ("cmp", fact, op, value)


def _fact_in(field: Field, values: list[Any]) -> FactTest | None:
    fact = _FACT_OF.get(field.name)
    if fact is None or not values or not all(_fact_value(field, v) for v in values):
        return None
    return ("in", fact, tuple(values))


def _not_present_false(get: Callable[[Any], Any], pred: Pred) -> Pred:
    """``not in`` is a comparison too: false when the value is missing."""
    return lambda v: get(v) is not None and pred(v)


def _raw_offset(tok: _Tok, offset: int) -> int:
    """Where the ``offset``-th character of a value lies in the expression (a quoted
    value's quote and doubled quotes counted)."""
    if tok.kind != "string":
        return tok.pos + offset
    quote = tok.raw[0]
    i, seen = 1, 0
    while seen < offset and i < len(tok.raw):
        i += 2 if tok.raw[i] == quote else 1
        seen += 1
    return tok.pos + i


def _payload_search(pattern: Pattern) -> Pred:
    """``text ~ pattern``: the payload's bytes searched in its CCSID; only a payload whose
    bytes hold a match (or that cannot be searched as bytes) is decoded and searched as
    text (``textsearch.Pattern.in_payload``)."""
    def pred(view: Any) -> bool:
        try:
            if pattern.in_payload(view.payload, view.payload_ccsid) is False:
                return False
            text = view.text
            return text is not None and pattern.search(text)
        except Exception:  # a payload that cannot be read is a missing value
            return False
    return pred


def _payload_absent(pattern: Pattern) -> Pred:
    """``text !~ pattern``: a text payload (decoded: a binary one is a missing value) where
    the pattern is not found."""
    def pred(view: Any) -> bool:
        try:
            text = view.text
            return text is not None and not pattern.search(text)
        except Exception:
            return False
    return pred


def _fact_contains(pattern: Pattern) -> FactTest | None:
    """What a body must contain for its payload to hold a match (the pattern's literal in
    every CCSID), as a test a backend can run where the messages are."""
    forms = pattern.body_forms()
    return None if forms is None else ("contains", "body", forms)


# -- the public face -------------------------------------------------------------------------

class Where:
    """A compiled ``--where`` expression.

    ``matches(view)`` never raises. ``needs_text`` says whether the expression reads the
    decoded payload text (so a caller may skip decoding otherwise); ``needs_payload`` whether
    it reads anything past the dead-letter header.
    """

    __slots__ = ("_pred", "expression", "fact_test", "fields", "needs_payload", "needs_text")

    def __init__(self, expression: str, pred: Pred, *, needs_text: bool, needs_payload: bool,
                 fields: frozenset[str], fact_test: FactTest | None = None) -> None:
        self.expression = expression
        #: what a message must pass for ``matches`` to hold, as a test on kept facts
        #: (``mq.facts``) a backend can run where the messages are; None: nothing to test
        self.fact_test = fact_test
        self._pred = pred
        self.needs_text = needs_text
        self.needs_payload = needs_payload
        self.fields = fields

    def matches(self, view: Any) -> bool:
        """Whether ``view`` is selected (never raises: a value that cannot be read is a
        missing one; ``~`` is RE2's, linear in the text, so no match needs a time bound)."""
        try:
            return bool(self._pred(view))
        except Exception:  # pragma: no cover - every comparison already guards itself
            return False

    __call__ = matches

    def __repr__(self) -> str:
        return f"Where({self.expression!r})"


def compile_where(expr: str | None, columns: tuple[Field, ...] = ()) -> Where:
    """Compile an expression once; raises :class:`WhereError` (and nothing else) when it is bad.

    An empty or blank expression is an error: callers leave ``--where`` out to select all.
    ``columns``: more fields (the site plugins' audit columns, ``where_columns.py``); a
    built-in field keeps its name.
    """
    if expr is None:
        raise WhereError("no expression was given", 0, "")
    if not isinstance(expr, str):
        raise WhereError("the expression must be text", 0, "")
    if len(expr) > MAX_LENGTH:
        raise WhereError(f"the expression is longer than {MAX_LENGTH} characters",
                         MAX_LENGTH, expr)
    try:
        p = _Parser(expr, tuple(columns))
        pred = p.parse()
    except WhereError:
        raise
    except RecursionError:
        raise WhereError("the expression nests too deeply", 0, expr) from None
    return Where(expr, pred, needs_text=p.needs_text, needs_payload=p.needs_payload,
                 fields=frozenset(p.fields_used), fact_test=p.test_of(pred))
