"""MQXQH (transmission header with its embedded MQMD v1) and MQMDE."""

from __future__ import annotations

import struct

import pytest

from mqconsole.mq.errors import HeaderError
from mqconsole.mq.md import MQMD
from mqconsole.mq.xqh import MQMDE, MQXQH

CCSIDS = [1208, 819, 1252, 37, 500, 1047]


def sample_xqh(**md_changes) -> MQXQH:
    md = MQMD(version=1, format="MQSTR", encoding=546, ccsid=1208, msg_id=b"M" * 24,
              put_appl_name="sender", reply_to_q="R.Q", persistence=1).copy(**md_changes)
    return MQXQH(remote_q_name="ORDERS.IN", remote_qmgr_name="QM.REMOTE", md=md)


def sample_mde(**changes) -> MQMDE:
    f = dict(encoding=273, ccsid=37, format="MQSTR", flags=0, group_id=b"G" * 24,
             msg_seq_number=4, offset=1000, msg_flags=0x18, original_length=65536)
    f.update(changes)
    return MQMDE(**f)


def test_xqh_layout():
    data = sample_xqh().pack(big_endian=False, ccsid=819)
    assert len(data) == MQXQH.LENGTH == 428
    assert data[:4] == b"XQH "
    assert struct.unpack_from("<i", data, 4) == (1,)
    assert data[8:56].rstrip() == b"ORDERS.IN"
    assert data[56:104].rstrip() == b"QM.REMOTE"
    assert data[104:108] == b"MD  "
    assert struct.unpack_from("<i", data, 108) == (1,)  # an MQMD version 1
    assert data[104 + 32:104 + 40] == b"MQSTR   "


@pytest.mark.parametrize("big_endian", [False, True])
@pytest.mark.parametrize("ccsid", CCSIDS)
def test_xqh_round_trip(big_endian, ccsid):
    xqh = sample_xqh()
    data = xqh.pack(big_endian=big_endian, ccsid=ccsid)
    back = MQXQH.unpack(data, big_endian=big_endian, ccsid=ccsid)
    assert back == xqh
    assert back.pack(big_endian=big_endian, ccsid=ccsid) == data


def test_xqh_embeds_version_1_even_for_a_version_2_md():
    xqh = sample_xqh(version=2, group_id=b"g" * 24)
    data = xqh.pack(big_endian=True, ccsid=819)
    assert len(data) == 428
    back = MQXQH.unpack(data + b"after", big_endian=True, ccsid=819)
    assert back.md.version == 1
    assert back.md.group_id == b"\x00" * 24


def test_xqh_describes_what_follows():
    xqh = sample_xqh(format="MQHMDE", encoding=785, ccsid=500)
    assert (xqh.format, xqh.encoding, xqh.ccsid) == ("MQHMDE  ", 785, 500)
    d = xqh.to_dict()
    assert d["type"] == "MQXQH"
    assert (d["remote_q"], d["remote_qmgr"]) == ("ORDERS.IN", "QM.REMOTE")
    assert (d["format"], d["encoding"], d["ccsid"]) == ("MQHMDE", 785, 500)
    assert d["md"]["PutApplName"] == "sender"
    assert "GroupId" not in d["md"]


def test_xqh_ebcdic():
    data = sample_xqh().pack(big_endian=True, ccsid=500)
    assert data[:4] == bytes.fromhex("e7d8c840")  # 'XQH '
    assert data[104:108] == bytes.fromhex("d4c44040")  # 'MD  '
    assert MQXQH.unpack(data, big_endian=True, ccsid=500).remote_q == "ORDERS.IN"


@pytest.mark.parametrize(("mutate", "offset", "problem"), [
    (lambda d: d[:427], 0, "needs 428 bytes, has 427"),
    (lambda d: b"XQX " + d[4:], 0, "StrucId"),
    (lambda d: d[:4] + struct.pack("<i", 3) + d[8:], 4, "Version 3"),
    (lambda d: d[:108] + struct.pack("<i", 2) + d[112:], 108, "Version 2"),
    (lambda d: d[:104] + b"XX  " + d[108:], 104, "StrucId"),
])
def test_xqh_malformed(mutate, offset, problem):
    data = mutate(sample_xqh().pack(big_endian=False, ccsid=819))
    with pytest.raises(HeaderError) as err:
        MQXQH.unpack(data, big_endian=False, ccsid=819)
    assert err.value.offset == offset
    assert problem in err.value.problem


def test_mde_layout():
    data = sample_mde().pack(big_endian=True, ccsid=819)
    assert len(data) == MQMDE.LENGTH == 72
    assert data[:4] == b"MDE "
    assert struct.unpack_from(">iiiii", data, 4) == (2, 72, 273, 37, 0x4D515354)
    assert data[20:28] == b"MQSTR   "
    assert struct.unpack_from(">i", data, 28) == (0,)
    assert data[32:56] == b"G" * 24
    assert struct.unpack_from(">iiii", data, 56) == (4, 1000, 0x18, 65536)


@pytest.mark.parametrize("big_endian", [False, True])
@pytest.mark.parametrize("ccsid", CCSIDS)
def test_mde_round_trip(big_endian, ccsid):
    mde = sample_mde()
    data = mde.pack(big_endian=big_endian, ccsid=ccsid)
    back = MQMDE.unpack(data, big_endian=big_endian, ccsid=ccsid)
    assert back == mde
    assert back.pack(big_endian=big_endian, ccsid=ccsid) == data


def test_mde_to_dict_and_apply():
    mde = sample_mde()
    assert mde.to_dict() == {
        "type": "MQMDE", "format": "MQSTR", "encoding": 273, "ccsid": 37, "flags": 0,
        "group_id": "47" * 24, "msg_seq_number": 4, "offset": 1000, "msg_flags": 0x18,
        "original_length": 65536}
    md = mde.apply_to(MQMD(version=1, format="MQHMDE"))
    assert (md.version, md.group_id, md.msg_seq_number, md.offset) == (2, b"G" * 24, 4, 1000)
    assert (md.format, md.encoding, md.ccsid) == ("MQSTR   ", 273, 37)


@pytest.mark.parametrize(("mutate", "offset", "problem"), [
    (lambda d: d[:71], 0, "needs 72 bytes"),
    (lambda d: b"MDX " + d[4:], 0, "StrucId"),
    (lambda d: d[:4] + struct.pack("<i", 1) + d[8:], 4, "Version 1"),
    (lambda d: d[:8] + struct.pack("<i", 76) + d[12:], 8, "StrucLength 76"),
])
def test_mde_malformed(mutate, offset, problem):
    data = mutate(sample_mde().pack(big_endian=False, ccsid=819))
    with pytest.raises(HeaderError) as err:
        MQMDE.unpack(data, big_endian=False, ccsid=819)
    assert (err.value.header, err.value.offset) == ("MQMDE", offset)
    assert problem in err.value.problem
