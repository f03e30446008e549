"""glibc gives the console's big blocks back when they are freed (issue 23 item 3): after a
bigger block was freed, a 600 KB one (a handler run's journal line) is still mapped apart
from the heap, not left in it; the console sets this before it starts; an operator's own
setting is left alone."""

from __future__ import annotations

import ctypes
import platform

import pytest

from mqconsole.tui import heap

GLIBC = platform.system() == "Linux" and platform.libc_ver()[0] == "glibc"


class _Mallinfo2(ctypes.Structure):  # glibc's struct mallinfo2, whole (returned by value)
    _fields_ = [(n, ctypes.c_size_t) for n in ("arena", "ordblks", "smblks", "hblks", "hblkhd",
                                                "usmblks", "fsmblks", "uordblks", "fordblks",
                                                "keepcost")]


def _mapped() -> int:
    """The bytes glibc has mapped apart from its heaps (``hblkhd``)."""
    mallinfo2 = ctypes.CDLL(None).mallinfo2
    mallinfo2.restype = _Mallinfo2
    return int(mallinfo2().hblkhd)


def test_a_big_block_is_mapped_apart_even_after_a_bigger_one_was_freed():
    if not GLIBC:  # another C library: nothing is set
        assert heap.keep_big_blocks_apart() is False
        return
    assert heap.keep_big_blocks_apart() is True
    bigger = bytearray(4 << 20)
    del bigger  # glibc would now raise its threshold to 4 MiB
    before = _mapped()
    block = bytearray(600_000)
    assert _mapped() - before >= 600_000  # mapped apart: unmapped when freed
    del block
    assert _mapped() == before


def test_an_operators_own_glibc_setting_is_left_alone(monkeypatch):
    monkeypatch.setenv("MALLOC_MMAP_THRESHOLD_", "1048576")
    assert heap.keep_big_blocks_apart() is False
    monkeypatch.delenv("MALLOC_MMAP_THRESHOLD_")
    monkeypatch.setenv("GLIBC_TUNABLES", "glibc.malloc.mmap_threshold=1048576")
    assert heap.keep_big_blocks_apart() is False


def test_the_console_sets_it_before_it_starts(monkeypatch):
    from mqconsole.tui import app

    calls: list[str] = []

    def build(session):
        calls.append("build")
        raise RuntimeError("not started in this test")

    monkeypatch.setattr(heap, "keep_big_blocks_apart", lambda: calls.append("heap") or True)
    monkeypatch.setattr(app, "build_app", build)
    with pytest.raises(RuntimeError):
        app.run_app(object())
    assert calls == ["heap", "build"]
