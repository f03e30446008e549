"""A batch of plain messages into the snapshot's columns at once (numpy), not row by row.

Most of an export's Python time went into taking each message's fields apart one by one
(``rows.row_values``). Messages of the embedded queue manager still hold their packed MD
(``StoredMessage.stored``), and a dead-letter queue's bodies start with an MQDLH, so a
batch of them is fixed-width records: their fields are columns of a 2-D byte array,
sliced, stripped and converted for all rows in a few numpy operations.

``columns(messages)`` gives the columns of ``rows.ROW_COLUMNS`` (but ``position``) and
the payloads, or None when a message of the batch is not of the plain kind — every packed
MD of one length and byte order with ASCII text, and each body either not a header format
(no header) or one MQDLH then data as ``fields._dlh_fast`` takes it. ``plain(messages)``
says which messages of a batch are of that kind (those of the most common MD length and
byte order, the dead letters of the most common byte order), so a batch where 5 % carry an
RFH2 takes the other 95 % at once and only those 5 % row by row (``rows.BatchBuilder``).
The answer is the same either way (tests compare both on the same batches, odd ones
included).
"""

from __future__ import annotations

import binascii
import hashlib
from collections.abc import Sequence
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from mqconsole.mq.chain import DEFAULT_CHAR_CCSID, HEADER_FORMATS
from mqconsole.mq.dlh import MQDLH_LENGTH, struc_codec
from mqconsole.mq.message import Message

from .fields import _SPAN, _VERSION_WORDS
from .values import _days, known_reason_name, put_micros

_B = " \x00"
_DIGIT0, _DIGIT9 = ord("0"), ord("9")
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


def _records(blobs: Sequence[bytes], width: int) -> np.ndarray:
    return np.frombuffer(b"".join(blobs), dtype=np.uint8).reshape(len(blobs), width)


def _text(sub: np.ndarray, *, left: bool = False) -> pa.Array:
    """Fixed-width ASCII fields (rows of ``sub``; every caller has checked that no byte is
    beyond ASCII) as strings, stripped of blanks and NULs at the end (and the start when
    ``left``): Arrow's trim over the rows as binary, about a third of numpy's masks."""
    n, width = sub.shape
    fixed = pa.FixedSizeBinaryArray.from_buffers(
        pa.binary(width), n, [None, pa.py_buffer(np.ascontiguousarray(sub))])
    text = fixed.cast(pa.binary()).cast(pa.string())
    return (pc.ascii_trim if left else pc.ascii_rtrim)(text, characters=_B)


def _hex(sub: np.ndarray) -> pa.Array:
    """Binary fields as upper-case hex strings (``binascii`` over the rows at once: a
    third of numpy's table look-up)."""
    n, width = sub.shape
    data = binascii.hexlify(np.ascontiguousarray(sub).tobytes()).upper()
    offsets = np.arange(0, 2 * width * (n + 1), 2 * width, dtype=np.int32)
    return pa.StringArray.from_buffers(n, pa.py_buffer(offsets), pa.py_buffer(data))


def _longs(sub: np.ndarray, big_endian: bool) -> np.ndarray:
    raw = np.ascontiguousarray(sub).view(">i4" if big_endian else "<i4").reshape(-1)
    return raw.astype(np.int32, copy=False)  # native order (Arrow takes no other)


def _digits(sub: np.ndarray) -> np.ndarray:
    return np.asarray(((sub >= _DIGIT0) & (sub <= _DIGIT9)).all(axis=1))


def _times(dates: np.ndarray, times: np.ndarray) -> tuple[pa.Array, pa.Array]:
    """PutDate + PutTime (8 bytes each) as (µs since the epoch, days since the epoch), the
    same as ``rows.put_micros``: all-digit fields here, any other through it."""
    n = len(dates)
    micros = np.zeros(n, dtype=np.int64)
    days = np.zeros(n, dtype=np.int32)
    valid = np.zeros(n, dtype=bool)
    plain = _digits(dates) & _digits(times)
    if plain.any():
        unique, inverse = np.unique(np.ascontiguousarray(dates[plain]).view("S8").reshape(-1),
                                    return_inverse=True)
        known = [_days(d.decode("ascii")) for d in unique]
        day = np.array([-1 if k is None else k for k in known], dtype=np.int64)[inverse]
        t = times[plain].astype(np.int64) - _DIGIT0
        h, m, s = t[:, 0] * 10 + t[:, 1], t[:, 2] * 10 + t[:, 3], t[:, 4] * 10 + t[:, 5]
        hundredths = t[:, 6] * 10 + t[:, 7]
        good = (day >= 0) & (h <= 23) & (m <= 59) & (s <= 59)
        micros[plain] = (day * _US_PER_DAY + ((h * 60 + m) * 60 + s) * 1_000_000
                         + hundredths * 10_000)
        days[plain] = day
        valid[plain] = good
    for i in np.flatnonzero(~plain):
        us, d = put_micros(dates[i].tobytes().decode("latin-1"),
                           times[i].tobytes().decode("latin-1"))
        if us is not None and d is not None:
            micros[i], days[i], valid[i] = us, d, True
    return (pa.array(micros, pa.timestamp("us", tz="UTC"), mask=~valid),
            pa.array(days, pa.date32(), mask=~valid))


def _spread(values: pa.Array, where: np.ndarray, n: int) -> pa.Array:
    """``values`` (one per True of ``where``) at those rows of ``n``; null elsewhere."""
    if len(values) == n:
        return values
    index = np.full(n, -1, dtype=np.int64)
    index[where] = np.arange(len(values))
    return values.take(pa.array(index, mask=index < 0))


def _most_common(values: np.ndarray) -> tuple[Any, int]:
    """The most common of ``values`` (the first seen among equals) and its count."""
    _, first, counts = np.unique(values, return_index=True, return_counts=True)
    top = counts == counts.max()
    at = int(first[top].min())
    return values[at], int(counts.max())


def _words(sub: np.ndarray) -> np.ndarray:
    """Each row of 8 bytes as one 64-bit number (to compare, count and find at once)."""
    return np.ascontiguousarray(sub).view(np.uint64).reshape(-1)


def _formats_in(words: np.ndarray, wanted) -> np.ndarray:
    """Which 8-byte Format fields (``words``) satisfy ``wanted(text)``: once per value."""
    unique, inverse = np.unique(words, return_inverse=True)
    hits = np.array([bool(wanted(u.tobytes().strip(b" \x00").decode("ascii", "replace")))
                     for u in unique], dtype=bool)
    return hits[inverse.reshape(-1)]


_MD_EYE = np.frombuffer(b"MD  ", np.uint8)
_DLH_EYE = np.frombuffer(b"DLH ", np.uint8)


def plain(messages: Sequence[Message]) -> np.ndarray:
    """Which messages ``columns`` takes together: a boolean per message (see the module's
    text); ``columns`` of those alone is never None. Decided with numpy on the batch's
    fields (a Format decoded once per distinct value), not message by message."""
    stored = [getattr(m, "stored", None) for m in messages]
    return plain_packed([None if s is None else s[0] for s in stored],
                        [m.body for m in messages])


def plain_packed(blobs: Sequence[bytes | None], bodies: Sequence[Any]) -> np.ndarray:
    """``plain`` of rows given as their packed MDs (CCSID 819; None: a message whose MD is
    not packed) and bodies: what ``columns_packed`` takes together."""
    n = len(blobs)
    mask = np.zeros(n, dtype=bool)
    if n == 0:
        return mask
    try:  # a packed read has no None: its lengths at C speed
        lengths = np.fromiter(map(len, blobs), np.int64, n)  # type: ignore[arg-type]
    except TypeError:
        lengths = np.fromiter(map(len, (b"" if b is None else b for b in blobs)), np.int64, n)
    best: tuple[int, int, int, Any] | None = None  # (-count, first index, width, head)
    heads_of: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
    for width in (324, 364):
        at = np.flatnonzero(lengths == width)
        if not len(at):
            continue
        md = _records([blobs[i] for i in at.tolist()], width)  # type: ignore[misc]
        usable = (md[:, :4] == _MD_EYE).all(axis=1)
        version_ok = np.zeros(len(at), dtype=bool)
        for word, (_big, version) in _VERSION_WORDS.items():
            if (width == 364) == (version == 2):
                version_ok |= (md[:, 4:8] == np.frombuffer(word, np.uint8)).all(axis=1)
        usable &= version_ok
        heads = _words(md[:, :8])
        heads_of[width] = (at, md, heads)
        if usable.any():
            head, count = _most_common(heads[usable])
            first = int(at[np.flatnonzero(usable & (heads == head))[0]])
            if best is None or (-count, first) < best[:2]:
                best = (-count, first, width, head)
    if best is None:
        return mask
    _, _, width, head = best
    at, md_all, heads = heads_of[width]
    chosen = heads == head
    picked = at[chosen]
    md = md_all[chosen]
    big_endian, _version = _VERSION_WORDS[md[0, 4:8].tobytes()]
    ok = np.ones(len(picked), dtype=bool)
    for attr in (*_TEXT_RSTRIP, "format", "put_date", "put_time"):
        lo, hi = _SPAN[attr]
        ok &= (md[:, lo:hi] < 0x80).all(axis=1)
    formats = _words(md[:, slice(*_SPAN["format"])])
    dead = _formats_in(formats, lambda f: f == "MQDEAD")
    ok &= _formats_in(formats, lambda f: f == "MQDEAD" or f not in HEADER_FORMATS)
    at = np.flatnonzero(dead & ok)
    if len(at):
        dead_bodies = [bodies[i] for i in picked[at].tolist()]
        long_enough = np.fromiter(map(len, dead_bodies), np.int64, len(at)) >= MQDLH_LENGTH
        encodings = _longs(md[at][:, slice(*_SPAN["encoding"])], big_endian) & 0x0F
        ccsids = _longs(md[at][:, slice(*_SPAN["ccsid"])], big_endian)
        good = long_enough & ((encodings == 1) | (encodings == 2))
        if good.any():
            good &= encodings == _most_common(encodings[good])[0]
        unique, inverse = np.unique(ccsids, return_inverse=True)
        ascii_ok = []
        for ccsid in unique.tolist():
            codec = struc_codec(b"DLH ", "DLH ", ccsid if ccsid > 0 else DEFAULT_CHAR_CCSID)
            ascii_ok.append(codec is not None and _ascii_codec(codec))
        good &= np.array(ascii_ok, dtype=bool)[inverse.reshape(-1)]
        long_at = np.flatnonzero(long_enough)
        if len(long_at):
            dlh = _records([dead_bodies[i][:MQDLH_LENGTH] for i in long_at.tolist()],
                           MQDLH_LENGTH)
            fine = (dlh[:, :4] == _DLH_EYE).all(axis=1)
            fine &= (dlh[:, 12:108] < 0x80).all(axis=1) & (dlh[:, 116:172] < 0x80).all(axis=1)
            big = encodings[long_at] == 1
            words = np.where(big, _longs(dlh[:, 4:8], True), _longs(dlh[:, 4:8], False))
            fine &= words == 1  # the MQDLH's Version
            fine &= ~_formats_in(_words(dlh[:, slice(*_DLH_FORMAT)]),
                                 lambda f: f in HEADER_FORMATS)
            good[long_at] &= fine
        ok[at] = good
    mask[picked] = ok
    return mask


def columns(messages: Sequence[Message]) -> tuple[dict[str, Any], list[bytes]] | None:
    """The batch's columns by name (``rows.ROW_COLUMNS`` but ``position``) and payloads;
    None when a message is not of the plain kind (see the module's text)."""
    if not messages:
        return None
    stored = [getattr(m, "stored", None) for m in messages]
    if any(s is None for s in stored):
        return None
    return columns_packed(
        [s[0] for s in stored],  # type: ignore[index]
        [m.body if isinstance(m.body, bytes) else bytes(m.body) for m in messages],
        backouts=[s[1] for s in stored],  # type: ignore[index]
        expiries=[s[2] for s in stored])  # type: ignore[index]


def columns_packed(blobs: Sequence[bytes], bodies: Sequence[bytes], *,
                   backouts: Sequence[int] | None = None,
                   expiries: Sequence[int | None] | None = None
                   ) -> tuple[dict[str, Any], list[bytes]] | None:
    """``columns`` of rows given as their packed MDs and bodies (bytes). ``backouts`` and
    ``expiries`` (None: an Expiry as packed) are the BackoutCount and Expiry kept apart
    from a stored MD; without them both are read from the MD (``BrowsesPacked`` patches
    them in)."""
    n = len(blobs)
    if n == 0:
        return None
    width = len(blobs[0])
    if width not in (324, 364) or (np.fromiter(map(len, blobs), np.int64, n) != width).any():
        return None
    md = _records(blobs, width)
    head = md[0, :8].tobytes()
    order = _VERSION_WORDS.get(head[4:8])
    if head[:4] != b"MD  " or order is None or not (md[:, :8] == md[0, :8]).all():
        return None
    big_endian, version = order
    if (width == 364) != (version == 2):
        return None
    text_spans = [_SPAN[a] for a in (*_TEXT_RSTRIP, "format", "put_date", "put_time")]
    if any((md[:, lo:hi] >= 0x80).any() for lo, hi in text_spans):
        return None  # latin-1 beyond ASCII: row by row

    def span(attr: str) -> np.ndarray:
        lo, hi = _SPAN[attr]
        return md[:, lo:hi]

    out: dict[str, Any] = {}
    for attr in ("msg_id", "correl_id"):
        out[attr] = _hex(span(attr))
    out["group_id"] = (_hex(span("group_id")) if version == 2
                       else pa.array(["0" * 48] * n, pa.string()))
    out["put_time"], out["put_date"] = _times(span("put_date"), span("put_time"))
    out["put_appl_name"] = _text(span("put_appl_name"))
    out["user_id"] = _text(span("user_identifier"))
    out["appl_identity_data"] = _text(span("appl_identity_data"))
    numbers = {a: _longs(span(a), big_endian) for a in _NUMBERS}
    for attr in _NUMBERS:
        out[attr] = pa.array(numbers[attr], pa.int32())
    out["backout_count"] = pa.array(
        _longs(span("backout_count"), big_endian) if backouts is None else backouts, pa.int32())
    expiry = _longs(span("expiry"), big_endian)
    if expiries is not None and any(e is not None for e in expiries):
        expiry = expiry.copy()
        for i, e in enumerate(expiries):
            if e is not None:
                expiry[i] = e
    out["expiry"] = pa.array(expiry, pa.int32())
    formats = _text(span("format"), left=True)
    out["format"] = formats
    out["reply_to_q"] = _text(span("reply_to_q"))
    out["reply_to_qmgr"] = _text(span("reply_to_qmgr"))
    dead = _dead_letters(formats, numbers, bodies, big_endian)
    if dead is None:
        return None
    out.update(dead[0])
    payloads = dead[1]
    out["xqh_remote_q"] = out["xqh_remote_qmgr"] = pa.nulls(n, pa.string())
    out["properties"] = pa.MapArray.from_arrays(
        pa.array(np.zeros(n + 1, dtype=np.int32)), pa.array([], pa.string()),
        pa.array([], pa.string()))
    out["length"] = pa.array(np.fromiter(map(len, bodies), np.int64, n))
    out["payload_length"] = pa.array(np.fromiter(map(len, payloads), np.int64, n))
    sha = hashlib.sha256
    out["payload_sha256"] = pa.array([sha(p).hexdigest() for p in payloads], pa.string())
    return out, payloads


def _dead_letters(formats: pa.Array, numbers: dict[str, np.ndarray], bodies: Sequence[bytes],
                  md_big_endian: bool) -> tuple[dict[str, pa.Array], list[bytes]] | None:
    """The ``dlh_*`` columns and the payloads: rows whose Format is MQDEAD carry one MQDLH
    then data; rows of a format that is no header carry none; None for anything else."""
    n = len(bodies)
    kinds = {f: f == "MQDEAD" for f in pc.unique(formats).to_pylist()}
    if any(f in HEADER_FORMATS and not dead for f, dead in kinds.items()):
        return None  # another header first: the general reader, row by row
    dead = pc.equal(formats, "MQDEAD").to_numpy(zero_copy_only=False).astype(bool)
    rows = np.flatnonzero(dead)
    out = {name: pa.nulls(n, kind) for name, kind in (
        ("dlh_reason", pa.int32()), ("dlh_reason_name", pa.string()),
        ("dlh_dest_q", pa.string()), ("dlh_dest_qmgr", pa.string()),
        ("dlh_format", pa.string()), ("dlh_put_appl_name", pa.string()),
        ("dlh_put_time", pa.timestamp("us", tz="UTC")))}
    if len(rows) == 0:
        return out, list(bodies)
    heads = [bodies[i] for i in rows.tolist()]
    if any(len(b) < MQDLH_LENGTH for b in heads):
        return None
    encodings = numbers["encoding"][rows] & 0x0F
    if not ((encodings == 1).all() or (encodings == 2).all()):
        return None
    big_endian = bool(encodings[0] == 1)
    dlh = _records([b[:MQDLH_LENGTH] for b in heads], MQDLH_LENGTH)
    if not (dlh[:, :4] == np.frombuffer(b"DLH ", np.uint8)).all():
        return None
    for ccsid in set(numbers["ccsid"][rows].tolist()):
        codec = struc_codec(b"DLH ", "DLH ", ccsid if ccsid > 0 else DEFAULT_CHAR_CCSID)
        if codec is None or not _ascii_codec(codec):
            return None
    text = np.concatenate([dlh[:, 12:108], dlh[:, 116:172]], axis=1)
    if (text >= 0x80).any():
        return None
    version = _longs(dlh[:, 4:8], big_endian)
    if (version != 1).any():
        return None
    formats_after = _text(dlh[:, slice(*_DLH_FORMAT)], left=True)
    if any(f in HEADER_FORMATS for f in pc.unique(formats_after).to_pylist()):
        return None  # a header after the MQDLH: the general reader
    reasons = _longs(dlh[:, 8:12], big_endian)
    unique_reasons, reason_at = np.unique(reasons, return_inverse=True)
    names = pa.array([known_reason_name(r) for r in unique_reasons.tolist()], pa.string())
    put_time, _ = _times(dlh[:, slice(*_DLH_DATE)], dlh[:, slice(*_DLH_TIME)])
    got = {
        "dlh_reason": pa.array(reasons, pa.int32()),
        "dlh_reason_name": names.take(pa.array(reason_at.reshape(-1))),
        "dlh_dest_q": _text(dlh[:, slice(*_DLH_DEST_Q)]),
        "dlh_dest_qmgr": _text(dlh[:, slice(*_DLH_DEST_QMGR)]),
        "dlh_format": formats_after,
        "dlh_put_appl_name": _text(dlh[:, slice(*_DLH_APPL)]),
        "dlh_put_time": put_time,
    }
    for name, values in got.items():
        out[name] = _spread(values, dead, n)
    payloads = list(bodies)
    for i in rows.tolist():
        payloads[i] = bodies[i][MQDLH_LENGTH:]
    return out, payloads


__all__ = ["columns", "columns_packed", "plain", "plain_packed"]
