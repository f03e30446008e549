"""MQRFH2 (and MQRFH v1): folders kept in order, byte-exact round trips, lenient properties."""

from __future__ import annotations

import struct

import pytest

from mqconsole.mq.errors import HeaderError
from mqconsole.mq.rfh2 import MQRFH, MQRFH2, folder_name, parse_folder

CCSIDS = [1208, 819, 1252, 37, 500, 1047]
MCD = "<mcd><Msd>jms_text</Msd></mcd>"
JMS = "<jms><Dst>queue:///ORDERS</Dst><Tms>1709287200000</Tms><Dlv>2</Dlv></jms>"
USR = "<usr><colour dt='string'>red &amp; blue</colour><n dt='i4'>42</n></usr>"


def handmade(folders: list[bytes], *, big_endian: bool = False, fmt: bytes = b"MQSTR   ",
             nv_ccsid: int = 1208, trailing: bytes = b"", codec: str = "latin-1",
             length: int | None = None) -> bytes:
    o = ">" if big_endian else "<"
    body = b"".join(struct.pack(o + "i", len(f)) + f for f in folders) + trailing
    n = 36 + len(body) if length is None else length
    return ("RFH ".encode(codec) + struct.pack(o + "iiii", 2, n, 546, 1208) + fmt
            + struct.pack(o + "ii", 0, nv_ccsid) + body)


def sample(**changes) -> MQRFH2:
    f = dict(encoding=546, ccsid=1208, format="MQSTR", flags=0, name_value_ccsid=1208,
             folders=[MCD, JMS, USR])
    f.update(changes)
    return MQRFH2(**f)


@pytest.mark.parametrize("big_endian", [False, True])
@pytest.mark.parametrize("ccsid", CCSIDS)
def test_round_trip(big_endian, ccsid):
    rfh = sample()
    data = rfh.pack(big_endian=big_endian, ccsid=ccsid)
    assert len(data) == rfh.struc_length
    assert len(data) % 4 == 0
    back = MQRFH2.unpack(data, 0, big_endian=big_endian, ccsid=ccsid)
    assert back.folders == rfh.folders
    assert back.format == "MQSTR   "
    assert (back.encoding, back.ccsid, back.name_value_ccsid) == (546, 1208, 1208)
    assert back.pack(big_endian=big_endian, ccsid=ccsid) == data


def test_fixed_layout():
    data = sample().pack(big_endian=True, ccsid=819)
    assert data[:4] == b"RFH "
    assert struct.unpack_from(">iiiii", data, 4) == (2, len(data), 546, 1208, 0x4D515354)
    assert data[20:28] == b"MQSTR   "
    assert struct.unpack_from(">ii", data, 28) == (0, 1208)
    first = struct.unpack_from(">i", data, 36)[0]
    assert first == 32  # "<mcd>…</mcd>" is 30 characters, blank-padded to 32
    assert data[40:40 + first] == MCD.encode() + b"  "


def test_ebcdic_struc_id():
    data = sample().pack(big_endian=True, ccsid=500)
    assert data[:4] == bytes.fromhex("d9c6c840")
    assert data[20:25] == bytes.fromhex("d4d8e2e3d9")


def test_duplicate_folders_and_nul_padding_round_trip_byte_exact():
    folders = [
        b"<mcd><Msd>jms_text</Msd></mcd>\x00\x00",
        b"<usr><a>1</a></usr>\x00",  # NameValueLength not a multiple of 4 …
        b"<usr><a>2</a></usr>   ",
        b"<usr><b>3</b></usr> \x00\x00\x00",
        b"",  # an empty folder
    ]
    data = handmade(folders, trailing=b"\x00" * 3)  # … so bytes are left over at the end
    assert len(data) % 4 == 0
    rfh = MQRFH2.unpack(data, big_endian=False, ccsid=819)
    assert rfh.folder_names() == ["mcd", "usr", "usr", "usr", ""]
    assert rfh.folders[1] == "<usr><a>1</a></usr>"
    assert rfh.trailing == b"\x00\x00\x00"
    assert rfh.pack(big_endian=False, ccsid=819) == data
    assert rfh.struc_length == len(data)
    assert rfh.properties() == [("mcd", "Msd", "jms_text"), ("usr", "a", "1"),
                                ("usr", "a", "2"), ("usr", "b", "3")]
    folders_out = rfh.to_dict()["folders"]
    assert [f["name"] for f in folders_out] == ["mcd", "usr", "usr", "usr", ""]
    assert folders_out[2] == {"name": "usr", "content": "<usr><a>2</a></usr>",
                              "properties": {"a": "2"}}


def test_invalid_utf8_round_trips_byte_exact():
    data = handmade([b"<usr><x>\xff\xfe</x></usr>    "])
    rfh = MQRFH2.unpack(data, big_endian=False, ccsid=819)
    assert "\ufffd" in rfh.folders[0]
    assert rfh.pack(big_endian=False, ccsid=819) == data


def test_edited_folder_is_reencoded_and_padded():
    data = handmade([MCD.encode() + b"\x00\x00", b"<usr><a>1</a></usr>\x00"])
    rfh = MQRFH2.unpack(data, big_endian=False, ccsid=819)
    rfh.folders[1] = "<usr><a>10</a></usr>"
    rfh.folders.append("<usr><é>ü</é></usr>")
    out = rfh.pack(big_endian=False, ccsid=819)
    assert out[36:36 + 4 + 32] == data[36:36 + 4 + 32]  # the unchanged folder kept its NULs
    back = MQRFH2.unpack(out, big_endian=False, ccsid=819)
    assert back.folders == [MCD, "<usr><a>10</a></usr>", "<usr><é>ü</é></usr>"]
    assert all(len(r) % 4 == 0 for r in back.raw_folders[1:])
    assert back.raw_folders[1] == b"<usr><a>10</a></usr>"
    assert back.raw_folders[2] == "<usr><é>ü</é></usr>".encode() + b"  "
    assert struct.unpack_from("<i", out, 8)[0] == len(out) == rfh.struc_length


@pytest.mark.parametrize("nv_ccsid", [1200, 13488, 17584])
@pytest.mark.parametrize("big_endian", [False, True])
def test_utf16_folders(nv_ccsid, big_endian):
    rfh = sample(name_value_ccsid=nv_ccsid, folders=["<usr><name>Zoë</name></usr>"])
    data = rfh.pack(big_endian=big_endian, ccsid=819)
    codec = "utf-16-be" if big_endian else "utf-16-le"
    assert "<usr>".encode(codec) in data
    back = MQRFH2.unpack(data, big_endian=big_endian, ccsid=819)
    assert back.properties() == [("usr", "name", "Zoë")]
    assert back.pack(big_endian=big_endian, ccsid=819) == data
    assert len(back.raw_folders[0]) % 4 == 0


def test_utf8_folder_text():
    rfh = sample(folders=["<usr><city>Zürich</city><jp>日本</jp></usr>"])
    back = MQRFH2.unpack(rfh.pack(big_endian=False, ccsid=1208), big_endian=False,
                         ccsid=1208)
    assert dict((p, v) for _, p, v in back.properties()) == {"city": "Zürich", "jp": "日本"}


def test_properties():
    rfh = sample(folders=[
        MCD, JMS, USR,
        "<usr><a><b>deep</b><c/></a><empty></empty><cd><![CDATA[<x> & y]]></cd></usr>",
        "<usr><!-- a comment --><t>&#x41;&#66;&lt;&gt;&quot;&apos;</t></usr>",
    ])
    assert rfh.properties() == [
        ("mcd", "Msd", "jms_text"),
        ("jms", "Dst", "queue:///ORDERS"), ("jms", "Tms", "1709287200000"),
        ("jms", "Dlv", "2"),
        ("usr", "colour", "red & blue"), ("usr", "n", "42"),
        ("usr", "a.b", "deep"), ("usr", "a.c", ""), ("usr", "empty", ""),
        ("usr", "cd", "<x> & y"),
        ("usr", "t", "AB<>\"'"),
    ]
    assert rfh.get("jms", "Dst") == "queue:///ORDERS"
    assert rfh.get("jms", "Nope", "-") == "-"
    d = rfh.to_dict()
    assert d["folders"][1] == {"name": "jms", "content": JMS,
                               "properties": {"Dst": "queue:///ORDERS",
                                              "Tms": "1709287200000", "Dlv": "2"}}


def test_duplicate_properties_in_to_dict_keep_every_value():
    rfh = sample(folders=["<usr><a>1</a><a>2</a><a>3</a></usr>"])
    assert rfh.to_dict()["folders"][0]["properties"] == {"a": "1", "a[2]": "2", "a[3]": "3"}


@pytest.mark.parametrize("text", [
    "<usr><a>1</a>",  # unclosed
    "<usr><a>1</b></usr>",  # crossed
    "<usr><a>1</a></usr></x>",  # stray close
    "text <usr></usr>",  # text outside
    "<usr><a 1</a></usr>",  # broken tag
    "<usr><a>1</a></usr",  # no '>'
    "<usr><!-- never closed</usr>",
    "",
    "no markup at all",
    "<" * 5000,
    "<a>" * 1000 + "</a>" * 1000,  # deeper than any folder
])
def test_malformed_folder_gives_no_properties(text):
    rfh = sample(folders=[text, MCD])
    assert rfh.properties() == [("mcd", "Msd", "jms_text")]
    d = rfh.to_dict()
    assert d["folders"][0]["properties"] == {}
    assert d["folders"][0]["content"] == text.rstrip(" \x00")
    back = MQRFH2.unpack(rfh.pack(big_endian=True, ccsid=819), big_endian=True, ccsid=819)
    assert back.folders[0] == text.rstrip(" \x00")


def test_folder_name_of_malformed_text():
    assert folder_name("<usr><a>1</usr>") == "usr"
    assert folder_name("  <jms >") == "jms"
    assert folder_name("junk") == ""
    assert parse_folder("<usr><a>1</usr>") is None
    assert parse_folder("<usr/>") == ("usr", [])


def test_to_dict():
    d = sample(flags=0, ccsid=-2).to_dict()
    assert {k: v for k, v in d.items() if k != "folders"} == {
        "type": "MQRFH2", "format": "MQSTR", "encoding": 546, "ccsid": -2,
        "name_value_ccsid": 1208, "flags": 0}
    assert [f["name"] for f in d["folders"]] == ["mcd", "jms", "usr"]


@pytest.mark.parametrize(("data", "offset", "problem"), [
    (b"RFH " + b"\x02\x00\x00\x00" * 3, 0, "needs 36 bytes"),
    (handmade([], length=32), 8, "less than 36"),
    (handmade([], length=38) + b"\x00\x00", 8, "not a multiple of 4"),
    (handmade([b"<a></a>\x00"], length=100), 8, "goes past the end"),
    (handmade([b"<a></a>\x00"], length=-4), 8, "less than 36"),
    (handmade([]).replace(b"RFH ", b"RFX "), 0, "StrucId"),
    (handmade([]).replace(b"\x02\x00\x00\x00", b"\x01\x00\x00\x00", 1), 4, "Version 1"),
])
def test_malformed(data, offset, problem):
    with pytest.raises(HeaderError) as err:
        MQRFH2.unpack(data, big_endian=False, ccsid=819)
    assert (err.value.header, err.value.offset) == ("MQRFH2", offset)
    assert problem in err.value.problem


@pytest.mark.parametrize("bad_length", [-1, 21, 1 << 30])
def test_bad_name_value_length(bad_length):
    good = handmade([b"<usr><a>1</a></usr>\x00"])
    data = good[:36] + struct.pack("<i", bad_length) + good[40:]
    with pytest.raises(HeaderError) as err:
        MQRFH2.unpack(data, big_endian=False, ccsid=819)
    assert err.value.header == "MQRFH2"
    assert err.value.offset == 36
    assert "NameValueLength" in err.value.problem


def test_unpack_at_offset_and_chained_data_after_it():
    rfh = sample()
    data = b"\x00" * 8 + rfh.pack(big_endian=False, ccsid=819) + b"payload"
    back = MQRFH2.unpack(data, 8, big_endian=False, ccsid=819)
    assert back.folders == rfh.folders
    assert back.length == len(data) - 15


# -- MQRFH version 1 --------------------------------------------------------------------


@pytest.mark.parametrize("big_endian", [False, True])
@pytest.mark.parametrize("ccsid", [819, 500])
def test_rfh1_round_trip(big_endian, ccsid):
    rfh = MQRFH(encoding=546, ccsid=819, format="MQSTR", flags=0,
                name_value_data="OPT_APP_GRP orders OPT_MSG_TYPE xy  ".encode(
                    "cp500" if ccsid == 500 else "latin-1"))
    data = rfh.pack(big_endian=big_endian, ccsid=ccsid)
    assert len(data) == 32 + 36 == rfh.struc_length
    back = MQRFH.unpack(data, big_endian=big_endian, ccsid=ccsid)
    assert back.pack(big_endian=big_endian, ccsid=ccsid) == data
    assert back.to_dict() == {"type": "MQRFH", "format": "MQSTR", "encoding": 546,
                              "ccsid": 819, "flags": 0,
                              "name_values": "OPT_APP_GRP orders OPT_MSG_TYPE xy"}


def test_rfh1_errors():
    rfh = MQRFH(format="MQSTR", name_value_data=b"abcd")
    data = rfh.pack(big_endian=False, ccsid=819)
    with pytest.raises(HeaderError, match="goes past the end"):
        MQRFH.unpack(data[:-1], big_endian=False, ccsid=819)
    with pytest.raises(HeaderError, match="Version 1"):
        MQRFH2.unpack(data + b"\x00" * 8, big_endian=False, ccsid=819)


@pytest.mark.parametrize("big_endian", [False, True])
def test_struc_length_of_odd_utf16_folder_is_the_length_read(big_endian):
    codec = "utf-16-be" if big_endian else "utf-16-le"
    folder = "<usr><a>x</a></usr>".encode(codec) + b"\xd8\x00\x00"  # lone surrogate, odd
    folder += b"\x00" * (-len(folder) % 4)
    data = handmade([folder], big_endian=big_endian, nv_ccsid=1200)
    rfh = MQRFH2.unpack(data + b"payload", big_endian=big_endian, ccsid=819)
    assert rfh.struc_length == rfh.length == len(data)
    assert rfh.pack(big_endian=big_endian, ccsid=819) == data
