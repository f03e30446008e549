"""MQMD: layout, both byte orders, CCSIDs (EBCDIC included), versions, errors."""

from __future__ import annotations

import struct

import pytest

from mqconsole.mq.errors import HeaderError
from mqconsole.mq.md import LAYOUT, MQMD, MQMD_V1_LENGTH, MQMD_V2_LENGTH, is_big_endian

CCSIDS = [1208, 819, 1252, 37, 500, 1047]
EBCDIC = {37: "cp037", 500: "cp500", 1047: "cp1047"}


def sample_md(**changes) -> MQMD:
    md = MQMD(
        report=0x0100, msg_type=4, expiry=6000, feedback=258, encoding=273, ccsid=500,
        format="MQSTR", priority=5, persistence=1, msg_id=bytes(range(24)),
        correl_id=b"\xff" * 24, backout_count=3, reply_to_q="REPLY.Q", reply_to_qmgr="QM2",
        user_identifier="mqm", accounting_token=bytes(range(32, 64)),
        appl_identity_data="ident", put_appl_type=6, put_appl_name="orders-app",
        put_date="20240229", put_time="23595999", appl_origin_data="ORIG",
        group_id=b"G" * 24, msg_seq_number=7, offset=100, msg_flags=0x10,
        original_length=4096,
    )
    return md.copy(**changes)


def test_layout_offsets_match_the_spec():
    offsets, at = {}, 0
    for attr, _, _, n in LAYOUT:
        offsets[attr] = at
        at += n
    assert at == MQMD_V2_LENGTH
    assert offsets["format"] == 32
    assert offsets["msg_id"] == 48
    assert offsets["backout_count"] == 96
    assert offsets["reply_to_q"] == 100
    assert offsets["user_identifier"] == 196
    assert offsets["put_appl_type"] == 272
    assert offsets["put_date"] == 304
    assert offsets["group_id"] == MQMD_V1_LENGTH == 324
    assert offsets["original_length"] == 360


@pytest.mark.parametrize("big_endian", [False, True])
@pytest.mark.parametrize("ccsid", CCSIDS)
def test_round_trip_v2(big_endian, ccsid):
    md = sample_md()
    data = md.pack(big_endian=big_endian, ccsid=ccsid)
    assert len(data) == MQMD_V2_LENGTH
    back = MQMD.unpack(data, big_endian=big_endian, ccsid=ccsid)
    assert back == md
    assert back.pack(big_endian=big_endian, ccsid=ccsid) == data


@pytest.mark.parametrize("big_endian", [False, True])
def test_byte_order_of_integers(big_endian):
    data = sample_md().pack(big_endian=big_endian, ccsid=819)
    order = ">" if big_endian else "<"
    assert struct.unpack_from(order + "i", data, 4) == (2,)
    assert struct.unpack_from(order + "i", data, 96) == (3,)  # BackoutCount
    assert struct.unpack_from(order + "i", data, 360) == (4096,)


@pytest.mark.parametrize("ccsid", sorted(EBCDIC))
def test_ebcdic_text_fields(ccsid):
    data = sample_md().pack(big_endian=True, ccsid=ccsid)
    assert data[:4] == bytes.fromhex("d4c44040")  # 'MD  '
    assert data[32:40] == "MQSTR   ".encode(EBCDIC[ccsid])
    assert data[32:37] == bytes.fromhex("d4d8e2e3d9")
    back = MQMD.unpack(data, ccsid=ccsid)  # byte order detected from Version
    assert back.format == "MQSTR   "
    assert back.put_appl_name.rstrip() == "orders-app"


def test_default_byte_order_comes_from_encoding():
    assert sample_md(encoding=785).pack(ccsid=500)[4:8] == b"\x00\x00\x00\x02"
    assert sample_md(encoding=546).pack(ccsid=819)[4:8] == b"\x02\x00\x00\x00"
    assert is_big_endian(273) and is_big_endian(785) and not is_big_endian(546)


@pytest.mark.parametrize("big_endian", [False, True])
def test_version_1(big_endian):
    md = sample_md(version=1)
    data = md.pack(big_endian=big_endian, ccsid=819)
    assert len(data) == MQMD_V1_LENGTH
    back = MQMD.unpack(data, ccsid=819)
    assert back.version == 1
    assert back.put_time == md.put_time
    assert back.group_id == b"\x00" * 24  # version-2 fields keep their defaults
    assert "GroupId" not in back.as_mq_dict()
    assert len(sample_md().pack(ccsid=819, version=1)) == MQMD_V1_LENGTH


def test_unpack_at_offset():
    data = b"xyz" + sample_md().pack(big_endian=False, ccsid=819) + b"body"
    assert MQMD.unpack(data, 3, ccsid=819) == sample_md()


def test_char_fields_keep_exact_length_and_padding():
    md = MQMD(reply_to_q="Q", put_appl_name="x" * 40, user_identifier=b"mqm\x00\x00")
    assert md.reply_to_q == "Q" + " " * 47
    assert md.put_appl_name == "x" * 28
    assert md.user_identifier == "mqm\x00\x00" + " " * 7
    assert md.as_mq_dict()["UserIdentifier"] == "mqm"
    assert MQMD(msg_id="0102").msg_id == b"\x01\x02" + b"\x00" * 22


def test_nul_padded_fields_round_trip():
    data = bytearray(sample_md().pack(big_endian=False, ccsid=819))
    data[100:148] = b"REPLY.Q".ljust(48, b"\x00")
    back = MQMD.unpack(bytes(data), ccsid=819)
    assert back.reply_to_q.startswith("REPLY.Q\x00")
    assert back.as_mq_dict()["ReplyToQ"] == "REPLY.Q"
    assert back.pack(big_endian=False, ccsid=819) == bytes(data)


def test_unencodable_characters_stay_in_the_code_page():
    # '€' is not in CCSID 500: it must become EBCDIC '?' (0x6f), not a byte of latin-1
    md = MQMD(put_appl_name="app€", format="MQSTR")
    data = md.pack(big_endian=True, ccsid=500)
    assert data[276:280] == "app".encode("cp500") + b"\x6f"
    assert data[280:304] == b"\x40" * 24
    assert data[32:40] == "MQSTR   ".encode("cp500")


@pytest.mark.parametrize(("data", "problem"), [
    (b"", "needs 324 bytes"),
    (b"MD  " + b"\x00" * 100, "needs 324 bytes"),
    (b"MD  " + b"\x07\x00\x00\x00" + b"\x00" * 400, "neither 1 nor 2"),
    (b"XX  " + b"\x02\x00\x00\x00" + b"\x00" * 400, "StrucId"),
    (b"MD  " + b"\x02\x00\x00\x00" + b"\x00" * 330, "version 2 needs 364"),
])
def test_malformed(data, problem):
    with pytest.raises(HeaderError) as err:
        MQMD.unpack(data, ccsid=819)
    assert err.value.header == "MQMD"
    assert problem in err.value.problem


def test_explicit_wrong_byte_order_is_an_error():
    data = sample_md().pack(big_endian=False, ccsid=819)
    with pytest.raises(HeaderError, match="neither 1 nor 2"):
        MQMD.unpack(data, big_endian=True, ccsid=819)


def test_offsets_are_those_of_the_structures_table() -> None:
    from mqconsole.mq.md import OFFSETS
    assert {k: OFFSETS[k] for k in ("version", "expiry", "format", "priority", "persistence",
                                     "msg_id", "correl_id", "backout_count", "put_date",
                                     "put_time", "group_id", "msg_flags",
                                     "original_length")} == {
        "version": 4, "expiry": 16, "format": 32, "priority": 40, "persistence": 44,
        "msg_id": 48, "correl_id": 72, "backout_count": 96, "put_date": 304, "put_time": 312,
        "group_id": 324, "msg_flags": 356, "original_length": 360}
