"""Fast MQMD paths for the descriptor as the embedded queue manager stores it.

The queue manager stores every MD packed with CCSID 819 (latin-1: one byte per character,
lossless). Packing, unpacking and copying an MQMD through ``mqconsole.mq.md`` walks the
29 fields one by one (``getattr``/``setattr`` and padding in ``__post_init__``), which is
most of the cost of a put or a browse. The functions here are generated once from the
same ``LAYOUT`` and give exactly what ``MQMD.pack(ccsid=819)``, ``MQMD.unpack(data,
ccsid=819)`` and ``MQMD.copy()`` give (tests/backends/embedded/test_embedded_mdfast.py
compares them on random descriptors); anything unusual goes the slow way.
"""

from __future__ import annotations

import dataclasses
import struct
from collections.abc import Callable

from mqconsole.mq.md import LAYOUT, MQMD, MQMD_V1_LENGTH, MQMD_V2_LENGTH, OFFSETS, V1_FIELDS

_VERSION = OFFSETS["version"]
_PERSISTENCE = OFFSETS["persistence"]

_NAMES = [attr for attr, _, _, _ in LAYOUT]
_DEFAULTS = {f.name: f.default for f in dataclasses.fields(MQMD)}


def _struct(big_endian: bool, version: int, *, text: bool = True) -> struct.Struct:
    """The MD's layout; ``text=False`` skips the MQCHAR fields (read from the decoded
    text instead)."""
    parts = ["i" if kind == "l" else f"{n}x" if kind == "c" and not text else f"{n}s"
             for i, (_, _, kind, n) in enumerate(LAYOUT) if version == 2 or i < V1_FIELDS]
    return struct.Struct((">" if big_endian else "<") + "".join(parts))


def _generate() -> dict[str, Callable]:
    ns: dict[str, object] = {
        "MQMD": MQMD, "new": object.__new__, "slow_unpack": MQMD.unpack,
        "LE1": _struct(False, 1), "LE2": _struct(False, 2),
        "BE1": _struct(True, 1), "BE2": _struct(True, 2),
        "LE1N": _struct(False, 1, text=False), "LE2N": _struct(False, 2, text=False),
        "BE1N": _struct(True, 1, text=False), "BE2N": _struct(True, 2, text=False),
        "V1": MQMD_V1_LENGTH, "V2": MQMD_V2_LENGTH,
        **{f"D_{a}": _DEFAULTS[a] for a in _NAMES[V1_FIELDS:]},
    }

    def pack_args(count: int) -> str:
        out = []
        for attr, _, kind, n in LAYOUT[:count]:
            if attr == "version":
                out.append("ver")
            elif kind == "c":
                out.append(f"md.{attr}.encode('latin-1', 'replace')[:{n}].ljust({n}, b' ')")
            else:
                out.append(f"md.{attr}")
        return ", ".join(out)

    offsets = OFFSETS
    numbered: dict[str, int] = {}  # attribute -> index among the non-text fields
    for attr, _, kind, _ in LAYOUT:
        if kind != "c":
            numbered[attr] = len(numbered)

    def dec(attr: str, kind: str, n: int) -> str:
        if kind == "c":
            return f"t[{offsets[attr]}:{offsets[attr] + n}]"
        return f"v[{numbered[attr]}]"

    def lines(indent: str, items: list[str]) -> str:
        return "\n".join(indent + item for item in items)

    v1_sets = [f"md.{a} = {dec(a, k, n)}" for a, _, k, n in LAYOUT[:V1_FIELDS]]
    v2_sets = [f"md.{a} = {dec(a, k, n)}" for a, _, k, n in LAYOUT[V1_FIELDS:]]
    v2_defaults = [f"md.{a} = D_{a}" for a in _NAMES[V1_FIELDS:]]
    copies = [f"c.{a} = md.{a}" for a in _NAMES]
    checks = " and ".join(
        f"type(md.{attr}) is {'str' if kind == 'c' else 'bytes'} and len(md.{attr}) == {n}"
        for attr, _, kind, n in LAYOUT if kind in "cb")
    src = f"""
def pack819(md):
    ver = 1 if md.version < 2 else 2
    be = (md.encoding & 15) == 1
    if ver == 2:
        return (BE2 if be else LE2).pack({pack_args(len(LAYOUT))})
    return (BE1 if be else LE1).pack({pack_args(V1_FIELDS)})


def unpack819(data):
    view = bytes(data[:V2])
    size = len(view)
    word = view[4:8]
    if word == b'\\x02\\x00\\x00\\x00' and size >= V2:
        v = LE2N.unpack(view)
    elif word == b'\\x01\\x00\\x00\\x00' and size >= V1:
        view = view[:V1]
        v = LE1N.unpack(view)
    elif word == b'\\x00\\x00\\x00\\x02' and size >= V2:
        v = BE2N.unpack(view)
    elif word == b'\\x00\\x00\\x00\\x01' and size >= V1:
        view = view[:V1]
        v = BE1N.unpack(view)
    else:
        return slow_unpack(data, ccsid=819)  # raises the HeaderError that says why
    if view[:4] != b'MD  ':
        return slow_unpack(data, ccsid=819)
    t = view.decode('latin-1')
    md = new(MQMD)
{lines("    ", v1_sets)}
    if len(view) == V2:
{lines("        ", v2_sets)}
    else:
{lines("        ", v2_defaults)}
    return md


def clone(md):
    if not ({checks}):
        return md.copy()  # a field was set to something unpadded: MQMD pads it
    c = new(MQMD)
{lines("    ", copies)}
    return c
"""
    exec(compile(src, "<mqconsole.backends.embedded.mdfast>", "exec"), ns)
    return {k: ns[k] for k in ("pack819", "unpack819", "clone")}  # type: ignore[misc]


_fns = _generate()
pack819: Callable[[MQMD], bytes] = _fns["pack819"]
"""``md.pack(ccsid=819)``."""
unpack819: Callable[[bytes], MQMD] = _fns["unpack819"]
"""``MQMD.unpack(data, ccsid=819)``."""
clone: Callable[[MQMD], MQMD] = _fns["clone"]
"""``md.copy()`` (a new MQMD with the same, padded, fields)."""



def persistence819(data: bytes) -> int:
    """``unpack819(data).persistence`` of a stored MD, without unpacking the rest: the
    Version word (1 or 2) tells the byte order."""
    return int.from_bytes(data[_PERSISTENCE:_PERSISTENCE + 4],
                          "little" if data[_VERSION] else "big", signed=True)


__all__ = ["clone", "pack819", "persistence819", "unpack819"]
