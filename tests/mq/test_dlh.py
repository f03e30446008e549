"""MQDLH: the 172-byte dead-letter header in both byte orders, ASCII and EBCDIC."""

from __future__ import annotations

import struct

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mqconsole.mq.dlh import MQDLH, byte_order, detect_order, struc_codec
from mqconsole.mq.errors import HeaderError

CCSIDS = [1208, 819, 1252, 37, 500, 1047]
CODEC = {1208: "utf-8", 819: "latin-1", 1252: "cp1252", 37: "cp037", 500: "cp500",
         1047: "cp1047"}


def sample_dlh(**changes) -> MQDLH:
    fields = dict(reason=2053, dest_q_name="ORDERS.IN", dest_qmgr_name="QM1",
                  encoding=546, ccsid=1208, format="MQSTR", put_appl_type=7,
                  put_appl_name="amqrmppa", put_date="20240301", put_time="10203040")
    fields.update(changes)
    return MQDLH(**fields)


def handmade(*, big_endian: bool, codec: str, pad: bytes = b" ", **f) -> bytes:
    """A DLH built field by field from the structures.md table, not by MQDLH.pack."""
    def c(text: str, n: int) -> bytes:
        raw = text.encode(codec)
        return raw + (pad if pad != b" " else " ".encode(codec)) * (n - len(raw))

    o = ">" if big_endian else "<"
    return b"".join([
        "DLH ".encode(codec), struct.pack(o + "i", 1), struct.pack(o + "i", f["reason"]),
        c(f["dest_q"], 48), c(f["dest_qmgr"], 48), struct.pack(o + "i", f["encoding"]),
        struct.pack(o + "i", f["ccsid"]), c(f["format"], 8),
        struct.pack(o + "i", f["put_appl_type"]), c(f["put_appl_name"], 28),
        c(f["put_date"], 8), c(f["put_time"], 8),
    ])


ZOS = dict(reason=2085, dest_q="PAYROLL.REQUEST", dest_qmgr="MVSQ", encoding=785,
           ccsid=500, format="MQSTR", put_appl_type=2, put_appl_name="CSQXRCTL",
           put_date="20240115", put_time="08150000")


def test_length_and_field_offsets():
    data = sample_dlh().pack(big_endian=False, ccsid=819)
    assert len(data) == MQDLH.LENGTH == 172
    assert data[0:4] == b"DLH "
    assert struct.unpack_from("<i", data, 4) == (1,)
    assert struct.unpack_from("<i", data, 8) == (2053,)
    assert data[12:60].rstrip() == b"ORDERS.IN"
    assert data[60:108].rstrip() == b"QM1"
    assert struct.unpack_from("<ii", data, 108) == (546, 1208)
    assert data[116:124] == b"MQSTR   "
    assert struct.unpack_from("<i", data, 124) == (7,)
    assert data[128:156].rstrip() == b"amqrmppa"
    assert data[156:164] == b"20240301"
    assert data[164:172] == b"10203040"


@pytest.mark.parametrize("big_endian", [False, True])
@pytest.mark.parametrize("ccsid", CCSIDS)
def test_round_trip(big_endian, ccsid):
    dlh = sample_dlh(dest_q_name="Q.ÄÖ" if ccsid != 1208 else "Q.AO")
    data = dlh.pack(big_endian=big_endian, ccsid=ccsid)
    assert data[:4] == "DLH ".encode(CODEC[ccsid])
    back = MQDLH.unpack(data, big_endian=big_endian, ccsid=ccsid)
    assert back == dlh
    assert back.pack(big_endian=big_endian, ccsid=ccsid) == data


@pytest.mark.parametrize("big_endian", [False, True])
@pytest.mark.parametrize("ccsid", CCSIDS)
def test_unpack_matches_handmade_bytes(big_endian, ccsid):
    data = handmade(big_endian=big_endian, codec=CODEC[ccsid], **ZOS)
    dlh = MQDLH.unpack(data, big_endian=big_endian, ccsid=ccsid)
    assert dlh.pack(big_endian=big_endian, ccsid=ccsid) == data
    assert dlh.to_dict()["dest_q"] == "PAYROLL.REQUEST"


def test_ebcdic_dlh_from_zos():
    """A z/OS queue manager: MD Encoding 785 (big-endian), CCSID 500."""
    data = handmade(big_endian=True, codec="cp500", **ZOS)
    assert data[:4] == bytes.fromhex("c4d3c840")
    dlh = MQDLH.unpack(data, 0, big_endian=byte_order(785), ccsid=500)
    assert dlh.to_dict() == {
        "type": "MQDLH", "reason": 2085, "reason_name": "MQRC_UNKNOWN_OBJECT_NAME",
        "dest_q": "PAYROLL.REQUEST", "dest_qmgr": "MVSQ", "encoding": 785, "ccsid": 500,
        "format": "MQSTR", "put_appl_type": 2, "put_appl_type_name": "MQAT_ZOS",
        "put_appl_name": "CSQXRCTL", "put_date": "20240115", "put_time": "08150000",
    }


def test_nul_padded_text_fields():
    f = dict(ZOS, encoding=546, ccsid=1208)
    data = handmade(big_endian=False, codec="latin-1", pad=b"\x00", **f)
    assert data[12 + len("PAYROLL.REQUEST")] == 0
    dlh = MQDLH.unpack(data, big_endian=False, ccsid=819)
    d = dlh.to_dict()
    assert d["dest_q"] == "PAYROLL.REQUEST"
    assert d["dest_qmgr"] == "MVSQ"
    assert d["put_appl_name"] == "CSQXRCTL"
    assert d["format"] == "MQSTR"
    assert dlh.dest_q == "PAYROLL.REQUEST"
    assert dlh.format_name == "MQSTR"
    assert dlh.pack(big_endian=False, ccsid=819) == data  # the NULs survive


def test_nul_padded_in_ebcdic():
    data = handmade(big_endian=True, codec="cp1047", pad=b"\x00", **ZOS)
    assert MQDLH.unpack(data, big_endian=True, ccsid=1047).to_dict()["dest_qmgr"] == "MVSQ"


def test_to_dict_keys_and_names():
    d = sample_dlh(reason=258, put_appl_type=11).to_dict()
    assert list(d) == ["type", "reason", "reason_name", "dest_q", "dest_qmgr", "encoding",
                       "ccsid", "format", "put_appl_type", "put_appl_type_name",
                       "put_appl_name", "put_date", "put_time"]
    assert d["reason_name"] == "MQFB_EXPIRATION"
    assert d["put_appl_type_name"] == "MQAT_WINDOWS_NT"
    assert sample_dlh(reason=65536 + 5).to_dict()["reason_name"] == "MQFB_APPL_65541"


def test_char_fields_are_normalised():
    dlh = MQDLH(reason=1, dest_q_name=b"Q1", format="MQSTR", put_appl_name="n" * 40)
    assert dlh.dest_q_name == "Q1".ljust(48)
    assert dlh.format == "MQSTR   "
    assert dlh.put_appl_name == "n" * 28
    assert dlh.version == 1


def test_unpack_at_offset():
    data = b"\x00" * 10 + sample_dlh().pack(big_endian=True, ccsid=819)
    assert MQDLH.unpack(data, 10, big_endian=True, ccsid=819) == sample_dlh()


def test_byte_order_detected_when_not_given():
    data = sample_dlh().pack(big_endian=True, ccsid=819)
    assert MQDLH.unpack(data, big_endian=None, ccsid=819) == sample_dlh()


def test_ascii_dlh_under_an_ebcdic_ccsid_is_read_as_ascii():
    data = sample_dlh().pack(big_endian=False, ccsid=819)
    assert MQDLH.unpack(data, big_endian=False, ccsid=500) == sample_dlh()


def test_ebcdic_dlh_under_an_ascii_ccsid_is_read_as_ebcdic():
    data = handmade(big_endian=True, codec="cp500", **ZOS)
    assert MQDLH.unpack(data, big_endian=True, ccsid=819).dest_q == "PAYROLL.REQUEST"


@pytest.mark.parametrize(("data", "offset", "problem"), [
    (b"", 0, "needs 172 bytes, has 0"),
    (b"DLH " + b"\x01\x00\x00\x00" * 10, 0, "needs 172 bytes, has 44"),
    (b"DLX " + b"\x01\x00\x00\x00" + b"\x00" * 164, 0, "StrucId"),
    (b"DLH " + b"\x02\x00\x00\x00" + b"\x00" * 164, 4, "Version 2"),
])
def test_malformed(data, offset, problem):
    with pytest.raises(HeaderError) as err:
        MQDLH.unpack(data, big_endian=False, ccsid=819)
    assert err.value.header == "MQDLH"
    assert err.value.offset == offset
    assert problem in err.value.problem
    assert str(err.value).startswith("MQDLH at offset")


def test_byte_order_mismatch_says_so():
    data = sample_dlh().pack(big_endian=False, ccsid=819)
    with pytest.raises(HeaderError, match="reads 1 as little-endian"):
        MQDLH.unpack(data, big_endian=True, ccsid=819)


def test_helpers():
    assert byte_order(273) is True and byte_order(785) is True
    assert byte_order(546) is False and byte_order(0) is None
    assert detect_order(b"\x00\x00\x00\x01", (1,), "X", 0, None) == (True, 1)
    assert struc_codec(bytes.fromhex("c4d3c840"), "DLH ", 1047) == "cp1047"
    assert struc_codec(b"DLH ", "DLH ", 37) == "latin-1"
    assert struc_codec(b"XXXX", "DLH ", 819) is None


@given(st.binary(max_size=200), st.sampled_from([None, True, False]),
       st.sampled_from([0, 819, 1208, 500, 37, 1200, 65535]), st.booleans())
def test_unpack_facts_reads_what_unpack_reads(data, big_endian, ccsid, dlh_start) -> None:
    """The summary's lean read of a header: the same fields, the same refusals."""
    from mqconsole.mq.dlh import MQDLH as Header
    from mqconsole.mq.errors import HeaderError as Bad
    if dlh_start:
        data = Header(reason=2053, dest_q_name="Q").pack(big_endian=bool(big_endian),
                                                          ccsid=819)[:8] + data
    try:
        full = Header.unpack(data, 0, big_endian=big_endian, ccsid=ccsid)
    except Bad as exc:
        with pytest.raises(Bad) as lean:
            Header.unpack_facts(data, 0, big_endian=big_endian, ccsid=ccsid)
        assert str(lean.value) == str(exc)
        return
    import dataclasses
    assert dataclasses.replace(full) == full  # unpack builds it as the constructor would
    reason, dest, qmgr, fmt = Header.unpack_facts(data, 0, big_endian=big_endian, ccsid=ccsid)
    assert (reason, dest.strip(" \x00"), qmgr.strip(" \x00"), fmt.strip(" \x00")) == (
        full.reason, full.dest_q_name.strip(" \x00"), full.dest_qmgr_name.strip(" \x00"),
        full.format.strip(" \x00"))
