"""The C heap of a long console session: big blocks given back when freed (issue 23 item 3).

glibc maps a block over its mmap threshold (128 KiB) apart from its heap and unmaps it when
it is freed; but each time it frees such a block it raises the threshold to that block's
size (up to 32 MiB), so after a dead-letter handler's run (its journal lines of 10,800 ids,
600 KB each, and the lists behind them) blocks of that size come from the heap, and what
they leave there stays: 21 MB kept free after a run of 200,000 messages, which
``malloc_trim`` could not give back (the free pages lie between blocks in use). Setting the
threshold once at start-up fixes it at its default (glibc then never moves it): the same
session ended with 5 MB kept instead of 21 (docs/benchmarks.md). Nothing else changes:
Python's own objects are in its arenas, not here.

What a closed screen freed in the heap itself (small blocks: glibc keeps the top of its heap
and free pages for the next allocation) is handed back with ``malloc_trim`` when the
operator is back at the queue list (:func:`give_back_freed`): the end of a whole session
then returns to within 20 % of its start-up size (issue 23 item 3; docs/benchmarks.md).
"""

from __future__ import annotations

import os
import platform

M_MMAP_THRESHOLD = -3  # glibc's mallopt parameter (malloc.h)
THRESHOLD = 128 * 1024  # glibc's default, fixed


def _glibc() -> bool:
    return platform.system() == "Linux" and platform.libc_ver()[0] == "glibc"


def keep_big_blocks_apart() -> bool:
    """On glibc, map every block over :data:`THRESHOLD` apart from the heap for the rest of
    the process (so it is given back when freed); True when set. Not on another C library,
    nor when the operator set glibc's threshold already (``MALLOC_MMAP_THRESHOLD_`` or a
    ``GLIBC_TUNABLES`` mmap_threshold)."""
    if not _glibc():
        return False
    if "MALLOC_MMAP_THRESHOLD_" in os.environ or \
            "mmap_threshold" in os.environ.get("GLIBC_TUNABLES", ""):
        return False
    import ctypes

    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    return bool(mallopt(M_MMAP_THRESHOLD, THRESHOLD))


def give_back_freed() -> bool:
    """On glibc, hand the free pages of the C heap back to the system (``malloc_trim(0)``:
    a walk of the heap, a few milliseconds); True when it gave any back. Elsewhere nothing."""
    if not _glibc():
        return False
    import ctypes

    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return False
    trim.argtypes = (ctypes.c_size_t,)
    trim.restype = ctypes.c_int
    return bool(trim(0))


__all__ = ["give_back_freed", "keep_big_blocks_apart"]
