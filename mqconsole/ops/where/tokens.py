"""``--where``'s tokenizer: words, quoted strings (a quote written twice is one quote),
operators, parentheses and commas, each with its position."""

from __future__ import annotations

from dataclasses import dataclass

from .errors import WhereError


@dataclass(frozen=True, slots=True)
class Token:
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


def tokenize(expr: str) -> list[Token]:
    toks: list[Token] = []
    i, n = 0, len(expr)
    while i < n:
        c = expr[i]
        if c.isspace():
            i += 1
            continue
        if c in "(),":
            toks.append(Token(c, c, i, c))
            i += 1
            continue
        if c in "=!<>~":
            for op in _OPERATORS:
                if expr.startswith(op, i):
                    toks.append(Token("op", op, i, op))
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
            toks.append(Token("string", "".join(buf), start, expr[start:i]))
            continue
        start = i
        while i < n and expr[i] not in _WORD_STOP and not expr[i].isspace():
            i += 1
        toks.append(Token("word", expr[start:i], start, expr[start:i]))
    toks.append(Token("end", "", n, ""))
    return toks
