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

One module per job: ``errors.py`` (:class:`WhereError`), ``tokens.py``, ``kinds.py`` (how a
literal is read for each kind of field), ``fields.py`` (the field table), ``glob.py`` (the
wildcards of ``=``), ``pushdown.py`` (the part a backend tests where the messages are) and
``parser.py`` (the grammar, :class:`Where`, :func:`compile_where`). The site plugins' audit
columns as fields are ``ops/where_columns.py``.
"""

from __future__ import annotations

from .errors import WhereError
from .fields import FIELDS, Field, field_names
from .kinds import BOOL, FLOAT, INT, STR
from .parser import Where, compile_where

__all__ = ["BOOL", "FIELDS", "FLOAT", "INT", "STR", "Field", "Where", "WhereError",
           "compile_where", "field_names"]
