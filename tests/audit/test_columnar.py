"""A batch made at once (``audit.columnar``) is exactly the batch made row by row, for
plain batches (which it takes) and odd ones (which it hands back)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from mqconsole.audit import columnar
from mqconsole.audit.columns import snapshot_columns
from mqconsole.audit.rows import BatchBuilder
from mqconsole.backends.embedded.mdfast import pack819
from mqconsole.backends.embedded.stored import StoredMessage
from mqconsole.mq.chain import add_dead_letter_header
from mqconsole.mq.md import MQMD
from mqconsole.mq.message import Message
from tests.support.examples import examples

from .test_fields import descriptors, names, text

ascii_text = st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126), max_size=30)
stamps = st.sampled_from(["20261125", "20260229", "20240229", "2026112 ", "", "19991231",
                          "2026xx25", "00000000"])
times = st.sampled_from(["10203040", "235959  ", "2359599 ", "24000000", "00000000", "",
                         "99999999", "1020304\x00"])


@st.composite
def messages(draw, plain: bool) -> Message:
    """A stored message: a dead letter (an MQDLH then data) or no header; ``plain``
    draws only what the columnar way takes (ASCII text, one MD version and byte order)."""
    if plain:
        md = MQMD(version=2, encoding=draw(st.sampled_from([273, 546])),
                  ccsid=draw(st.sampled_from([0, 819, 1208, 437])),
                  format=draw(st.sampled_from(["MQSTR", "", "MQDEAD", " MQSTR"])),
                  msg_id=draw(st.binary(min_size=24, max_size=24)),
                  correl_id=draw(st.binary(max_size=24)), group_id=draw(st.binary(max_size=24)),
                  put_appl_name=draw(ascii_text), user_identifier=draw(ascii_text),
                  appl_identity_data=draw(ascii_text), reply_to_q=draw(names),
                  reply_to_qmgr=draw(names), put_date=draw(stamps), put_time=draw(times),
                  msg_type=draw(st.integers(-5, 10**6)), expiry=draw(st.integers(-1, 10**6)),
                  feedback=draw(st.integers(0, 70000)), priority=draw(st.integers(0, 9)),
                  persistence=draw(st.integers(0, 2)), put_appl_type=draw(st.integers(-1, 40)))
    else:
        md = draw(descriptors())
    data = draw(st.binary(max_size=40))
    body = data
    if draw(st.booleans()):
        md, body = add_dead_letter_header(
            md.copy(format=draw(st.sampled_from(["MQSTR", "", "ABC"]))), data,
            reason=draw(st.sampled_from([2053, 2085, 4321, 65543, -1])),
            dest_q_name=draw(names), dest_qmgr_name=draw(names),
            put_appl_name=draw(ascii_text if plain else text),
            put_date=draw(stamps), put_time=draw(times))
        if md.version != 2 and plain:
            md = md.copy(version=2)
    if not plain and draw(st.booleans()):
        body = body[:draw(st.integers(0, 200))]
    return StoredMessage(pack819(md), body, draw(st.integers(0, 50)),
                         draw(st.none() | st.integers(1, 10**6)))


def _both(batch: list[Message], first: int = 7):
    out = []
    for fast in (True, False):
        builder = BatchBuilder(snapshot_columns(with_payload=True), qmgr="QM1", queue="Q",
                               source="queue", columnar=fast)
        for i, m in enumerate(batch, first):
            builder.add(m, i)
        out.append(builder.flush())
    return out


@examples(150)
@given(st.lists(messages(plain=True), min_size=1, max_size=12))
def test_a_plain_batch_is_made_at_once_and_is_the_same(batch) -> None:
    by_columns, by_rows = _both(batch)
    assert by_columns.equals(by_rows), (by_columns.to_pylist(), by_rows.to_pylist())


def _all_plain(messages: list) -> bool:
    """The whole batch made at once: every message of the plain kind."""
    decoded = columnar.decode_messages(messages)
    return decoded.columns is not None and bool(decoded.mask.all())


def test_the_plain_kinds_are_taken_and_others_handed_back() -> None:
    md, body = add_dead_letter_header(MQMD(format="MQSTR"), b"x", reason=2053,
                                      dest_q_name="Q", dest_qmgr_name="QM",
                                      put_appl_name="app", put_date="20261125",
                                      put_time="10000000")
    dead = StoredMessage(pack819(md), body)
    plain = StoredMessage(pack819(MQMD(format="MQSTR")), b"hello")
    assert _all_plain([dead, plain, dead])
    assert _all_plain([dead, Message(md, body)])  # real MQ's: its MD packed here
    euro = Message(md.copy(put_appl_name="\u20ac"), body)  # not latin-1: does not pack
    assert not _all_plain([dead, euro])
    rfh2 = StoredMessage(pack819(MQMD(format="MQHRF2")), b"RFH ")
    assert not _all_plain([dead, rfh2])  # another header: row by row
    latin = StoredMessage(pack819(MQMD(format="MQSTR", put_appl_name="caf\xe9")), b"")
    assert not _all_plain([plain, latin])


def _mixed(n: int = 200) -> tuple[list[Message], list[int]]:
    """Dead letters with 5 % RFH2 messages among them (and one of each other odd kind);
    the positions of the messages the columnar way does not take."""
    from mqconsole.mq.rfh2 import MQRFH2

    rfh = MQRFH2(folders=["<usr><tenant>eu</tenant></usr>"], format="MQSTR")
    out: list[Message] = []
    odd: list[int] = []
    for i in range(n):
        if i % 20 == 7:  # 5 %: properties in an RFH2
            out.append(StoredMessage(pack819(MQMD(format="MQHRF2", ccsid=1208)),
                                     rfh.pack(big_endian=False, ccsid=1208) + b"{}"))
            odd.append(i)
            continue
        md, body = add_dead_letter_header(MQMD(format="MQSTR", msg_id=bytes([i % 256]) * 24),
                                          b"x%d" % i, reason=2053, dest_q_name="Q",
                                          dest_qmgr_name="QM", put_appl_name="app",
                                          put_date="20261125", put_time="10000000")
        if i == 50:  # no packed MD (real MQ's), its text not latin-1: does not pack
            out.append(Message(md.copy(put_appl_name="\u20ac"), body))
            odd.append(i)
        elif i == 52:  # no packed MD (a message of real MQ as it was read): packed here
            out.append(Message(md, body))
        elif i == 51:  # latin-1 beyond ASCII
            out.append(StoredMessage(pack819(md.copy(put_appl_name="caf\xe9")), body))
            odd.append(i)
        else:
            out.append(StoredMessage(pack819(md), body))
    return out, odd


def test_one_odd_message_costs_its_own_row_not_the_batch(monkeypatch) -> None:
    from mqconsole.audit import rows

    batch, odd = _mixed()
    assert list(np.flatnonzero(~columnar.decode_messages(batch).mask)) == odd
    made_by_rows = []
    real = rows.row_values

    def counting(message, position):
        made_by_rows.append(position)
        return real(message, position)

    monkeypatch.setattr(rows, "row_values", counting)
    builder = BatchBuilder(snapshot_columns(with_payload=True), qmgr="QM1", queue="Q",
                           source="queue")
    for i, m in enumerate(batch):
        builder.add(m, i)
    by_columns = builder.flush()
    assert made_by_rows == odd  # the other 95 % at once
    monkeypatch.setattr(rows, "row_values", real)
    by_rows = _both(batch, first=0)[1]
    assert by_columns.equals(by_rows), (by_columns.to_pylist(), by_rows.to_pylist())
    assert by_columns.column("properties")[7].as_py() == [("tenant", "eu")]


def _packed(message: Message) -> tuple[bytes, bytes]:
    """``message`` as a cursor reads it packed (``next_packed``): the stored MD with its
    BackoutCount and Expiry patched in, and the body."""
    from mqconsole.backends.embedded.stored import BACKOUT_COUNT_AT, EXPIRY_AT, byte_order

    blob, backout, expiry = message.stored  # type: ignore[attr-defined,misc]
    md = bytearray(blob)
    order = byte_order(blob)
    md[BACKOUT_COUNT_AT:BACKOUT_COUNT_AT + 4] = backout.to_bytes(4, order, signed=True)
    if expiry is not None:
        md[EXPIRY_AT:EXPIRY_AT + 4] = expiry.to_bytes(4, order, signed=True)
    return bytes(md), bytes(message.body)


@examples(300)
@given(st.lists(messages(plain=False), max_size=8), st.lists(messages(plain=True), max_size=8))
def test_any_batch_is_the_same_made_any_way(odd, plain) -> None:
    """Odd messages then plain ones: the batch made at once (the columnar way, handing the
    odd ones back to be made row by row) and the batch read packed (as a cursor reads it)
    are each exactly the batch made row by row. (One test for both ways: each drew its own
    300 such batches, and drawing them is most of their time.)"""
    from mqconsole.audit.columns import arrow_schema
    from mqconsole.audit.rows import packed_batch

    batch = odd + plain
    if not batch:
        return
    blobs, bodies = zip(*map(_packed, batch), strict=True)  # before the MDs are unpacked
    by_columns, by_rows = _both(batch)
    assert by_columns.equals(by_rows), (by_columns.to_pylist(), by_rows.to_pylist())
    packed = packed_batch(arrow_schema(snapshot_columns(with_payload=True)), "QM1", "Q",
                          "queue", blobs, bodies, 7)
    assert packed.equals(by_rows), (packed.to_pylist(), by_rows.to_pylist())


@examples(100)
@given(st.lists(messages(plain=False), max_size=6), st.lists(messages(plain=True), max_size=6))
def test_messages_read_from_real_mq_are_packed_and_the_same_made_any_way(odd, plain) -> None:
    """Messages as real MQ or a saved file gives them (an MQMD, no stored MD): each packed
    as the embedded queue manager packs it, the plain ones made at once (issue 25 item 4:
    the fast path for every source), and the batch exactly the batch made row by row."""
    stored_plain = _all_plain(plain)  # (before the MDs are unpacked)
    batch = [Message(m.md, bytes(m.body)) for m in odd + plain]
    if not batch:
        return
    assert _all_plain(batch[len(odd):]) == stored_plain  # taken as when stored
    by_columns, by_rows = _both(batch)
    assert by_columns.equals(by_rows), (by_columns.to_pylist(), by_rows.to_pylist())


def test_a_mixed_batch_read_packed_is_the_same() -> None:
    from mqconsole.audit.columns import arrow_schema
    from mqconsole.audit.rows import packed_batch

    batch, odd = _mixed()
    real_mq = (50, 52)  # a packed read has no other kind than stored messages
    batch = [m for i, m in enumerate(batch) if i not in real_mq]
    blobs, bodies = zip(*map(_packed, batch), strict=True)
    assert list(np.flatnonzero(~columnar.decode_packed(blobs, bodies).mask)) == [
        i - sum(r < i for r in real_mq) for i in odd if i not in real_mq]
    packed = packed_batch(arrow_schema(snapshot_columns(with_payload=True)), "QM1", "Q",
                          "queue", blobs, bodies, 0)
    assert packed.equals(_both(batch, first=0)[1])


def test_arrays_made_from_buffers_are_what_pyarrow_makes() -> None:
    """The batch builders' arrays come from buffers, not pyarrow's list conversion (which
    imports pandas): the same arrays, nulls and empty values included."""
    import pyarrow as pa

    assert columnar.repeated("", 3).equals(pa.array(["", "", ""]))  # a file without a qmgr
    assert columnar.repeated("QM1", 2).equals(pa.array(["QM1", "QM1"]))
    assert columnar.repeated("x", 0).equals(pa.array([], pa.string()))
    # a saved file's name that is not UTF-8 (surrogates): null, as pyarrow made it
    assert columnar.repeated("dlq-\udce9.dmp", 2).equals(pa.array([None, None], pa.string()))
    text = ["a", None, "\xe9", ""]
    assert columnar.strings(text).equals(pa.array(text, pa.string()))
    blobs = [b"a", None, b"", bytearray(b"xy")]
    assert columnar.binaries(blobs).equals(pa.array([b"a", None, b"", b"xy"], pa.binary()))
    assert columnar.binaries([]).equals(pa.array([], pa.binary()))
    with pytest.raises(ValueError, match="2 GiB"):  # int32 offsets: refused, not wrapped
        columnar.repeated("x" * 2**16, 2**15)
    numbers = [1, None, -2**31, 2**31 - 1]
    assert columnar.int32s(numbers).equals(pa.array(numbers, pa.int32()))
    assert columnar.int32s([3, 4]).equals(pa.array([3, 4], pa.int32()))
