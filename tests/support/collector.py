"""The cyclic garbage collector in a test process: run less often (issue 26).

A test process holds everything the suite imports (Textual, Hypothesis, PySpark, pytest's
rewritten modules, 4,000 test items), and the collector's defaults (the young generation
collected every 700 allocations, the oldest every hundredth time) walk all of it again and
again: a pilot test builds and drops hundreds of thousands of small objects (Textual's
strips and style caches), and a fifth of tests/tui's CPU went to the collector
(docs/benchmarks.md). As :func:`mqconsole.cli.operate.fewer_collections` does for an
operation: the young generation is collected every 20,000 allocations instead, and what
exists once the tests are collected (modules, test items) is frozen out of every later
collection. Nothing is collected less in the end: a cycle is found by the next
collection of its generation, and a test that needs one gone calls ``gc.collect()``.
"""

from __future__ import annotations

import gc

YOUNG = 20_000
"""Allocations between two collections of the young generation (Python's default: 700)."""


def collect_less() -> None:
    """The young generation collected every :data:`YOUNG` allocations (tests/conftest.py,
    before the test modules are imported: collection rewrites and compiles them)."""
    young, *older = gc.get_threshold()
    gc.set_threshold(max(young, YOUNG), *older)


def freeze_the_collected() -> None:
    """After collection: what is left after a full collection stays for the whole run, and
    is left out of every later collection."""
    gc.collect()
    gc.freeze()
