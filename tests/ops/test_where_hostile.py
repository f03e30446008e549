"""--where against catastrophic patterns (issues 17 and 27): every match ends, in time linear
in the text, with the right answer.

No test here asserts a speed: a pattern that made a backtracking engine run for hours
(``(a|aa)+$`` on 5,000 a's and a ``!``) must simply end with its answer (RE2 cannot
backtrack: a pytest run that hung would be the failure), features RE2 refuses are clear
errors at their position, and wildcards must agree with the plain definition on every input.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mqconsole.ops.where import WhereError, compile_where
from mqconsole.ops.where.glob import Glob as _Glob
from tests.support.examples import examples

from .test_where import make_view


@pytest.mark.parametrize(("pattern", "found"), [
    ("(a|aa)+$", False), (r"(\w+\s?)*$", True), ("(a+)+$", False), ("(a*)*b", False),
    ("(x+x+)+y", False), ("^(a|a?)+$", False)])
def test_a_catastrophic_regex_ends_with_its_answer(pattern, found):
    hostile = make_view(b"a" * 5000 + b"!", position=7)
    assert compile_where(f"text ~ '{pattern}'").matches(hostile) is found
    assert compile_where(f"text !~ '{pattern}'").matches(hostile) is not found
    # a text field other than the payload: the same engine
    user = make_view(b"", user_identifier="a" * 11 + "!")
    assert compile_where(f"user ~ '{pattern}'").matches(user) is found


def test_the_same_patterns_match_where_they_should():
    assert compile_where("text ~ '(a|aa)+$'").matches(make_view(b"!" + b"a" * 5000))
    assert compile_where(r"text ~ '(\w+\s?)*$'").matches(make_view(b"ab cd ef"))


@pytest.mark.parametrize(("pattern", "column", "words"), [
    (r"(a)\1", 4, "RE2 does not support backreferences"),
    ("(?P<x>a)(?P=x)", 9, "RE2 does not support backreferences"),
    ("a(?=b)", 2, "RE2 does not support lookahead"),
    ("a(?!b)", 2, "RE2 does not support lookahead"),
    ("(?<=a)b", 1, "RE2 does not support lookbehind"),
    ("(?<!a)b", 1, "RE2 does not support lookbehind"),
    ("(?>a+)b", 1, "RE2 does not support atomic groups"),
    ("a*+b", 2, "RE2 does not support possessive quantifiers"),
    (r"x\Z", 2, r"write \z for the end of the text"),
    ("(?x)a b", 1, "RE2 does not support the flag x"),
    (r"caf\u00e9", 4, r"write \x{hex}"),
    ("a{,3}", 2, "write {0,3}"),
    ("a{1001}", 2, "RE2 does not support a repetition over 1000"),
])
def test_what_re2_refuses_is_a_where_error_at_its_place(pattern, column, words):
    expr = f"text ~ '{pattern}'"
    with pytest.raises(WhereError) as info:
        compile_where(expr)
    text = str(info.value)
    assert words in text, text
    assert info.value.column == 8 + column, text  # 'text ~ ' and the quote come first
    assert text.startswith(f"Bad --where expression at position {8 + column}: ")
    assert text.endswith("^") and "\n  text ~ '" in text


def test_regex_syntax_errors_are_still_where_errors():
    with pytest.raises(WhereError, match="is not a valid regular expression"):
        compile_where("text ~ '(a'")


def test_many_stars_collapse_and_match_in_linear_time():
    stars = "*" * 22 + "Z"
    long = make_view(b"x", dest_q="A" * 48, reason=2053)
    assert compile_where(f"dest_q = '{stars}'").matches(long) is False
    assert compile_where(f"text = '{stars}'").matches(make_view(b"Q" * 200_000)) is False
    assert compile_where(f"text = '{stars}'").matches(make_view(b"Q" * 200_000 + b"Z"))
    assert compile_where("text = '*a*a*a*a*a*a*a*a*a*b'").matches(make_view(b"a" * 100_000)) \
        is False


def _reference(pattern: str, text: str) -> bool:
    rx = "".join(".*" if c == "*" else "." if c == "?" else re.escape(c) for c in pattern)
    return re.fullmatch(rx, text, re.DOTALL) is not None


@given(st.text(alphabet="ab*?\n", max_size=12), st.text(alphabet="ab\n", max_size=14))
def test_glob_agrees_with_the_regular_expression_it_replaces(pattern, text):
    assert _Glob(pattern).fullmatch(text) == _reference(pattern, text)


@examples(200)
@given(st.text(max_size=60))
def test_any_pattern_text_compiles_or_is_a_where_error(pattern):
    quoted = pattern.replace("'", "''")
    try:
        where = compile_where(f"text ~ '{quoted}'")
    except WhereError:
        return
    assert where.matches(make_view("héllo wörld\n".encode())) in (True, False)
