"""MessageView: the browse row, the show view, laziness, and never raising."""

from __future__ import annotations

import json
import string
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mqconsole.mq.chain import add_dead_letter_header
from mqconsole.mq.md import MQMD
from mqconsole.mq.message import Message
from mqconsole.mq.rfh2 import MQRFH2
from mqconsole.ops import views as views_mod
from mqconsole.ops.timefmt import format_put_date_time
from mqconsole.ops.views import MessageView, msg_flag_names, report_option_names

NOW = datetime(2026, 9, 22, 12, 0, 0, tzinfo=UTC)
PUT = datetime(2026, 9, 22, 2, 34, 28, 280000, tzinfo=UTC)
MSGID = bytes.fromhex("414d5120514d31202020202020202020" "a1b2c3d4e5f60718")

ROW_KEYS = ["position", "msgid", "token", "correlid", "put_time", "format", "persistence",
            "priority", "backout_count", "length", "user", "put_appl_name", "dlh", "preview"]
DLH_KEYS = ["reason", "reason_name", "dest_q", "dest_qmgr", "format", "put_appl_name",
            "put_time"]


def plain_md(**kw) -> MQMD:
    d, t = format_put_date_time(PUT)
    base = dict(format="MQSTR", ccsid=1208, encoding=546, put_date=d, put_time=t, priority=4,
                persistence=1, user_identifier="appuser", put_appl_name="orders.exe",
                msg_id=MSGID, correl_id=b"\x01" * 24, backout_count=2, put_appl_type=6)
    base.update(kw)
    return MQMD(**base)


def dead_lettered(payload: bytes, *, reason: int = 2053, dest_q: str = "APP.ORDERS",
                  **md_kw) -> Message:
    md, body = add_dead_letter_header(plain_md(**md_kw), payload, reason=reason,
                                      dest_q_name=dest_q, dest_qmgr_name="QM1",
                                      put_appl_type=7, put_appl_name="amqrmppa",
                                      put_date="20260922", put_time="02350000")
    return Message(md, body)


# -- the browse row --------------------------------------------------------------------------

def test_row_of_dead_lettered_json():
    v = MessageView(7, dead_lettered(b'{"order": 42}'), NOW)
    row = v.row()
    assert list(row) == ROW_KEYS
    assert row == {
        "position": 7,
        "msgid": "414D5120514D31202020202020202020A1B2C3D4E5F60718",
        "token": None,  # a message made here, not browsed: no token
        "correlid": "01" * 24,
        "put_time": "2026-09-22T02:34:28.280Z",
        "format": "MQDEAD",
        "persistence": "PERSISTENT",
        "priority": 4,
        "backout_count": 2,
        "length": 172 + 13,
        "user": "appuser",
        "put_appl_name": "orders.exe",
        "dlh": {
            "reason": 2053,
            "reason_name": "MQRC_Q_FULL",
            "dest_q": "APP.ORDERS",
            "dest_qmgr": "QM1",
            "format": "MQSTR",
            "put_appl_name": "amqrmppa",
            "put_time": "2026-09-22T02:35:00.000Z",
        },
        "preview": '{"order": 42}',
    }
    assert list(row["dlh"]) == DLH_KEYS
    json.dumps(row)


def test_row_of_plain_message():
    v = MessageView(1, Message(plain_md(persistence=0), b"hello\nworld"), NOW)
    row = v.row()
    assert row["dlh"] is None
    assert row["format"] == "MQSTR"
    assert row["persistence"] == "NOT_PERSISTENT"
    assert row["preview"] == "hello⏎world"
    assert v.text == "hello\nworld"
    assert v.age_seconds == pytest.approx((NOW - PUT).total_seconds())


@pytest.mark.parametrize("code,name", [(0, "NOT_PERSISTENT"), (1, "PERSISTENT"),
                                       (2, "PERSISTENCE_AS_Q_DEF"), (7, "UNKNOWN_7")])
def test_persistence_names(code, name):
    assert MessageView(1, Message(plain_md(persistence=code), b""), NOW).row()[
        "persistence"] == name


def test_row_blank_format_and_bad_put_time():
    v = MessageView(1, Message(plain_md(format="", put_date="", put_time="garbage"), b"x"), NOW)
    row = v.row()
    assert row["format"] == ""
    assert row["put_time"] is None
    assert v.age_seconds is None


def test_preview_is_of_payload_after_rfh2():
    rfh = MQRFH2(format="MQSTR", ccsid=1208, encoding=546,
                 folders=["<mcd><Msd>jms_text</Msd></mcd>", "<usr><color>red</color></usr>"])
    body = rfh.pack(big_endian=False, ccsid=1208) + b"JMS text body"
    v = MessageView(1, Message(plain_md(format="MQHRF2"), body), NOW)
    assert v.row()["preview"] == "JMS text body"
    assert v.payload_format == "MQSTR"
    shown = v.show()
    assert [h["type"] for h in shown["headers"]] == ["MQRFH2"]
    assert shown["headers"][0]["folders"][1]["properties"] == {"color": "red"}
    assert shown["payload"]["text"] == "JMS text body"
    assert shown["payload"]["offset"] == rfh.length


def test_dead_lettered_rfh2_chain():
    rfh = MQRFH2(format="MQSTR", ccsid=1208, folders=["<jms><Dst>queue:///A</Dst></jms>"])
    inner = rfh.pack(big_endian=False, ccsid=1208) + b"text after two headers"
    v = MessageView(1, dead_lettered(inner, format="MQHRF2", reason=2035), NOW)
    assert v.row()["preview"] == "text after two headers"
    assert v.row()["dlh"]["format"] == "MQHRF2"
    assert v.original_format == "MQHRF2"
    assert [h["type"] for h in v.show()["headers"]] == ["MQDLH", "MQRFH2"]


def test_ebcdic_big_endian_from_zos():
    md = plain_md(format="MQSTR", ccsid=500, encoding=785)
    md, body = add_dead_letter_header(md, "HELLO FROM Z/OS".encode("cp500"), reason=2085,
                                      dest_q_name="CICS.IN", dest_qmgr_name="MVS1",
                                      put_date="20260922", put_time="01000000")
    v = MessageView(3, Message(md, body), NOW)
    row = v.row()
    assert row["dlh"]["dest_q"] == "CICS.IN"
    assert row["dlh"]["reason_name"] == "MQRC_UNKNOWN_OBJECT_NAME"
    assert row["preview"] == "HELLO FROM Z/OS"
    assert v.show()["payload"]["ccsid"] == 500
    assert v.show()["md"]["EncodingByteOrder"] == "big-endian"


def test_binary_payload():
    v = MessageView(1, Message(plain_md(format=""), bytes(range(256))), NOW)
    assert v.text is None
    assert v.row()["preview"].startswith("‹binary, 256 bytes›")
    p = v.show()["payload"]
    assert p["kind"] == "binary"
    assert p["text"] is None
    assert p["note"]
    assert p["hex"] == bytes(range(256)).hex().upper()
    assert p["length"] == 256


def test_terminal_escapes_never_reach_the_preview():
    payload = "\x1b[2J\x1b]0;pwned\x07 rest \u202e".encode()
    v = MessageView(1, Message(plain_md(format=""), payload), NOW)
    for shown in (v.row()["preview"], MessageView(1, Message(plain_md(), payload), NOW).row()[
            "preview"]):
        for bad in ("\x1b", "\x07", "\u202e"):
            assert bad not in shown


def test_malformed_dead_letter_header():
    md = plain_md(format="MQDEAD")
    v = MessageView(1, Message(md, b"DLH \x01\x00\x00\x00short"), NOW)
    row = v.row()
    assert row["dlh"] is None
    assert v.reason is None and v.dest_q is None
    shown = v.show()
    assert "MQDLH" in shown["header_error"]
    assert shown["headers"] == []
    assert shown["payload"]["length"] == len(b"DLH \x01\x00\x00\x00short")
    json.dumps(shown)


def test_show_has_no_header_error_when_clean():
    assert "header_error" not in MessageView(1, Message(plain_md(), b"x"), NOW).show()


# -- show --------------------------------------------------------------------------------------

def test_show_md_names_and_expiry():
    md = plain_md(report=256 | 128 | 64 | 1, feedback=0, msg_type=8, expiry=36000,
                  reply_to_q="REPLY.Q", msg_flags=8)
    v = MessageView(5, Message(md, b'{"a": [1, 2]}'), NOW)
    s = v.show()
    assert list(s)[:4] == ["position", "md", "headers", "payload"]
    m = s["md"]
    for key in md.as_mq_dict():
        assert key in m
    assert m["MsgId"] == MSGID.hex().upper()
    assert m["ReplyToQ"] == "REPLY.Q"
    assert m["MsgTypeName"] == "MQMT_DATAGRAM"
    assert m["PersistenceName"] == "MQPER_PERSISTENT"
    assert m["FeedbackName"] == "MQFB_NONE"
    assert m["FormatName"] == "MQFMT_STRING"
    assert m["PutApplTypeName"] == "MQAT_UNIX"
    assert m["ReportOptions"] == ["MQRO_COA", "MQRO_PAN", "MQRO_PASS_CORREL_ID",
                                  "MQRO_PASS_MSG_ID"]
    assert m["MsgFlagNames"] == ["MQMF_MSG_IN_GROUP"]
    assert m["PutDateTime"] == "2026-09-22T02:34:28.280Z"
    assert m["ExpiryUnlimited"] is False
    assert m["ExpiryRemainingSeconds"] == 3600.0
    assert m["ExpiresAt"] == "2026-09-22T13:00:00.000Z"
    p = s["payload"]
    assert p["kind"] == "json"
    assert p["text"] == '{"a": [1, 2]}'
    assert p["format"] == "MQSTR"
    assert p["ccsid"] == 1208
    assert p["encoding"] == 546
    assert p["codec"] == "utf-8"
    json.dumps(s)


def test_show_unlimited_expiry():
    m = MessageView(1, Message(plain_md(expiry=-1), b""), NOW).show()["md"]
    assert m["ExpiryUnlimited"] is True
    assert m["ExpiryRemainingSeconds"] is None and m["ExpiresAt"] is None


def test_show_version_1_md():
    v = MessageView(1, Message(plain_md(version=1), b"<a/>"), NOW)
    s = v.show()
    assert "GroupId" not in s["md"]
    assert "MsgFlagNames" not in s["md"]
    assert s["payload"]["kind"] == "xml"


@pytest.mark.parametrize("report,names", [
    (0, []),
    (1792, ["MQRO_COA_WITH_FULL_DATA"]),
    (768, ["MQRO_COA_WITH_DATA"]),
    (256 | 2048, ["MQRO_COA", "MQRO_COD"]),
    (50331648 | 134217728, ["MQRO_EXCEPTION_WITH_DATA", "MQRO_DISCARD_MSG"]),
    (2097152 | 16384, ["MQRO_EXPIRATION", "MQRO_PASS_DISCARD_AND_EXPIRY"]),
    (4 | 2 | 1, ["MQRO_PAN", "MQRO_NAN", "MQRO_ACTIVITY"]),
    (1 << 30, ["UNKNOWN_0x40000000"]),
    (-1, None),
])
def test_report_option_names(report, names):
    got = report_option_names(report)
    if names is None:
        assert got and got[-1].startswith("UNKNOWN_0x")
    else:
        assert got == names


def test_msg_flag_names():
    assert msg_flag_names(0) == []
    assert msg_flag_names(2 | 4) == ["MQMF_SEGMENT", "MQMF_LAST_SEGMENT"]
    assert msg_flag_names(16 | 8) == ["MQMF_MSG_IN_GROUP", "MQMF_LAST_MSG_IN_GROUP"]
    assert msg_flag_names(1 << 20) == ["UNKNOWN_0x100000"]


# -- laziness ------------------------------------------------------------------------------------

def test_reason_does_not_parse_or_decode_the_body(monkeypatch):
    calls = []
    real_parse = views_mod._chain.parse_body_lenient
    real_decode = views_mod._payload.decode_text

    def spy_parse(*a, **k):
        calls.append("parse")
        return real_parse(*a, **k)

    def spy_decode(*a, **k):
        calls.append("decode")
        return real_decode(*a, **k)
    monkeypatch.setattr(views_mod._chain, "parse_body_lenient", spy_parse)
    monkeypatch.setattr(views_mod._payload, "decode_text", spy_decode)
    v = MessageView(1, dead_lettered(b"payload"), NOW)
    assert (v.reason, v.dest_q, v.dest_qmgr, v.format, v.age_seconds, v.length) == (
        2053, "APP.ORDERS", "QM1", "MQDEAD", (NOW - PUT).total_seconds(), 172 + 7)
    assert calls == []
    v.row()
    assert calls == ["parse"]  # the preview needs the chain but not the full text
    _ = v.text
    _ = v.text
    v.show()
    assert calls == ["parse", "decode"]


def test_now_defaults_to_the_clock():
    v = MessageView(1, Message(plain_md(), b""))
    assert v.now.tzinfo is not None
    assert v.age_seconds > 0
    assert "MessageView(position=1" in repr(v)


# -- never raising ---------------------------------------------------------------------------

_LONGS = st.integers(min_value=-(2 ** 31), max_value=2 ** 31 - 1)
_FORMATS = st.sampled_from(["", "MQSTR", "MQDEAD", "MQHRF2", "MQXMIT", "MQHMDE", "MQHRF",
                            "\x1b[2J", "MQ\x00\x00"])


@given(fmt=_FORMATS, ccsid=st.sampled_from([0, 37, 500, 819, 1047, 1200, 1208, 65535, -3]),
       encoding=st.sampled_from([0, 273, 546, 785, -1]), expiry=_LONGS, report=_LONGS,
       version=st.sampled_from([1, 2]),
       put_date=st.text(alphabet=string.digits + " x\x00", max_size=8),
       put_time=st.text(alphabet=string.digits + " x\x00", max_size=8),
       body=st.binary(max_size=400), prefix=st.sampled_from([b"", b"DLH ", b"RFH ",
                                                             b"XQH ", b"MDE "]))
def test_row_and_show_never_raise(fmt, ccsid, encoding, expiry, report, version, put_date,
                                  put_time, body, prefix):
    md = MQMD(format=fmt, ccsid=ccsid, encoding=encoding, expiry=expiry, report=report,
              version=version, put_date=put_date, put_time=put_time, feedback=report,
              msg_type=expiry, put_appl_type=report, persistence=expiry)
    v = MessageView(0, Message(md, prefix + body), NOW - timedelta(days=1))
    json.dumps(v.row())
    json.dumps(v.show())
    _ = (v.text, v.reason, v.dest_q, v.age_seconds, v.header_error)
