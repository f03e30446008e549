"""mq.queue: the one place queue names and attribute values are judged (both faces ask)."""

from __future__ import annotations

import pytest

from mqconsole.mq.queue import changes_problem, name_problem


def test_name_problem_names_the_rule() -> None:
    assert name_problem("APP.ORDERS") is None
    assert name_problem("B" * 49) == f"{'B' * 49!r} is not an MQ name (1-48 of A-Z a-z 0-9 . _ / %)"


@pytest.mark.parametrize(("changes", "said"), [
    ({"boqname": "Q"}, "Q cannot be its own backout queue (BOQNAME)"),
    ({"bothresh": -1}, "bothresh must be a whole number from 0 to 999999999, not -1"),
    ({"max_depth": True}, "max_depth must be a whole number"),
    ({"boqname": "bad name!"}, "boqname 'bad name!' is not an MQ name"),
    ({"colour": "red"}, "not a changeable queue attribute: colour"),
])
def test_changes_problem_says_the_first_thing_wrong(changes, said) -> None:
    assert said in changes_problem("Q", changes)


def test_changes_problem_lets_good_and_unset_values_go() -> None:
    assert changes_problem("Q", {"boqname": "Q.BOQ", "bothresh": 3, "hardenbo": True,
                                 "description": None}) is None
