"""Names of MQ's coded values, as an operator reads them."""

from __future__ import annotations

import pytest

from mqconsole.mq.names import (
    appl_type_name,
    feedback_name,
    format_name,
    msg_type_name,
    persistence_name,
    reason_by_text,
    reason_name,
)

# The codes structures.md lists as seen on dead-letter queues.
DLQ_REASONS = {
    2030: "MSG_TOO_BIG_FOR_Q", 2031: "MSG_TOO_BIG_FOR_Q_MGR", 2035: "NOT_AUTHORIZED",
    2051: "PUT_INHIBITED", 2052: "Q_DELETED", 2053: "Q_FULL", 2056: "Q_SPACE_NOT_AVAILABLE",
    2082: "UNKNOWN_ALIAS_BASE_Q", 2085: "UNKNOWN_OBJECT_NAME", 2087: "UNKNOWN_REMOTE_Q_MGR",
    2092: "XMIT_Q_USAGE_ERROR", 2110: "FORMAT_ERROR", 2119: "NOT_CONVERTED",
    2189: "CLUSTER_RESOLUTION_ERROR", 2362: "BACKOUT_THRESHOLD_REACHED",
    2363: "MSG_NOT_MATCHED", 2364: "JMS_FORMAT_ERROR",
}
DLQ_FEEDBACKS = {
    258: "EXPIRATION", 259: "COA", 260: "COD", 263: "CHANNEL_FAIL_RETRY", 264: "CHANNEL_FAIL",
    265: "APPL_CANNOT_BE_STARTED", 266: "TM_ERROR", 267: "APPL_TYPE_ERROR",
    271: "XMIT_Q_MSG_ERROR",
}


@pytest.mark.parametrize(("code", "name"), sorted(DLQ_REASONS.items()))
def test_dlq_reasons(code, name):
    assert reason_name(code) == "MQRC_" + name
    assert reason_by_text(name) == code
    assert reason_by_text("mqrc_" + name.lower()) == code
    assert reason_by_text(str(code)) == code


@pytest.mark.parametrize(("code", "name"), sorted(DLQ_FEEDBACKS.items()))
def test_dlq_feedbacks(code, name):
    assert reason_name(code) == "MQFB_" + name
    assert feedback_name(code) == "MQFB_" + name
    assert reason_by_text("MQFB_" + name) == code


def test_reason_name_ranges():
    assert reason_name(2053) == "MQRC_Q_FULL"
    assert reason_name(0) == "MQRC_NONE"
    assert reason_name(300) == "MQFB_IMS_ERROR"
    assert reason_name(301) == "MQFB_IMS_1"  # a range bound is not a name
    assert reason_name(399) == "MQFB_IMS_99"
    assert reason_name(401) == "MQFB_CICS_INTERNAL_ERROR"
    assert reason_name(413) == "MQFB_CICS_UOW_BACKED_OUT"
    assert reason_name(900) == "MQRC_APPL_900"
    assert reason_name(65536) == "MQFB_APPL_65536"
    assert reason_name(70000) == "MQFB_APPL_70000"
    assert reason_name(1) == "UNKNOWN_1"
    assert reason_name(-5) == "UNKNOWN_-5"


def test_reason_name_prefers_operator_names():
    assert reason_name(2059) == "MQRC_Q_MGR_NOT_AVAILABLE"


def test_feedback_name():
    assert feedback_name(0) == "MQFB_NONE"
    assert feedback_name(2053) == "MQRC_Q_FULL"  # reports carry reason codes in Feedback
    assert feedback_name(305) == "MQFB_IMS_5"
    assert feedback_name(65537) == "MQFB_APPL_65537"
    assert feedback_name(7) == "UNKNOWN_7"


def test_reason_by_text_unknown():
    assert reason_by_text("NO_SUCH_THING") is None
    assert reason_by_text(" q_full ") == 2053
    assert reason_by_text("-1") == -1


def test_format_name():
    assert format_name("MQSTR   ") == "MQFMT_STRING"
    assert format_name("MQSTR") == "MQFMT_STRING"
    assert format_name("MQSTR\x00\x00\x00") == "MQFMT_STRING"
    assert format_name("MQDEAD  ") == "MQFMT_DEAD_LETTER_HEADER"
    assert format_name("MQHRF   ") == "MQFMT_RF_HEADER_1"
    assert format_name("MQHRF2  ") == "MQFMT_RF_HEADER_2"
    assert format_name("        ") == "MQFMT_NONE"
    assert format_name("MYAPPFMT") == "MYAPPFMT"


def test_other_names():
    assert msg_type_name(8) == "MQMT_DATAGRAM"
    assert msg_type_name(4) == "MQMT_REPORT"
    assert msg_type_name(70000) == "APPL_70000"
    assert persistence_name(1) == "MQPER_PERSISTENT"
    assert persistence_name(2) == "MQPER_PERSISTENCE_AS_Q_DEF"
    assert persistence_name(9) == "UNKNOWN_9"
    assert appl_type_name(6) == "MQAT_UNIX"
    assert appl_type_name(2) == "MQAT_ZOS"
    assert appl_type_name(11) == "MQAT_WINDOWS_NT"
    assert appl_type_name(28) == "MQAT_JAVA"
    assert appl_type_name(70000) == "MQAT_USER_70000"
    assert appl_type_name(999) == "UNKNOWN_999"
