"""The embedded queue manager's fast MQMD paths give exactly what mqconsole.mq.md gives."""

from __future__ import annotations

import random

import pytest

from mqconsole.backends.embedded.mdfast import clone, pack819, persistence819, unpack819
from mqconsole.mq.errors import HeaderError
from mqconsole.mq.md import LAYOUT, MQMD

TEXT = "ABCxyz 019.%/_\u00e9\u00ff\u20ac\u4e2d"  # latin-1 and beyond (those become '?')


def random_md(rng: random.Random) -> MQMD:
    fields: dict[str, object] = {}
    for attr, _, kind, n in LAYOUT:
        if attr in ("struc_id", "version"):
            continue
        if kind == "l":
            fields[attr] = rng.choice([0, 1, -1, 2, 273, 546, 785, rng.randint(-2**31, 2**31 - 1)])
        elif kind == "c":
            fields[attr] = "".join(rng.choice(TEXT) for _ in range(rng.randint(0, n + 3)))
        else:
            fields[attr] = bytes(rng.randrange(256) for _ in range(rng.randint(0, n)))
    return MQMD(version=rng.choice([1, 2]), **fields)  # type: ignore[arg-type]


@pytest.mark.parametrize("seed", range(20))
def test_same_as_mq_md(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(50):
        md = random_md(rng)
        packed = md.pack(ccsid=819)
        assert pack819(md) == packed
        assert unpack819(packed) == MQMD.unpack(packed, ccsid=819)
        assert unpack819(packed + b"trailing body") == MQMD.unpack(packed + b"trailing body",
                                                                 ccsid=819)
        assert clone(md) == md.copy() and clone(md) is not md
        assert persistence819(packed) == md.persistence


def test_clone_pads_what_was_set_after_construction() -> None:
    md = MQMD(format="MQSTR")
    md.format = "MQHRF2"  # unpadded, as a caller may set it
    md.msg_id = b"short"
    assert clone(md) == md.copy()
    assert clone(md).format == "MQHRF2  " and len(clone(md).msg_id) == 24


@pytest.mark.parametrize("data", [b"", b"MD  \x03\x00\x00\x00" + bytes(400),
                                  b"XX  \x02\x00\x00\x00" + bytes(400),
                                  MQMD().pack(ccsid=819)[:330]])
def test_bad_descriptors_raise_as_mq_md_does(data: bytes) -> None:
    with pytest.raises(HeaderError) as fast:
        unpack819(data)
    with pytest.raises(HeaderError) as slow:
        MQMD.unpack(data, ccsid=819)
    assert str(fast.value) == str(slow.value)
