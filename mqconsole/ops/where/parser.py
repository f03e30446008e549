"""``--where``'s parser: recursive descent over the tokens (nothing is ever ``eval``-ed),
each comparison compiled once into a predicate over a
:class:`~mqconsole.ops.views.MessageView` together with the test a backend can run on its kept
facts (``pushdown.py``); :func:`compile_where` gives the :class:`Where` of both."""

from __future__ import annotations

import difflib
from collections.abc import Callable
from typing import Any

from mqconsole.mq.facts import FactTest

from ..textsearch import Pattern, PatternError, compile_pattern
from .errors import WhereError
from .fields import BY_NAME, FIELDS, Field
from .glob import Glob
from .kinds import BadLiteral
from .pushdown import fact_cmp, fact_contains, fact_in
from .tokens import Token, tokenize

MAX_DEPTH = 64
MAX_LENGTH = 10_000


# -- compiled nodes --------------------------------------------------------------------------

Pred = Callable[[Any], bool]


def _and(a: Pred, b: Pred) -> Pred:
    return lambda v: a(v) and b(v)


def _or(a: Pred, b: Pred) -> Pred:
    return lambda v: a(v) or b(v)


def _not(a: Pred) -> Pred:
    return lambda v: not a(v)


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
        glob = Glob(value)
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
        self.by_name = {**{f.name.lower(): f for f in extra}, **BY_NAME}  # built-in names first
        self.extra = extra
        self.toks = tokenize(expr)
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
    def tok(self) -> Token:
        return self.toks[self.i]

    def advance(self) -> Token:
        t = self.toks[self.i]
        if t.kind != "end":
            self.i += 1
        return t

    def error(self, message: str, tok: Token | None = None) -> WhereError:
        t = self.tok if tok is None else tok
        return WhereError(message, t.pos, self.expr)

    @staticmethod
    def describe(t: Token) -> str:
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
            return self.tested(pred, fact_in(field, values))
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

    def value(self, field: Field, tok: Token) -> Any:
        try:
            return field.kind.parse(tok.text, tok.kind == "string")
        except BadLiteral as exc:
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

    def pattern(self, tok: Token) -> Pattern:
        """The value of ``~`` compiled (RE2); a WhereError at the piece RE2 refuses."""
        try:
            return compile_pattern(tok.text)
        except PatternError as exc:
            where = _raw_offset(tok, exc.offset)
            if exc.message.startswith("RE2 "):
                raise WhereError(exc.message, where, self.expr) from None
            raise WhereError(f"{self.describe(tok)} is {exc.message}", where,
                             self.expr) from None

    def build(self, field: Field, get: Callable[[Any], Any], op: str, op_tok: Token,
              val_tok: Token) -> Pred:
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
                    return self.tested(_payload_search(pattern), fact_contains(pattern))
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
                                   fact_cmp(field, sql_op, value))
            return self.tested(lambda v: (x := get(v)) is not None and not m(x),
                               fact_cmp(field, sql_op, value))

        # ordering: numbers, durations, sizes, codes, times; text in character order
        return self.tested(lambda v: (x := get(v)) is not None and _compare(op, x, value),
                           fact_cmp(field, op, value))


def _not_present_false(get: Callable[[Any], Any], pred: Pred) -> Pred:
    """``not in`` is a comparison too: false when the value is missing."""
    return lambda v: get(v) is not None and pred(v)


def _raw_offset(tok: Token, offset: int) -> int:
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
