"""A change is said in MQ's words in every face (issue 24 item 6)."""

from __future__ import annotations

import pytest

from mqconsole.ops.changes import change_line, change_lines


@pytest.mark.parametrize(
    "attr, before, after, said",
    [
        ("hardenbo", False, True, "HARDENBO: NOHARDENBO → HARDENBO"),
        ("boqname", "", "APP.CLAIMS.BOQ", "BOQNAME: ' ' → APP.CLAIMS.BOQ"),
        ("boqname", "APP.OLD.BOQ   ", "", "BOQNAME: APP.OLD.BOQ → ' '"),
        ("put_inhibited", False, True, "PUT: ENABLED → DISABLED"),
        ("get_inhibited", True, False, "GET: DISABLED → ENABLED"),
        ("bothresh", 0, 3, "BOTHRESH: 0 → 3"),
        ("max_depth", 5000, 10, "MAXDEPTH: 5000 → 10"),
        ("default_persistence", 0, 1, "DEFPSIST: NO → YES"),
        ("priority", 0, 5, "Priority: 0 → 5"),
        ("persistence", 0, 1, "Persistence: MQPER_NOT_PERSISTENT → MQPER_PERSISTENT"),
        ("reply_to_q", "", "APP.REPLY", "ReplyToQ: ' ' → APP.REPLY"),
        ("format", "MQSTR   ", "MQHRF2  ", "Format: MQSTR → MQHRF2"),
    ],
)
def test_each_field_by_its_mq_name_and_value(attr, before, after, said):
    assert change_line(attr, before, after) == said


def test_the_journals_plain_values_read_the_same():
    journal = {"hardenbo": {"before": False, "after": True},
               "boqname": {"before": "", "after": "APP.CLAIMS.BOQ"}}
    assert change_lines(journal, arrow="->") == ["HARDENBO: NOHARDENBO -> HARDENBO",
                                                 "BOQNAME: ' ' -> APP.CLAIMS.BOQ"]
