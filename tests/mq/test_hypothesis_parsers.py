"""Property tests: bad bytes give HeaderError and nothing else; display helpers never raise.

Inputs are random bytes and mutations of valid messages (flipped bytes, truncations, absurd
lengths written over the integer fields), in both byte orders and ASCII and EBCDIC.
"""

from __future__ import annotations

import struct
import unicodedata

from hypothesis import HealthCheck, given
from hypothesis import strategies as st

from mqconsole.mq.chain import (
    add_dead_letter_header,
    dead_letter_header,
    parse_body,
    parse_body_lenient,
    strip_dead_letter_header,
)
from mqconsole.mq.dlh import MQDLH
from mqconsole.mq.errors import HeaderError
from mqconsole.mq.md import MQMD
from mqconsole.mq.payload import (
    decode_text,
    hex_dump,
    is_unsafe_char,
    kind_of,
    preview,
    safe_text,
)
from mqconsole.mq.rfh2 import MQRFH, MQRFH2, parse_folder
from mqconsole.mq.xqh import MQMDE, MQXQH
from tests.support.examples import examples

SETTINGS = examples(100, suppress_health_check=[HealthCheck.data_too_large])

PARSERS = (MQDLH, MQRFH2, MQRFH, MQXQH, MQMDE)
CCSIDS = st.sampled_from([0, 819, 1208, 1252, 37, 500, 1047, 943, 1200, 4711, -2])
FORMATS = st.sampled_from(["MQDEAD  ", "MQHRF2  ", "MQHRF   ", "MQXMIT  ", "MQHMDE  ",
                           "MQSTR   ", "        ", "MQADMIN ", "MQDEAD\x00\x00"])
ORDERS = st.sampled_from([True, False, None])
ABSURD = st.sampled_from([0, 1, 2, 3, 4, 35, 36, 37, 71, 72, 171, 172, 428, -1, -36,
                          2**31 - 1, -(2**31), 0x7FFFFFF0, 1 << 24])


def _valid_messages() -> list[tuple[MQMD, bytes]]:
    out = []
    for big_endian, ccsid in ((False, 819), (True, 500), (True, 1208), (False, 1047)):
        enc = 273 if big_endian else 546
        rfh = MQRFH2(encoding=enc, ccsid=ccsid, format="MQSTR", folders=[
            "<mcd><Msd>jms_text</Msd></mcd>", "<usr><a>1</a><b><c>2</c></b></usr>",
            "<usr><a>dup</a></usr>"])
        md = MQMD(format="MQHRF2", encoding=enc, ccsid=ccsid)
        out.append(add_dead_letter_header(
            md, rfh.pack(big_endian=big_endian, ccsid=ccsid) + b"payload text",
            reason=2053, dest_q_name="Q1", dest_qmgr_name="QM1"))
        xmd = MQMD(version=1, format="MQHMDE", encoding=enc, ccsid=ccsid)
        xqh = MQXQH(remote_q_name="RQ", remote_qmgr_name="RQM", md=xmd)
        mde = MQMDE(encoding=enc, ccsid=ccsid, format="MQHRF", group_id=b"g" * 24)
        rfh1 = MQRFH(encoding=enc, ccsid=ccsid, format="MQSTR", name_value_data=b"A B C   ")
        body = (xqh.pack(big_endian=big_endian, ccsid=ccsid)
                + mde.pack(big_endian=big_endian, ccsid=ccsid)
                + rfh1.pack(big_endian=big_endian, ccsid=ccsid) + b"x" * 10)
        xmit = MQMD(format="MQXMIT", encoding=enc, ccsid=ccsid)
        out.append((xmit, body))
        out.append(add_dead_letter_header(xmit, body, reason=2087, dest_q_name="XQ"))
    return out


VALID = _valid_messages()


@st.composite
def mutated(draw) -> tuple[MQMD, bytes]:
    md, body = draw(st.sampled_from(VALID))
    data = bytearray(body)
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["flip", "int", "cut", "insert"]))
        if not data:
            break
        at = draw(st.integers(0, len(data) - 1))
        if kind == "flip":
            data[at] = draw(st.integers(0, 255))
        elif kind == "int":
            at -= at % 4
            value = draw(ABSURD)
            data[at:at + 4] = struct.pack(draw(st.sampled_from([">i", "<i"])), value)
        elif kind == "cut":
            del data[at:]
        else:
            data[at:at] = draw(st.binary(min_size=1, max_size=8))
    if draw(st.booleans()):
        md = md.copy(encoding=draw(st.sampled_from([0, 273, 546, 785, 1, 2, 15])))
    return md, bytes(data)


def _only_header_errors(fn, *args, **kw):
    try:
        return fn(*args, **kw)
    except HeaderError as exc:
        assert exc.header and isinstance(exc.offset, int) and exc.problem
        return None


# -- parsers raise HeaderError only ---------------------------------------------------------


@SETTINGS
@given(data=st.binary(max_size=600), offset=st.integers(0, 8), big_endian=ORDERS,
       ccsid=CCSIDS)
def test_unpack_random_bytes(data, offset, big_endian, ccsid):
    _only_header_errors(MQMD.unpack, data, offset, big_endian=big_endian, ccsid=ccsid)
    for cls in PARSERS:
        _only_header_errors(cls.unpack, data, offset, big_endian=big_endian, ccsid=ccsid)


@SETTINGS
@given(prefix=st.sampled_from([b"DLH ", b"RFH ", b"XQH ", b"MDE ", b"MD  ",
                               bytes.fromhex("c4d3c840"), bytes.fromhex("d9c6c840")]),
       version=st.sampled_from([b"\x00\x00\x00\x01", b"\x01\x00\x00\x00",
                                b"\x00\x00\x00\x02", b"\x02\x00\x00\x00"]),
       rest=st.binary(max_size=500), big_endian=ORDERS, ccsid=CCSIDS)
def test_unpack_plausible_starts(prefix, version, rest, big_endian, ccsid):
    data = prefix + version + rest
    _only_header_errors(MQMD.unpack, data, 0, big_endian=big_endian, ccsid=ccsid)
    for cls in PARSERS:
        _only_header_errors(cls.unpack, data, 0, big_endian=big_endian, ccsid=ccsid)


@SETTINGS
@given(message=mutated(), big_endian=ORDERS, ccsid=CCSIDS)
def test_unpack_mutated_headers(message, big_endian, ccsid):
    _, body = message
    for cls in PARSERS:
        for offset in (0, 172, 428):
            _only_header_errors(cls.unpack, body, offset, big_endian=big_endian, ccsid=ccsid)


@SETTINGS
@given(message=mutated())
def test_parse_body_mutated(message):
    md, body = message
    strict = _only_header_errors(parse_body, md, body)
    lenient = parse_body_lenient(md, body)
    assert lenient.payload == body[lenient.payload_offset:]
    assert len(lenient.format) == 8
    if strict is not None:
        assert lenient == strict and lenient.error is None
    else:
        assert lenient.error is not None
    lenient.to_dict()
    for h in lenient.headers:
        h.to_dict()
    for rfh in lenient.rfh2s:
        rfh.properties()
    dlh = dead_letter_header(md, body)
    assert dlh is None or isinstance(dlh, MQDLH)
    _only_header_errors(strip_dead_letter_header, md, body)


@SETTINGS
@given(fmt=FORMATS, encoding=st.sampled_from([0, 273, 546, 785, 3]), ccsid=CCSIDS,
       body=st.binary(max_size=800))
def test_parse_body_random(fmt, encoding, ccsid, body):
    md = MQMD(format=fmt, encoding=encoding, ccsid=ccsid)
    _only_header_errors(parse_body, md, body)
    pb = parse_body_lenient(md, body)
    assert pb.payload == body[pb.payload_offset:]
    dead_letter_header(md, body)


# -- round trips --------------------------------------------------------------------------


@SETTINGS
@given(rest=st.binary(min_size=164, max_size=164), big_endian=st.booleans(),
       ccsid=st.sampled_from([819, 500, 37]))
def test_any_dlh_that_parses_packs_back_to_its_bytes(rest, big_endian, ccsid):
    codec = "latin-1" if ccsid == 819 else f"cp{ccsid:03d}"
    data = "DLH ".encode(codec) + struct.pack(">i" if big_endian else "<i", 1) + rest
    dlh = MQDLH.unpack(data, big_endian=big_endian, ccsid=ccsid)
    assert dlh.pack(big_endian=big_endian, ccsid=ccsid) == data


@SETTINGS
@given(folders=st.lists(st.binary(max_size=40), max_size=5),
       trailing=st.binary(max_size=3), header=st.binary(min_size=24, max_size=24),
       big_endian=st.booleans(), nv_ccsid=st.sampled_from([1208, 1200, 13488, 819, 4711]))
def test_any_rfh2_that_parses_packs_back_to_its_bytes(folders, trailing, header, big_endian,
                                                      nv_ccsid):
    o = ">i" if big_endian else "<i"
    body = b"".join(struct.pack(o, len(f)) + f for f in folders)
    body += trailing[:(-len(body)) % 4] if len(body) % 4 else b""
    body += b"\x00" * (-len(body) % 4)
    fixed = bytearray(b"RFH " + struct.pack(o, 2) + struct.pack(o, 36 + len(body)) + header)
    fixed[32:36] = struct.pack(o, nv_ccsid)
    data = bytes(fixed) + body
    rfh = _only_header_errors(MQRFH2.unpack, data, big_endian=big_endian, ccsid=819)
    if rfh is not None:
        assert rfh.struc_length == len(data)
        assert rfh.pack(big_endian=big_endian, ccsid=819) == data
        rfh.properties()
        rfh.to_dict()


@SETTINGS
@given(message=mutated(), big_endian=st.booleans())
def test_mutated_rfh2_that_parses_packs_back(message, big_endian):
    _, body = message
    at = 172  # the RFH2 after the DLH in the dead-lettered samples
    ccsid = {b"RFH ": 819, bytes.fromhex("d9c6c840"): 500}.get(body[at:at + 4])
    if ccsid is None:
        return
    rfh = _only_header_errors(MQRFH2.unpack, body, at, big_endian=big_endian, ccsid=ccsid)
    if rfh is not None:
        assert rfh.pack(big_endian=big_endian, ccsid=ccsid) == body[at:at + rfh.struc_length]


@SETTINGS
@given(reason=st.integers(-(2**31), 2**31 - 1), q=st.text(max_size=60),
       enc=st.sampled_from([273, 546, 785]), ccsid=st.sampled_from([819, 1208, 500, 1047]),
       fmt=st.sampled_from(["MQSTR", "", "MQHRF2", "APPFMT"]), body=st.binary(max_size=50))
def test_add_then_strip(reason, q, enc, ccsid, fmt, body):
    md = MQMD(format=fmt, encoding=enc, ccsid=ccsid)
    dead_md, dead_body = add_dead_letter_header(md, body, reason=reason, dest_q_name=q)
    restored, rest = strip_dead_letter_header(dead_md, dead_body)
    assert restored == md and rest == body
    assert dead_letter_header(dead_md, dead_body).reason == reason


# -- display helpers never raise ------------------------------------------------------------


@SETTINGS
@given(data=st.binary(max_size=600), ccsid=CCSIDS, fmt=FORMATS,
       encoding=st.sampled_from([None, 0, 273, 546]), width=st.integers(-2, 120))
def test_display_helpers_never_raise(data, ccsid, fmt, encoding, width):
    d = decode_text(data, ccsid, fmt, encoding=encoding)
    assert d.text is None or isinstance(d.text, str)
    assert d.text is not None or d.note
    kind_of(data, fmt, d.text)
    line = preview(data, ccsid, fmt, width, encoding=encoding)
    assert "\n" not in line and "\r" not in line
    assert not any(is_unsafe_char(c) for c in line)
    cells = sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in line)
    assert cells <= (width if width > 0 else 60)
    dump = hex_dump(data, width if width > 0 else 16, ccsid=ccsid)
    assert all(c == "\n" or 0x20 <= ord(c) < 0x7F for c in dump)


@SETTINGS
@given(text=st.text(st.characters(codec=None), max_size=200))
def test_safe_text_leaves_nothing_unsafe(text):
    out = safe_text(text)
    assert not any(is_unsafe_char(c) for c in out)
    if not any(is_unsafe_char(c) for c in text):
        assert out == text


@SETTINGS
@given(text=st.text(st.sampled_from("<>/ab=\"'&;!-[]CDAT \x00"), max_size=80))
def test_parse_folder_never_raises(text):
    result = parse_folder(text)
    assert result is None or isinstance(result[0], str)
    MQRFH2(folders=[text]).to_dict()
