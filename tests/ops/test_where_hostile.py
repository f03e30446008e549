"""--where against catastrophic patterns (issue 17 item 6): every match ends within a bound.

No test here asserts a speed: a regex that backtracks without end must end in a clear
``WhereTooSlow``, and wildcards must agree with the plain definition on every input.
"""

from __future__ import annotations

import contextlib
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mqconsole.ops.where import WhereError, WhereTooSlow, _Glob, compile_where
from tests.support.examples import examples

from .test_where import make_view


@pytest.fixture
def quick_bound(monkeypatch):
    """A shorter bound keeps the suite quick; the behaviour is the same at 1 s."""
    from mqconsole.ops import where

    monkeypatch.setattr(where, "REGEX_SECONDS", 0.2)
    return 0.2


@pytest.mark.parametrize("pattern", ["(a|aa)+$", r"(\w+\s?)*$", "(a+)+$"])
def test_a_catastrophic_regex_stops_with_a_clear_error(pattern, quick_bound):
    view = make_view(b"a" * 5000 + b"!", position=7)
    where = compile_where(f"text ~ '{pattern}'")
    with pytest.raises(WhereTooSlow) as info:
        where.matches(view)
    text = str(info.value)
    assert isinstance(info.value, WhereError)  # the CLI's exit 2, the console's notification
    assert f"took more than {quick_bound:g} s on one message (position 7)" in text
    assert text.startswith("Bad --where expression at position 8: the regular expression "
                           f"'{pattern}'")
    assert "\n  text ~ '" in text and text.endswith("^")


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


@examples(600)
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
    with contextlib.suppress(WhereTooSlow):
        assert where.matches(make_view("héllo wörld\n".encode())) in (True, False)
