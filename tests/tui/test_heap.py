"""glibc gives the console's big blocks back when they are freed (issue 23 item 3): after a
bigger block was freed, a smaller big one (a handler run's journal line) is still mapped
apart from the heap, not left in it; the console sets this before it starts; an operator's own
setting is left alone."""

from __future__ import annotations

import os
import platform
import subprocess
import sys
from pathlib import Path

import pytest

from mqconsole.tui import heap

GLIBC = platform.system() == "Linux" and platform.libc_ver()[0] == "glibc"
ROOT = Path(__file__).resolve().parents[2]


# in a fresh process: glibc serves a big block from a free chunk of its heap when it has one
# (the threshold decides only between growing the heap and mapping), and a test process
# has had any number of them by then
_PROBE = """
import ctypes
from mqconsole.tui import heap

class Mallinfo2(ctypes.Structure):  # glibc's struct mallinfo2, whole (returned by value)
    _fields_ = [(n, ctypes.c_size_t) for n in ("arena", "ordblks", "smblks", "hblks",
        "hblkhd", "usmblks", "fsmblks", "uordblks", "fordblks", "keepcost")]

mallinfo2 = ctypes.CDLL(None).mallinfo2
mallinfo2.restype = Mallinfo2
print(heap.keep_big_blocks_apart())
bigger = bytearray(8 << 20)
del bigger  # glibc would now raise its threshold to 8 MiB
before = mallinfo2().hblkhd
block = bytearray(2 << 20)
print(mallinfo2().hblkhd - before)
"""


@pytest.mark.subprocess
def test_a_big_block_is_mapped_apart_even_after_a_bigger_one_was_freed():
    """A 2 MiB block after an 8 MiB one was freed is mapped apart (unmapped when freed);
    without the setting glibc takes it from its heap (0 bytes mapped: checked by hand)."""
    out = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True,
                         check=True, env={**os.environ, "PYTHONPATH": str(ROOT)}).stdout
    is_set, mapped = out.split()
    if not GLIBC:  # another C library: nothing is set
        assert is_set == "False"
        return
    assert is_set == "True"
    assert int(mapped) >= 2 << 20


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


# every other 16 KiB block freed: whole free pages lie between blocks in use, which glibc
# keeps (they are not at the top of its heap) until malloc_trim hands them back
_TRIM_PROBE = """
from mqconsole.tui import heap
blocks = [bytearray(16 << 10) for _ in range(2000)]
del blocks[::2]
print(heap.give_back_freed())
"""


@pytest.mark.subprocess
def test_freed_pages_between_blocks_in_use_are_given_back():
    out = subprocess.run([sys.executable, "-c", _TRIM_PROBE], capture_output=True, text=True,
                         check=True, env={**os.environ, "PYTHONPATH": str(ROOT)}).stdout
    assert out.split() == (["True"] if GLIBC else ["False"])


async def test_back_at_the_queue_list_the_heap_is_trimmed(make_app, monkeypatch):
    """Leaving a screen for the queue list hands what it freed back (issue 23 item 3)."""
    from mqconsole.tui.screens.queues import QueuesScreen

    from .conftest import settle, wait_for

    trims: list[str] = []
    monkeypatch.setattr(heap, "give_back_freed", lambda: trims.append("trim") or True)
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        started = len(trims)
        await pilot.press("J")
        await wait_for(app, pilot, lambda: app.screen.__class__.__name__ == "JournalScreen")
        assert len(trims) == started  # nothing while the journal is open
        await pilot.press("escape")
        await wait_for(app, pilot, lambda: isinstance(app.screen, QueuesScreen)
                       and len(trims) > started)
