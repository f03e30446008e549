"""A batch of plain messages into the snapshot's columns at once (numpy), not row by row.

Most of an export's Python time went into taking each message's fields apart one by one
(``rows.row_values``). Messages of the embedded queue manager still hold their packed MD
(``StoredMessage.stored``), and a dead-letter queue's bodies start with an MQDLH, so a
batch of them is fixed-width records: their fields are columns of a 2-D byte array,
sliced, stripped and converted for all rows in a few numpy operations.

``decode_packed(blobs, bodies)`` lays a batch out once (the MDs and the bodies each as one
buffer), says which rows are of the plain kind — every packed MD of the batch's most
common length and byte order (its first 8 bytes) with ASCII text, and each body either not
a header format (no header) or one MQDLH then data as ``fields._dlh_fast`` takes it (the
dead letters of the most common byte order) — and makes the columns of ``rows.ROW_COLUMNS``
(but ``position``) of those rows from the same arrays, so a batch where 5 % carry an RFH2
takes the other 95 % at once and only those 5 % row by row (``rows.BatchBuilder``).
``decode_arrow`` does the same from a raw batch's Arrow columns (``raw.py``) without a
Python object per row, ``decode_messages`` from messages (``Decoded.mask``: the plain
rows; ``Decoded.columns``: theirs). The answer is the same either way (tests compare
both on the same batches, odd ones included).

The arrays are made from buffers (``pa.Array.from_buffers``), not from Python lists:
pyarrow's list conversion imports pandas (a third of a CPU-second a process) and costs a
Python object per value.
"""

from __future__ import annotations

import binascii
import hashlib
import struct
from collections.abc import Sequence
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from mqconsole.backends.embedded.mdfast import pack819
from mqconsole.mq.chain import DEFAULT_CHAR_CCSID, HEADER_FORMATS
from mqconsole.mq.dlh import MQDLH_LENGTH, struc_codec
from mqconsole.mq.md import LAYOUT
from mqconsole.mq.message import Message

from .fields import _SPAN, _VERSION_WORDS
from .values import _days, known_reason_name, put_micros

_B = " \x00"
_DIGIT0 = ord("0")
_US_PER_DAY = 86_400_000_000
_ASCII = "".join(map(chr, range(128)))
_ASCII_CODECS: dict[str, bool] = {}
_NUMBERS = ("put_appl_type", "msg_type", "feedback", "persistence", "priority", "ccsid",
            "encoding")
_TEXT_RSTRIP = ("put_appl_name", "user_identifier", "appl_identity_data", "reply_to_q",
                "reply_to_qmgr")
# the MQDLH's fields: byte spans (fields._dlh_fast's)
_DLH_DEST_Q, _DLH_DEST_QMGR, _DLH_FORMAT = (12, 60), (60, 108), (116, 124)
_DLH_APPL, _DLH_DATE, _DLH_TIME = (128, 156), (156, 164), (164, 172)
_TIMESTAMP = pa.timestamp("us", tz="UTC")
_HEX_UPPER = bytes.maketrans(b"abcdef", b"ABCDEF")


def _high_bits(width: int, spans: Sequence[tuple[int, int]]) -> np.ndarray:
    """0x80 at the bytes of ``spans`` in a record of ``width``: ``(rows & it).max(1)`` is
    non-zero for a row with a byte beyond ASCII there (one pass, no per-span reduce)."""
    out = np.zeros(width, dtype=np.uint8)
    for lo, hi in spans:
        out[lo:hi] = 0x80
    return out


_MD_TEXT = {w: _high_bits(w, [_SPAN[a] for a in (*_TEXT_RSTRIP, "format", "put_date",
                                                   "put_time")]) for w in (324, 364)}
_DLH_TEXT = _high_bits(MQDLH_LENGTH, [(12, 108), (116, 172)])


def _word(data: bytes, big: bool = False) -> int:
    return int.from_bytes(data, "big" if big else "little")


_MD_EYE = _word(b"MD  ")
_DLH_EYE = _word(b"DLH ")
# the first 8 bytes of a usable MD of each length (its StrucId and a Version word) as one
# little-endian 64-bit number, and the byte order and version each stands for
_HEADS = {width: {_MD_EYE | (_word(word) << 32): order for word, order in
                  _VERSION_WORDS.items() if (width == 364) == (order[1] == 2)}
          for width in (324, 364)}


def _ascii_codec(codec: str) -> bool:
    """Does ``codec`` read bytes below 0x80 as ASCII?"""
    known = _ASCII_CODECS.get(codec)
    if known is None:
        try:
            known = bytes(range(128)).decode(codec, errors="replace") == _ASCII
        except LookupError:
            known = False
        _ASCII_CODECS[codec] = known
    return known


# -- arrays from buffers ------------------------------------------------------------------

def _buffer(values: np.ndarray) -> pa.Buffer:
    return pa.py_buffer(np.ascontiguousarray(values))


def _validity(valid: np.ndarray | None) -> pa.Buffer | None:
    if valid is None or valid.all():
        return None
    return pa.py_buffer(np.packbits(valid, bitorder="little"))


def _numbers(values: np.ndarray, kind: pa.DataType, valid: np.ndarray | None = None
             ) -> pa.Array:
    """A numpy array (already of ``kind``'s width, native order) as an Arrow array."""
    return pa.Array.from_buffers(kind, len(values), [_validity(valid), _buffer(values)])


def from_numpy(values: np.ndarray, kind: pa.DataType) -> pa.Array:
    """A numpy array of ``kind``'s own width as an Arrow array, without pyarrow's
    conversion (which imports pandas for some types)."""
    return _numbers(np.ascontiguousarray(values), kind)


def repeated(text: str, n: int) -> pa.Array:
    """``text`` ``n`` times, as a string array; null when ``text`` is no UTF-8 (a saved
    file's name that is not, read under a UTF-8 locale, holds surrogates), as pyarrow's
    conversion made it."""
    try:
        data = text.encode()
    except UnicodeEncodeError:
        return pa.nulls(n, pa.string())
    _fits(len(data) * n)  # before the bytes are made
    return _fixed_strings(data * n, n, len(data))


_OFFSET_MAX = 2**31 - 1  # a string array's int32 offsets


def _fits(total: int) -> None:
    """Refuse what int32 offsets cannot hold (``from_buffers`` does not check: wrapped
    offsets would make a corrupt array, not an error)."""
    if total > _OFFSET_MAX:
        raise ValueError(f"{total:,} bytes of text in one batch: more than a string "
                         "array holds (2 GiB); read in smaller batches")


def _fixed_strings(data: bytes, n: int, width: int) -> pa.Array:
    """``n`` strings of ``width`` bytes each, laid end to end in ``data``."""
    _fits(n * width)
    offsets = np.arange(n + 1, dtype=np.int32) * np.int32(width)
    return pa.Array.from_buffers(pa.string(), n, [None, pa.py_buffer(offsets),
                                                  pa.py_buffer(data)])


def strings(values: Sequence[str | None]) -> pa.Array:
    """A few Python strings (None: null) as an Arrow string array, without pyarrow's list
    conversion (which imports pandas)."""
    encoded = [b"" if v is None else v.encode() for v in values]
    lengths = np.fromiter(map(len, encoded), np.int64, len(encoded))
    _fits(int(lengths.sum()))
    offsets = np.zeros(len(encoded) + 1, dtype=np.int32)
    np.cumsum(lengths, out=offsets[1:])
    valid = np.fromiter((v is not None for v in values), bool, len(values))
    return pa.Array.from_buffers(pa.string(), len(values), [
        _validity(valid), pa.py_buffer(offsets), pa.py_buffer(b"".join(encoded))])


def binaries(values: Sequence[Any]) -> pa.Array:
    """Bytes-like values (None: null) as a binary array (int32 offsets: under 2 GiB in
    all, as a raw batch is), without pyarrow's list conversion."""
    n = len(values)
    try:
        lengths = np.fromiter(map(len, values), np.int64, n)
        valid = None
    except TypeError:
        valid = np.fromiter((v is not None for v in values), bool, n)
        values = [b"" if v is None else v for v in values]
        lengths = np.fromiter(map(len, values), np.int64, n)
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    if offsets[-1] >= 1 << 31:
        return pa.array([None if valid is not None and not valid[i] else v
                         for i, v in enumerate(values)], pa.binary())
    return pa.Array.from_buffers(pa.binary(), n, [
        _validity(valid), pa.py_buffer(offsets.astype(np.int32)),
        pa.py_buffer(b"".join(values))])


def int32s(values: Sequence[int | None]) -> pa.Array:
    """Python ints of 32 bits (None: null) as an int32 array."""
    n = len(values)
    try:
        return _numbers(np.fromiter(values, np.int32, n), pa.int32())
    except TypeError:
        valid = np.fromiter((v is not None for v in values), bool, n)
        return _numbers(np.fromiter((0 if v is None else v for v in values), np.int32, n),
                        pa.int32(), valid)


def _binary_parts(array: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """The offsets (int64, one more than rows) and the data bytes of a (large_)binary
    array, as numpy views of its buffers."""
    bufs = array.buffers()
    large = pa.types.is_large_binary(array.type)
    offsets = np.frombuffer(bufs[1], np.int64 if large else np.int32, count=len(array) + 1,
                            offset=array.offset * (8 if large else 4)).astype(np.int64)
    data = np.frombuffer(bufs[2], np.uint8) if bufs[2] is not None and bufs[2].size else \
        np.zeros(0, np.uint8)
    return offsets, data


def _joined(values: Sequence[Any], n: int) -> pa.Array:
    """Bytes-like values (none None) as one large_binary array over their join."""
    lengths = np.fromiter(map(len, values), np.int64, n)
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    return pa.Array.from_buffers(pa.large_binary(), n, [
        None, pa.py_buffer(offsets), pa.py_buffer(b"".join(values))])


# -- fields of fixed-width records ---------------------------------------------------------

def _field(rows: np.ndarray, lo: int, hi: int) -> np.ndarray:
    """Bytes ``lo:hi`` of every row of ``rows`` (C-contiguous, rows × width) as one
    contiguous array of ``S{hi-lo}`` items (a 1-D strided copy: a third of a 2-D slice's)."""
    n, width = rows.shape
    if n == 0:
        return np.zeros(0, dtype=f"S{hi - lo}")
    view = np.ndarray((n,), dtype=f"S{hi - lo}", buffer=rows, offset=lo, strides=(width,))
    return view.copy()


def _longs(rows: np.ndarray, lo: int, big_endian: bool) -> np.ndarray:
    """The 4-byte integers at ``lo`` of every row, in native order."""
    n, width = rows.shape
    if n == 0:
        return np.zeros(0, dtype=np.int32)
    view = np.ndarray((n,), dtype=">i4" if big_endian else "<i4", buffer=rows, offset=lo,
                      strides=(width,))
    return view.astype(np.int32)


def _words(rows: np.ndarray, lo: int) -> np.ndarray:
    """The 8 bytes at ``lo`` of every row as one 64-bit number (little-endian), to compare,
    count and find at once."""
    n, width = rows.shape
    if n == 0:
        return np.zeros(0, dtype=np.uint64)
    return np.ndarray((n,), dtype="<u8", buffer=rows, offset=lo, strides=(width,)).copy()


def _text(rows: np.ndarray, lo: int, hi: int, *, left: bool = False) -> pa.Array:
    """Fixed-width ASCII fields (every caller has checked that no byte is beyond ASCII) as
    strings, stripped of blanks and NULs at the end (and the start when ``left``)."""
    n = rows.shape[0]
    text = _fixed_strings(_field(rows, lo, hi).tobytes(), n, hi - lo)
    return (pc.ascii_trim if left else pc.ascii_rtrim)(text, characters=_B)


def _hex(rows: np.ndarray, lo: int, hi: int) -> pa.Array:
    """Binary fields as upper-case hex strings (``binascii`` over the rows at once)."""
    n = rows.shape[0]
    data = binascii.hexlify(_field(rows, lo, hi).tobytes()).translate(_HEX_UPPER)
    return _fixed_strings(data, n, 2 * (hi - lo))


def _digits(rows: np.ndarray, lo: int) -> np.ndarray:
    """Are the 8 bytes at ``lo`` of every row all digits?"""
    sub = _field(rows, lo, lo + 8).view(np.uint8).reshape(-1, 8) - np.uint8(_DIGIT0)
    return sub.max(axis=1, initial=0) <= 9


def _times(rows: np.ndarray, date_at: int, time_at: int) -> tuple[pa.Array, pa.Array]:
    """PutDate + PutTime (8 bytes each, at ``date_at`` and ``time_at`` of every row) as (µs
    since the epoch, days since the epoch), the same as ``rows.put_micros``: each distinct
    date once, all-digit times at once, any other time through it."""
    n = rows.shape[0]
    micros = np.zeros(n, dtype=np.int64)
    days = np.zeros(n, dtype=np.int32)
    valid = np.zeros(n, dtype=bool)
    if n:
        dates = _field(rows, date_at, date_at + 8)
        unique, inverse = np.unique(dates.view(np.uint64), return_inverse=True)
        known = [_days(u.tobytes().decode("latin-1")) for u in unique]
        day = np.array([-1 if k is None else k for k in known], dtype=np.int64)[
            inverse.reshape(-1)]
        dated = day >= 0
        plain = dated & _digits(rows, time_at)
        t = _field(rows, time_at, time_at + 8).view(np.uint8).reshape(-1, 8).astype(
            np.int64) - _DIGIT0
        h, m, s = t[:, 0] * 10 + t[:, 1], t[:, 2] * 10 + t[:, 3], t[:, 4] * 10 + t[:, 5]
        hundredths = t[:, 6] * 10 + t[:, 7]
        good = plain & (h <= 23) & (m <= 59) & (s <= 59)
        micros[good] = (day * _US_PER_DAY + ((h * 60 + m) * 60 + s) * 1_000_000
                        + hundredths * 10_000)[good]
        days[good] = day[good]
        valid[good] = True
        for i in np.flatnonzero(dated & ~plain).tolist():  # a time with blanks: row by row
            us, d = put_micros(rows[i, date_at:date_at + 8].tobytes().decode("latin-1"),
                               rows[i, time_at:time_at + 8].tobytes().decode("latin-1"))
            if us is not None and d is not None:
                micros[i], days[i], valid[i] = us, d, True
    return _numbers(micros, _TIMESTAMP, valid), _numbers(days, pa.date32(), valid)


def _most_common(values: np.ndarray) -> tuple[Any, int]:
    """The most common of ``values`` (the first seen among equals) and its count."""
    _, first, counts = np.unique(values, return_index=True, return_counts=True)
    top = counts == counts.max()
    at = int(first[top].min())
    return values[at], int(counts.max())


def _formats_in(words: np.ndarray, wanted) -> np.ndarray:
    """Which 8-byte Format fields (``words``) satisfy ``wanted(text)``: once per value."""
    if not len(words):
        return np.zeros(0, dtype=bool)
    unique, inverse = np.unique(words, return_inverse=True)
    hits = np.array([bool(wanted(int(u).to_bytes(8, "little").strip(b" \x00")
                                 .decode("ascii", "replace"))) for u in unique], dtype=bool)
    return hits[inverse.reshape(-1)]


def _indices(at: np.ndarray) -> pa.Array:
    return _numbers(at.astype(np.int64), pa.int64())


def _records(array: pa.Array, at: np.ndarray, width: int) -> np.ndarray:
    """Rows ``at`` (each of ``width`` bytes) of a binary array as a rows × width array: a
    view when they lie end to end, else a copy (Arrow's take)."""
    k = len(at)
    if k == 0:
        return np.zeros((0, width), dtype=np.uint8)
    offsets, data = _binary_parts(array)
    starts = offsets[at]
    first = int(starts[0])
    if int(starts[-1]) - first == width * (k - 1):  # each is width long: end to end
        return data[first:first + width * k].reshape(k, width)
    offsets, data = _binary_parts(array.take(_indices(at)))
    return data[offsets[0]:offsets[0] + width * k].reshape(k, width)


def _prefixes(array: pa.Array, at: np.ndarray, width: int) -> np.ndarray:
    """The first ``width`` bytes of rows ``at`` (each at least that long) as rows × width."""
    k = len(at)
    if k == 0:
        return np.zeros((0, width), dtype=np.uint8)
    part = array if k == len(array) else array.take(_indices(at))
    offsets, data = _binary_parts(pc.binary_slice(part, 0, width))
    return data[offsets[0]:offsets[0] + width * k].reshape(k, width)


# -- the batch --------------------------------------------------------------------------

class Decoded:
    """What ``decode_packed`` found: ``mask`` (the plain rows) and, when any, their
    columns by name (``rows.ROW_COLUMNS`` but ``position``, in the rows' order) and
    ``payloads()`` (their payloads)."""

    __slots__ = ("_bodies", "_dead", "_rows", "columns", "mask")

    def __init__(self, mask: np.ndarray, columns: dict[str, Any] | None = None,
                 bodies: pa.Array | None = None, rows: np.ndarray | None = None,
                 dead: np.ndarray | None = None) -> None:
        self.mask = mask
        self.columns = columns
        self._bodies, self._rows, self._dead = bodies, rows, dead

    def payloads(self) -> list[bytes]:
        """The plain rows' payloads: the body after its MQDLH (a dead letter), else all."""
        if self._bodies is None or self._rows is None or self._dead is None:
            return []
        bodies = self._bodies
        if len(self._rows) != len(bodies):
            bodies = bodies.take(_indices(self._rows))
        return [b[MQDLH_LENGTH:] if d else b
                for b, d in zip(bodies.to_pylist(), self._dead.tolist(), strict=True)]


def decode_packed(blobs: Sequence[bytes | None], bodies: Sequence[Any], *,
                  backouts: np.ndarray | None = None, expiries: np.ndarray | None = None,
                  expiry_set: np.ndarray | None = None) -> Decoded:
    """The plain rows of a batch given as packed MDs (CCSID 819; None: not packed) and
    bodies, and their columns. ``backouts`` and ``expiries`` (where ``expiry_set``) are
    the BackoutCount and Expiry kept apart from a stored MD; without them both are read
    from the MD (``BrowsesPacked`` patches them in)."""
    n = len(blobs)
    if n == 0:
        return Decoded(np.zeros(0, dtype=bool))
    try:  # a packed read has no None: at C speed
        md = _joined(blobs, n)
        present = None
    except TypeError:
        present = np.fromiter((b is not None for b in blobs), bool, n)
        md = _joined([b"" if b is None else b for b in blobs], n)
    return _decode(md, _joined(bodies, n), present, backouts, expiries, expiry_set)


def decode_arrow(md: pa.Array, bodies: pa.Array, backouts: pa.Array | None = None,
                 expiries: pa.Array | None = None) -> Decoded:
    """``decode_packed`` of a raw batch's columns (``raw.RAW_SCHEMA``: ``md`` null where
    the message travels pickled; ``expiry`` null: the MD's own)."""
    n = len(md)
    present = None
    if md.null_count:
        present = np.asarray(md.is_valid().to_numpy(zero_copy_only=False), dtype=bool)
    backout_values = None if backouts is None else np.asarray(
        backouts.fill_null(0).to_numpy(zero_copy_only=False), dtype=np.int32)
    expiry_values = expiry_set = None
    if expiries is not None and expiries.null_count < n:
        expiry_set = np.asarray(expiries.is_valid().to_numpy(zero_copy_only=False), dtype=bool)
        expiry_values = np.asarray(expiries.fill_null(0).to_numpy(zero_copy_only=False),
                                    dtype=np.int32)
    return _decode(md, bodies, present, backout_values, expiry_values, expiry_set)


def _decode(md: pa.Array, bodies: pa.Array, present: np.ndarray | None,
            backouts: np.ndarray | None, expiries: np.ndarray | None,
            expiry_set: np.ndarray | None) -> Decoded:
    n = len(md)
    mask = np.zeros(n, dtype=bool)
    md_off, _ = _binary_parts(md)
    lengths = np.diff(md_off)
    if present is not None:
        lengths = np.where(present, lengths, -1)
    # the most common (length, first 8 bytes) of usable MDs; ties: the one seen first
    best: tuple[int, int, int, int] | None = None  # (-count, first row, width, head)
    found: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
    for width in (324, 364):
        at = np.flatnonzero(lengths == width)
        if not len(at):
            continue
        records = _records(md, at, width)
        heads = _words(records, 0)
        usable = np.isin(heads, np.array(list(_HEADS[width]), dtype=np.uint64))
        found[width] = (at, records, heads)
        if usable.any():
            head, count = _most_common(heads[usable])
            first = int(at[np.flatnonzero(usable & (heads == head))[0]])
            if best is None or (-count, first) < best[:2]:
                best = (-count, first, width, int(head))
    if best is None:
        return Decoded(mask)
    _, _, width, head = best
    at, records, heads = found[width]
    chosen = heads == np.uint64(head)
    picked = at[chosen]
    rows = records if chosen.all() else records[chosen]
    big_endian, version = _HEADS[width][head]
    ok = (rows & _MD_TEXT[width]).max(axis=1, initial=0) == 0
    formats = _words(rows, _SPAN["format"][0])
    dead = _formats_in(formats, lambda f: f == "MQDEAD")
    ok &= ~_formats_in(formats, lambda f: f != "MQDEAD" and f in HEADER_FORMATS)
    body_off, body_data = _binary_parts(bodies)
    body_len = np.diff(body_off)
    dead_at = np.flatnonzero(dead & ok)  # within picked
    dlh = np.zeros((0, MQDLH_LENGTH), dtype=np.uint8)  # the MQDLHs of the plain dead rows
    dlh_big = False
    if len(dead_at):
        long_enough = body_len[picked[dead_at]] >= MQDLH_LENGTH
        encodings = _longs(rows[dead_at], _SPAN["encoding"][0], big_endian) & 0x0F
        ccsids = _longs(rows[dead_at], _SPAN["ccsid"][0], big_endian)
        good = long_enough & ((encodings == 1) | (encodings == 2))
        if good.any():
            good &= encodings == _most_common(encodings[good])[0]
        unique, inverse = np.unique(ccsids, return_inverse=True)
        ascii_ok = []
        for ccsid in unique.tolist():
            codec = struc_codec(b"DLH ", "DLH ", ccsid if ccsid > 0 else DEFAULT_CHAR_CCSID)
            ascii_ok.append(codec is not None and _ascii_codec(codec))
        good &= np.array(ascii_ok, dtype=bool)[inverse.reshape(-1)]
        candidates = np.flatnonzero(good)
        if len(candidates):
            heads_dlh = _prefixes(bodies, picked[dead_at[candidates]], MQDLH_LENGTH)
            big = encodings[candidates] == 1
            fine = _longs(heads_dlh, 0, False).view(np.uint32) == _DLH_EYE
            fine &= (heads_dlh & _DLH_TEXT).max(axis=1, initial=0) == 0
            fine &= np.where(big, _longs(heads_dlh, 4, True), _longs(heads_dlh, 4, False)) == 1
            fine &= ~_formats_in(_words(heads_dlh, _DLH_FORMAT[0]),
                                 lambda f: f in HEADER_FORMATS)
            good[candidates] = fine
            dlh = heads_dlh if fine.all() else heads_dlh[fine]
            dlh_big = bool(big[0])  # one byte order for all (the most common's)
        ok[dead_at] = good
    mask[picked[ok]] = True
    if not ok.any():
        return Decoded(mask)
    if not ok.all():
        rows, dead = rows[ok], dead[ok]
    final = picked[ok]  # the plain rows; the dead among them are dlh's rows, in order
    k = len(final)
    out = _md_columns(rows, k, big_endian, version, backouts, expiries, expiry_set, final)
    out.update(_dlh_columns(dlh, dead, k, dlh_big))
    out["xqh_remote_q"] = out["xqh_remote_qmgr"] = pa.nulls(k, pa.string())
    out["properties"] = pa.MapArray.from_arrays(
        _numbers(np.zeros(k + 1, dtype=np.int32), pa.int32()), _EMPTY, _EMPTY)
    lengths_k = body_len[final]
    out["length"] = _numbers(lengths_k.astype(np.int64), pa.int64())
    out["payload_length"] = _numbers((lengths_k - MQDLH_LENGTH * dead).astype(np.int64),
                                     pa.int64())
    out["payload_sha256"] = _sha256(body_off, body_data, final, dead)
    return Decoded(mask, out, bodies, final, dead)


_EMPTY = pa.Array.from_buffers(pa.string(), 0, [None, pa.py_buffer(np.zeros(1, np.int32)),
                                                pa.py_buffer(b"")])


def _md_columns(rows: np.ndarray, k: int, big_endian: bool, version: int,
                backouts: np.ndarray | None, expiries: np.ndarray | None,
                expiry_set: np.ndarray | None, final: np.ndarray) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for attr in ("msg_id", "correl_id"):
        out[attr] = _hex(rows, *_SPAN[attr])
    out["group_id"] = (_hex(rows, *_SPAN["group_id"]) if version == 2
                       else _fixed_strings(b"0" * (48 * k), k, 48))
    out["put_time"], out["put_date"] = _times(rows, _SPAN["put_date"][0],
                                              _SPAN["put_time"][0])
    out["put_appl_name"] = _text(rows, *_SPAN["put_appl_name"])
    out["user_id"] = _text(rows, *_SPAN["user_identifier"])
    out["appl_identity_data"] = _text(rows, *_SPAN["appl_identity_data"])
    for attr in _NUMBERS:
        out[attr] = _numbers(_longs(rows, _SPAN[attr][0], big_endian), pa.int32())
    backout = _longs(rows, _SPAN["backout_count"][0], big_endian) if backouts is None \
        else backouts[final]
    out["backout_count"] = _numbers(np.ascontiguousarray(backout, dtype=np.int32), pa.int32())
    expiry = _longs(rows, _SPAN["expiry"][0], big_endian)
    if expiries is not None and expiry_set is not None:
        expiry = np.where(expiry_set[final], expiries[final], expiry).astype(np.int32)
    out["expiry"] = _numbers(expiry, pa.int32())
    out["format"] = _text(rows, *_SPAN["format"], left=True)
    out["reply_to_q"] = _text(rows, *_SPAN["reply_to_q"])
    out["reply_to_qmgr"] = _text(rows, *_SPAN["reply_to_qmgr"])
    return out


_DLH_TYPES = (("dlh_reason", pa.int32()), ("dlh_reason_name", pa.string()),
              ("dlh_dest_q", pa.string()), ("dlh_dest_qmgr", pa.string()),
              ("dlh_format", pa.string()), ("dlh_put_appl_name", pa.string()),
              ("dlh_put_time", _TIMESTAMP))


def _dlh_columns(dlh: np.ndarray, dead: np.ndarray, k: int, big_endian: bool
                 ) -> dict[str, pa.Array]:
    """The ``dlh_*`` columns of ``k`` rows: those where ``dead`` from ``dlh``'s rows (in
    order), null elsewhere."""
    if not dead.any():
        return {name: pa.nulls(k, kind) for name, kind in _DLH_TYPES}
    reasons = _longs(dlh, 8, big_endian)
    unique_reasons, reason_at = np.unique(reasons, return_inverse=True)
    names = strings([known_reason_name(r) for r in unique_reasons.tolist()])
    put_time, _ = _times(dlh, _DLH_DATE[0], _DLH_TIME[0])
    got = {
        "dlh_reason": _numbers(reasons, pa.int32()),
        "dlh_reason_name": names.take(_numbers(reason_at.reshape(-1).astype(np.int64),
                                               pa.int64())),
        "dlh_dest_q": _text(dlh, *_DLH_DEST_Q),
        "dlh_dest_qmgr": _text(dlh, *_DLH_DEST_QMGR),
        "dlh_format": _text(dlh, *_DLH_FORMAT, left=True),
        "dlh_put_appl_name": _text(dlh, *_DLH_APPL),
        "dlh_put_time": put_time,
    }
    if dead.all():
        return got
    index = np.full(k, -1, dtype=np.int64)
    index[dead] = np.arange(len(dlh))
    take = _numbers(np.maximum(index, 0), pa.int64(), index >= 0)
    return {name: values.take(take) for name, values in got.items()}


def _sha256(offsets: np.ndarray, data: np.ndarray, rows: np.ndarray, dead: np.ndarray
            ) -> pa.Array:
    """Hex SHA-256 of each of ``rows``' payload (its body after the MQDLH of a dead
    letter), the bodies given as a binary array's (``offsets``, ``data``)."""
    raw = np.ascontiguousarray(data).data  # a memoryview: slices hashed where they lie
    starts = (offsets[rows] + MQDLH_LENGTH * dead).tolist()
    ends = offsets[rows + 1].tolist()
    sha = hashlib.sha256
    digests = b"".join([sha(raw[a:b]).digest() for a, b in zip(starts, ends, strict=True)])
    return _fixed_strings(binascii.hexlify(digests), len(rows), 64)


# -- the parts, as the row builders ask for them ------------------------------------------

_TEXT = tuple(attr for attr, _, kind, _ in LAYOUT if kind == "c")


def packed_as_stored(message: Message) -> tuple[bytes, int, int | None] | None:
    """What a stored message holds (``StoredMessage.stored``) for any message: its MD as
    the embedded queue manager packs it (CCSID 819), its BackoutCount, and its Expiry kept
    apart (None: the MD's own). A message read from real MQ or a saved file is packed here;
    None when its MD's text is not latin-1 (packing would lose it) or does not pack."""
    stored: Any = getattr(message, "stored", None)
    if stored is not None:
        return stored
    md = message.md
    try:
        "".join(getattr(md, attr) for attr in _TEXT).encode("latin-1")
        return pack819(md), md.backout_count, None
    except (UnicodeEncodeError, struct.error, TypeError, ValueError, AttributeError):
        return None


def decode_messages(messages: Sequence[Message]) -> Decoded:
    """``decode_packed`` of messages: a stored message's packed MD as stored, any other's
    packed here (:func:`packed_as_stored`: a message of real MQ or of a saved file is
    decoded at once too when plain); one whose MD does not pack is not plain."""
    stored = [packed_as_stored(m) for m in messages]
    n = len(messages)
    blobs = [None if s is None else s[0] for s in stored]
    backouts = np.fromiter((0 if s is None else s[1] for s in stored), np.int32, n)
    expiry_set = np.fromiter((s is not None and s[2] is not None for s in stored), bool, n)
    expiries = np.fromiter((s[2] if s is not None and s[2] is not None else 0
                            for s in stored), np.int32, n)
    bodies = [m.body if isinstance(m.body, bytes) else bytes(m.body) for m in messages]
    return decode_packed(blobs, bodies, backouts=backouts, expiries=expiries,
                         expiry_set=expiry_set if expiry_set.any() else None)


__all__ = ["Decoded", "binaries", "decode_arrow", "decode_messages", "decode_packed",
           "from_numpy", "int32s", "packed_as_stored", "repeated", "strings"]
