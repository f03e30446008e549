"""The header chain: MQMD.Format → header → its Format → … → payload."""

from __future__ import annotations

import struct

import pytest

from mqconsole.mq.chain import (
    MAX_HEADERS,
    ParsedBody,
    add_dead_letter_header,
    dead_letter_header,
    is_header_format,
    parse_body,
    parse_body_lenient,
    strip_dead_letter_header,
)
from mqconsole.mq.dlh import MQDLH
from mqconsole.mq.errors import HeaderError
from mqconsole.mq.md import MQMD
from mqconsole.mq.payload import decode_text
from mqconsole.mq.rfh2 import MQRFH, MQRFH2
from mqconsole.mq.xqh import MQMDE, MQXQH

JMS = "<jms><Dst>queue:///ORDERS</Dst></jms>"
USR = "<usr><orderId>A-17</orderId></usr>"


def original_md(**changes) -> MQMD:
    md = MQMD(format="MQSTR", encoding=546, ccsid=1208, msg_id=b"\x01" * 24,
              put_appl_name="orders-app", user_identifier="alice", backout_count=2)
    return md.copy(**changes)


def dlq_message(*, zos: bool = False, payload: bytes = b'{"order": "A-17"}'):
    """MD → DLH → RFH2 → MQSTR, as a queue manager would leave it on its dead-letter queue.

    ``zos``: the DLH and the MD are big-endian EBCDIC (785/500), the RFH2 and the payload
    stay what the application put (little-endian, UTF-8)."""
    rfh = MQRFH2(encoding=546, ccsid=1208, format="MQSTR", folders=[JMS, USR])
    md = original_md(format="MQHRF2", encoding=546, ccsid=1208)
    body = rfh.pack(big_endian=False, ccsid=1208) + payload
    kw = dict(header_encoding=785, header_ccsid=500) if zos else {}
    return add_dead_letter_header(md, body, reason=2053, dest_q_name="ORDERS",
                                  dest_qmgr_name="QM1", put_appl_name="amqrmppa",
                                  put_date="20240301", put_time="10203040", **kw)


@pytest.mark.parametrize("zos", [False, True])
def test_md_dlh_rfh2_mqstr(zos):
    md, body = dlq_message(zos=zos)
    assert md.format == "MQDEAD  "
    assert body[:4] == (bytes.fromhex("c4d3c840") if zos else b"DLH ")
    pb = parse_body(md, body)
    assert [type(h) for h in pb.headers] == [MQDLH, MQRFH2]
    dlh, rfh = pb.headers
    assert dlh.reason == 2053 and dlh.dest_q == "ORDERS" and dlh.dest_qmgr == "QM1"
    assert (dlh.format, dlh.encoding, dlh.ccsid) == ("MQHRF2  ", 546, 1208)
    assert rfh.folders == [JMS, USR]
    assert pb.format == "MQSTR   " and pb.format_name == "MQSTR"
    assert (pb.encoding, pb.ccsid) == (546, 1208)
    assert pb.payload == b'{"order": "A-17"}'
    assert pb.payload_offset == 172 + rfh.struc_length == len(body) - len(pb.payload)
    assert pb.error is None
    assert pb.dlh is dlh and pb.rfh2s == [rfh] and pb.xqh is None
    assert pb.properties() == [("jms", "Dst", "queue:///ORDERS"), ("usr", "orderId", "A-17")]
    assert decode_text(pb.payload, pb.ccsid, pb.format).text == '{"order": "A-17"}'


def test_to_dict():
    md, body = dlq_message()
    d = parse_body(md, body).to_dict()
    assert [h["type"] for h in d["headers"]] == ["MQDLH", "MQRFH2"]
    assert d["format"] == "MQSTR" and d["payload_length"] == 17 and d["error"] is None


def test_ebcdic_payload_after_zos_dlh():
    md = MQMD(format="MQSTR", encoding=785, ccsid=500)
    md2, body = add_dead_letter_header(md, "HELLO Z".encode("cp500"), reason=2085,
                                       dest_q_name="NOPE")
    pb = parse_body(md2, body)
    assert (pb.encoding, pb.ccsid) == (785, 500)
    assert decode_text(pb.payload, pb.ccsid, pb.format).text == "HELLO Z"


def test_no_headers():
    md = original_md()
    pb = parse_body(md, b"plain")
    assert pb == ParsedBody(headers=[], payload=b"plain", format="MQSTR   ", encoding=546,
                            ccsid=1208, payload_offset=0)
    assert parse_body(md.copy(format=""), b"").format == "        "


def test_ccsid_inherit_and_zero_keep_the_ccsid_before():
    rfh = MQRFH2(encoding=546, ccsid=-2, format="MQSTR", folders=[USR])
    md = MQMD(format="MQHRF2", encoding=546, ccsid=37)
    pb = parse_body(md, rfh.pack(big_endian=False, ccsid=37) + "abc".encode("cp037"))
    assert pb.ccsid == 37
    assert decode_text(pb.payload, pb.ccsid, pb.format).text == "abc"
    rfh0 = MQRFH2(encoding=546, ccsid=0, format="MQSTR", folders=[USR])
    assert parse_body(md, rfh0.pack(big_endian=False, ccsid=37)).ccsid == 37


def test_byte_order_follows_the_encoding_before_each_header():
    # MD big-endian → DLH big-endian, whose Encoding says little → RFH2 little-endian,
    # whose Encoding says big → the next RFH2 big-endian.
    inner = MQRFH2(encoding=546, ccsid=1208, format="MQSTR", folders=["<usr><b>2</b></usr>"])
    outer = MQRFH2(encoding=273, ccsid=1208, format="MQHRF2", folders=["<usr><a>1</a></usr>"])
    dlh = MQDLH(reason=2051, dest_q_name="Q", encoding=546, ccsid=1208, format="MQHRF2")
    body = (dlh.pack(big_endian=True, ccsid=819) + outer.pack(big_endian=False, ccsid=1208)
            + inner.pack(big_endian=True, ccsid=1208) + b"x")
    pb = parse_body(MQMD(format="MQDEAD", encoding=273, ccsid=819), body)
    assert [type(h).__name__ for h in pb.headers] == ["MQDLH", "MQRFH2", "MQRFH2"]
    assert [p[1:] for p in pb.properties()] == [("a", "1"), ("b", "2")]
    assert pb.payload == b"x" and pb.encoding == 546


def test_undefined_encoding_detects_byte_order():
    dlh = MQDLH(reason=2051, dest_q_name="Q", encoding=0, ccsid=1208, format="MQHRF2")
    rfh = MQRFH2(encoding=546, ccsid=1208, format="MQSTR", folders=[USR])
    body = dlh.pack(big_endian=True, ccsid=819) + rfh.pack(big_endian=True, ccsid=819)
    pb = parse_body(MQMD(format="MQDEAD", encoding=0, ccsid=819), body)
    assert len(pb.headers) == 2 and pb.payload == b""


def test_nul_padded_formats():
    md, body = dlq_message()
    pb = parse_body(md.copy(format="MQDEAD\x00\x00"), body)
    assert len(pb.headers) == 2
    assert is_header_format("MQHRF2\x00\x00") and not is_header_format("MQSTR")


def test_xqh_with_mde():
    embedded = MQMD(version=1, format="MQHMDE", encoding=546, ccsid=1208, msg_id=b"X" * 24)
    xqh = MQXQH(remote_q_name="ORDERS", remote_qmgr_name="QM2", md=embedded)
    mde = MQMDE(encoding=273, ccsid=37, format="MQSTR", group_id=b"G" * 24,
                msg_seq_number=2, msg_flags=0x08)
    body = (xqh.pack(big_endian=False, ccsid=819) + mde.pack(big_endian=False, ccsid=1208)
            + "ABC".encode("cp037"))
    pb = parse_body(MQMD(format="MQXMIT", encoding=546, ccsid=819), body)
    assert [type(h) for h in pb.headers] == [MQXQH, MQMDE]
    assert pb.xqh.remote_q == "ORDERS" and pb.xqh.remote_qmgr == "QM2"
    assert (pb.format, pb.encoding, pb.ccsid) == ("MQSTR   ", 273, 37)
    assert pb.payload_offset == 428 + 72
    assert decode_text(pb.payload, pb.ccsid, pb.format).text == "ABC"


def test_dlh_then_xqh():
    """A message dead-lettered on its way out carries the transmission header next."""
    embedded = MQMD(version=1, format="MQSTR", encoding=546, ccsid=1208)
    xqh = MQXQH(remote_q_name="FAR.Q", remote_qmgr_name="FARQM", md=embedded)
    md, body = add_dead_letter_header(MQMD(format="MQXMIT", encoding=546, ccsid=819),
                                      xqh.pack(big_endian=False, ccsid=819) + b"hi",
                                      reason=2087, dest_q_name="FARQM.XMIT")
    pb = parse_body(md, body)
    assert [type(h) for h in pb.headers] == [MQDLH, MQXQH]
    assert pb.dlh.to_dict()["reason_name"] == "MQRC_UNKNOWN_REMOTE_Q_MGR"
    assert pb.xqh.remote_qmgr == "FARQM" and pb.payload == b"hi"


def test_rfh_version_1():
    rfh = MQRFH(encoding=546, ccsid=819, format="MQSTR", name_value_data=b"OPT_APP_GRP x   ")
    pb = parse_body(MQMD(format="MQHRF", ccsid=819), rfh.pack(big_endian=False, ccsid=819)
                    + b"data")
    assert isinstance(pb.headers[0], MQRFH) and pb.payload == b"data"


def test_malformed_rfh2_after_dlh():
    dlh = MQDLH(reason=2053, dest_q_name="Q", encoding=546, ccsid=1208, format="MQHRF2")
    good = MQRFH2(encoding=546, ccsid=1208, format="MQSTR", folders=[USR])
    rfh = bytearray(good.pack(big_endian=False, ccsid=1208))
    rfh[8:12] = struct.pack("<i", 35)  # StrucLength < 36
    md = MQMD(format="MQDEAD", encoding=546, ccsid=819)
    body = dlh.pack(big_endian=False, ccsid=819) + bytes(rfh) + b"payload"
    with pytest.raises(HeaderError) as err:
        parse_body(md, body)
    assert (err.value.header, err.value.offset) == ("MQRFH2", 172 + 8)
    assert "StrucLength 35" in err.value.problem

    pb = parse_body_lenient(md, body)
    assert [type(h) for h in pb.headers] == [MQDLH]
    assert pb.payload == bytes(rfh) + b"payload"
    assert pb.payload_offset == 172
    assert pb.format == "MQHRF2  "
    assert pb.error is not None and pb.error.header == "MQRFH2"
    assert "StrucLength 35" in pb.to_dict()["error"]


@pytest.mark.parametrize("length", [37, 1 << 20, -8])
def test_absurd_rfh2_lengths(length):
    rfh = bytearray(MQRFH2(format="MQSTR", folders=[USR]).pack(big_endian=False, ccsid=819))
    rfh[8:12] = struct.pack("<i", length)
    md = MQMD(format="MQHRF2", encoding=546, ccsid=819)
    with pytest.raises(HeaderError) as err:
        parse_body(md, bytes(rfh))
    assert err.value.header == "MQRFH2" and err.value.offset == 8
    assert parse_body_lenient(md, bytes(rfh)).error.header == "MQRFH2"


def test_truncated_dlh():
    md, body = dlq_message()
    with pytest.raises(HeaderError, match="needs 172 bytes, has 100"):
        parse_body(md, body[:100])
    pb = parse_body_lenient(md, body[:100])
    assert pb.headers == [] and pb.payload == body[:100] and pb.format == "MQDEAD  "


def test_loop_guard():
    mde = MQMDE(format="MQHMDE", encoding=546, ccsid=819)
    body = mde.pack(big_endian=False, ccsid=819) * (MAX_HEADERS + 1)
    md = MQMD(format="MQHMDE", encoding=546, ccsid=819)
    with pytest.raises(HeaderError, match=f"more than {MAX_HEADERS}"):
        parse_body(md, body)
    pb = parse_body_lenient(md, body)
    assert len(pb.headers) == MAX_HEADERS and pb.error is not None


# -- dead-letter helpers ------------------------------------------------------------------


def test_dead_letter_header():
    md, body = dlq_message()
    dlh = dead_letter_header(md, body)
    assert isinstance(dlh, MQDLH) and dlh.reason == 2053
    assert dead_letter_header(original_md(), b"x" * 200) is None  # not MQDEAD
    assert dead_letter_header(md, body[:171]) is None  # malformed
    assert dead_letter_header(md, b"XXXX" + body[4:]) is None


@pytest.mark.parametrize("zos", [False, True])
def test_strip_restores_format_encoding_ccsid(zos):
    md, body = dlq_message(zos=zos)
    restored, rest = strip_dead_letter_header(md, body)
    assert (restored.format, restored.encoding, restored.ccsid) == ("MQHRF2  ", 546, 1208)
    assert restored == original_md(format="MQHRF2")  # context and ids untouched
    assert rest == body[172:]
    assert parse_body(restored, rest).payload == b'{"order": "A-17"}'


def test_add_then_strip_is_identity():
    md = original_md(format="MQSTR", encoding=273, ccsid=37)
    body = "EBCDIC TEXT".encode("cp037")
    dead_md, dead_body = add_dead_letter_header(md, body, reason=2035, dest_q_name="SECURE",
                                                dest_qmgr_name="QMZ")
    assert (dead_md.format, dead_md.encoding, dead_md.ccsid) == ("MQDEAD  ", 273, 37)
    assert dead_body[:4] == bytes.fromhex("c4d3c840")
    assert strip_dead_letter_header(dead_md, dead_body) == (md, body)


def test_strip_without_dlh():
    with pytest.raises(HeaderError, match="no dead-letter header"):
        strip_dead_letter_header(original_md(), b"x" * 200)
    md, body = dlq_message()
    with pytest.raises(HeaderError) as err:
        strip_dead_letter_header(md, body[:50])
    assert err.value.header == "MQDLH"
