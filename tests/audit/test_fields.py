"""The quick ways of fields.py give exactly what the general code gives."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from mqconsole.audit.fields import DLHFields, Headers, _dlh_fast, md_fields, parse_headers
from mqconsole.backends.embedded.mdfast import pack819
from mqconsole.backends.embedded.stored import StoredMessage
from mqconsole.mq.chain import add_dead_letter_header, parse_body_lenient
from mqconsole.mq.md import MQMD
from mqconsole.mq.message import Message
from tests.support.examples import examples

text = st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=255), max_size=50)
names = st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._", max_size=48)


@st.composite
def descriptors(draw) -> MQMD:
    return MQMD(
        version=draw(st.sampled_from([1, 2])), msg_type=draw(st.integers(-5, 10**6)),
        expiry=draw(st.integers(-1, 10**6)), feedback=draw(st.integers(0, 70000)),
        encoding=draw(st.sampled_from([273, 546, 785, 0, 17])),
        ccsid=draw(st.sampled_from([0, 819, 1208, 500, 37, 437])),
        format=draw(st.sampled_from(["MQSTR", "MQDEAD", "", "MQHRF2", "MQXMIT", "X\x00Y"])),
        priority=draw(st.integers(-1, 9)), persistence=draw(st.integers(0, 2)),
        msg_id=draw(st.binary(min_size=24, max_size=24)),
        correl_id=draw(st.binary(max_size=24)), backout_count=draw(st.integers(0, 99)),
        reply_to_q=draw(names), reply_to_qmgr=draw(names), user_identifier=draw(text),
        appl_identity_data=draw(text), put_appl_type=draw(st.integers(-1, 40)),
        put_appl_name=draw(text), put_date=draw(st.sampled_from(["20261125", "", "2026xx25"])),
        put_time=draw(st.sampled_from(["10203040", "", "99999999"])),
        group_id=draw(st.binary(max_size=24)))


def _general(message: Message):
    md = message.md
    return (md.msg_id, md.correl_id, md.group_id if md.version >= 2 else b"\x00" * 24,
            md.put_date, md.put_time, md.put_appl_name, md.user_identifier,
            md.appl_identity_data, md.put_appl_type, md.msg_type, md.feedback, md.persistence,
            md.priority, md.backout_count, md.ccsid, md.encoding, md.expiry, md.format,
            md.reply_to_q, md.reply_to_qmgr)


@examples(300)
@given(descriptors(), st.integers(0, 50), st.none() | st.integers(1, 10**6))
def test_packed_md_reads_as_the_unpacked_one(md, backout_count, expiry) -> None:
    stored = StoredMessage(pack819(md), b"body", backout_count, expiry)
    quick = md_fields(stored)
    assert stored.stored is not None  # the quick way did not unpack it
    general = _general(StoredMessage(pack819(md), b"body", backout_count, expiry))
    assert tuple(quick) == general


@given(descriptors())
def test_a_plain_message_reads_its_md(md) -> None:
    assert tuple(md_fields(Message(md, b""))) == _general(Message(md, b""))


def _slow(md: MQMD, body: bytes) -> Headers:
    parsed = parse_body_lenient(md, body)
    if parsed.error is not None:
        return Headers(False, None, None, None, body)
    dlh = parsed.dlh
    return Headers(True, None if dlh is None else DLHFields.of(dlh), None, [], parsed.payload)


@examples(400)
@given(descriptors(), st.integers(-(2**31), 2**31 - 1), names, names, text, text,
       st.sampled_from(["MQSTR", "", "MQHRF2", "MQDEAD", "ABC"]), st.binary(max_size=40),
       st.sampled_from([None, 273, 546, 785]), st.sampled_from([None, 500, 819, 1208]),
       st.integers(0, 200), st.binary(max_size=4))
def test_quick_dead_letter_header_is_the_general_one(md, reason, dest_q, dest_qmgr, appl,
                                                       put_time, fmt, data, hdr_enc, hdr_ccsid,
                                                       cut, garbage) -> None:
    md = md.copy(format=fmt)
    md2, body = add_dead_letter_header(md, data, reason=reason, dest_q_name=dest_q,
                                       dest_qmgr_name=dest_qmgr, put_appl_name=appl,
                                       put_date="20261125", put_time=put_time[:8],
                                       header_encoding=hdr_enc, header_ccsid=hdr_ccsid)
    for candidate in (body, body[:cut], garbage + body[len(garbage):]):
        fast = _dlh_fast(md2.format.strip(" \x00"), md2.encoding, md2.ccsid, candidate)
        if fast is not None:
            assert fast == _slow(md2, candidate)
        message = Message(md2, candidate)
        got = parse_headers(md2.format.strip(" \x00"), md2.encoding, md2.ccsid, candidate,
                            message)
        assert got.parsed == (parse_body_lenient(md2, candidate).error is None)
