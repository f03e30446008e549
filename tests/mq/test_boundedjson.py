"""Bounded JSON: hostile documents give ValueError (never RecursionError) and depth is exact."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mqconsole.mq.boundedjson import MAX_DEPTH, TooDeep, check_depth, depth, loads
from tests.support.examples import examples

NESTED = "[" * 1000 + "]" * 1000  # 2 KB that overflows json.loads' C recursion guard


def test_nested_brackets_are_too_deep_not_a_recursion_error():
    with pytest.raises(RecursionError):
        json.loads(NESTED)  # the hazard this module exists for
    with pytest.raises(TooDeep, match="nests too deeply"):
        loads(NESTED)
    with pytest.raises(TooDeep, match=f"deeper than {MAX_DEPTH} levels"):
        loads("[" * 200 + "]" * 200)  # loads fine, but too deep to pretty-print safely
    assert loads("[" * MAX_DEPTH + "]" * MAX_DEPTH) is not None
    assert depth(loads("[" * 200 + "]" * 200, limit=None), limit=10**6) == 200


def test_depth_counts_lists_and_objects_and_stops_at_the_limit():
    assert depth(1) == 0 and depth([]) == 1 and depth({"a": [1, {"b": []}]}) == 4
    deep: list = []
    for _ in range(50_000):  # far past the interpreter's stack: the walk is iterative
        deep = [deep]
    assert depth(deep, limit=10) == 11
    with pytest.raises(TooDeep, match="'details' nests deeper than 10"):
        check_depth(deep, 10, "'details'")


@examples(300)
@given(st.text(alphabet='[]{}":,0 1a\\', max_size=3000))
def test_any_text_is_a_value_or_a_value_error(text):
    try:
        value = loads(text)
    except ValueError:
        return
    assert depth(value) <= MAX_DEPTH


@examples(100)
@given(st.integers(min_value=1, max_value=5000), st.sampled_from("[{"))
def test_any_nesting_depth_is_read_or_refused_cleanly(n, opener):
    closer = "]" if opener == "[" else "}"
    text = ('{"a":' * n + "1" + "}" * n) if opener == "{" else opener * n + closer * n
    try:
        value = loads(text)
    except TooDeep:
        assert n > MAX_DEPTH
        return
    assert depth(value) == n


@pytest.mark.parametrize("text", [NESTED, NESTED.encode(), "[" * 5000, "{\"a\":" * 2000],
                         ids=["text", "bytes", "unclosed", "objects"])
def test_no_collection_runs_while_a_deep_text_is_parsed(text, monkeypatch):
    """A garbage collection deep inside the parser would run other objects' finalisers with
    no stack left (their RecursionError reported as unraisable: a stray test failure seen
    in a long run); with the collector as eager as it gets, none starts during the parse."""
    import gc

    from mqconsole.mq import boundedjson

    real = json.loads
    parsing = [False]
    during: list[int] = []

    def count(phase: str, info: dict) -> None:
        if phase == "start" and parsing[0]:
            during.append(info["generation"])

    def watched(doc):
        parsing[0] = True
        try:
            return real(doc)
        finally:
            parsing[0] = False

    monkeypatch.setattr(boundedjson.json, "loads", watched)
    thresholds = gc.get_threshold()
    gc.callbacks.append(count)
    gc.set_threshold(1, 1, 1)
    try:
        with pytest.raises(TooDeep):
            loads(text)
    finally:
        gc.set_threshold(*thresholds)
        gc.callbacks.remove(count)
    assert during == []
    assert gc.isenabled()
