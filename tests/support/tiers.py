"""The suite's tiers: markers every test gets from where it lives and what it uses.

``tests/conftest.py`` calls :func:`mark` from ``pytest_collection_modifyitems``, so a new
test lands in the right tier without anyone marking it:

* ``spark``: starts Spark (a JVM): everything under tests/audit, a test using the
  ``spark`` fixture, one in the ``cluster`` tier (marked so, or using the ``spark_cluster``
  or ``spark_connect`` fixture: a standalone cluster or a Connect server, on top of Spark),
  and the console's and the CLI's audit tests (tests/tui/test_audit_screen.py,
  tests/cli/test_audit*.py);
* ``subprocess``: starts processes: tests/cli (real invocations of the ``mqconsole``
  executable), a test using the contract suite's ``multiprocess`` fixture, a ``pty`` test;
  elsewhere a test that starts a process says so (``pytest.mark.subprocess``), and
  ``make quick`` refuses one that does not (:func:`forbid_processes`);
* ``pty``: talks to a process through a pseudo-terminal: a test using the ``terminal`` or
  ``pty_console`` fixture (tests/support/terminals.py), the only way a test opens one: one
  opening it otherwise is refused in every run (:func:`forbid_processes`);
* ``mqi``: the MQI backend over the stand-in (tests/backends/mqi, and the contract tests'
  ``mqi-*`` and ``realmq`` backends);
* ``slow``: long-running (marked where it is: a kill test's rounds, streaming a big queue).

``make quick`` runs the core folders without the spark, cluster, subprocess, pty, mqi and
slow tiers; ``make test`` runs everything.

:func:`heaviest_first` then orders the run: modules with a cluster test first, then those
starting Spark, then the slow and terminal ones, then the rest (each module kept whole, so
that its module-scoped fixtures are made once). Under ``--dist worksteal`` with several
workers, those heavy modules are shared out among the workers (:func:`spread`): worksteal
gives each worker one contiguous share of the list, and each share starts with its worker's
heavy modules, the cluster ones all in the first (they share its cluster and Connect
server), so every worker starts on long tests (each Spark one on its worker's session) and
a worker that is done steals the light tests from the end of another's list: the run does
not end with one worker alone on the Spark tests (they were a quarter-hour of one worker).
"""

from __future__ import annotations

import multiprocessing.process
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

TESTS = Path(__file__).resolve().parent.parent

FOLDERS = {"audit": ("spark",), "cli": ("subprocess",), "backends/mqi": ("mqi",)}
"""A folder under tests/ and the tiers of every test in it."""

MODULES = {"tui/test_audit_screen.py": ("spark",), "cli/test_audit_cli.py": ("spark",),
           "cli/test_audit_export_cli.py": ("spark",)}
"""A module under tests/ and the tiers of every test in it."""

FIXTURES = {"spark": ("spark",), "built_plugin": ("spark",), "spark_cluster": ("cluster",),
            "spark_connect": ("cluster",), "multiprocess": ("subprocess",), "terminal": ("pty",),
            "pty_console": ("pty",)}
"""A fixture and the tiers of every test using it (directly or through another fixture)."""

IMPLIED = {"cluster": ("spark",), "pty": ("subprocess",)}

STAND_INS = ("mqi-", "realmq")
"""The contract suite's backend ids (prefixes) that are the MQI backend."""

SLOW_TIMEOUT = 1800
"""pytest-timeout's bound for a spark, cluster or slow test (others: the ini's 300 s)."""


def tiers_of(item: pytest.Item) -> set[str]:
    """The tiers ``item`` belongs to, from its place, its fixtures and its own marks."""
    tiers = {m.name for m in item.iter_markers()
             if m.name in ("spark", "cluster", "subprocess", "pty", "mqi", "slow")}
    try:
        rel = Path(str(item.path)).resolve().relative_to(TESTS).as_posix()
    except ValueError:  # plugins/: the example plugins' own tests
        rel = ""
    for folder, names in FOLDERS.items():
        if rel.startswith(folder + "/"):
            tiers.update(names)
    tiers.update(MODULES.get(rel, ()))
    for fixture in getattr(item, "fixturenames", ()):
        tiers.update(FIXTURES.get(fixture, ()))
    callspec = getattr(item, "callspec", None)
    backend = callspec.params.get("backend") if callspec is not None else None
    if isinstance(backend, str) and backend.startswith(STAND_INS):
        tiers.add("mqi")
    for tier in list(tiers):
        tiers.update(IMPLIED.get(tier, ()))
    return tiers


def mark(items: list[pytest.Item]) -> None:
    """Give every item the markers of its tiers, and the spark, cluster and slow ones a
    longer timeout (unless they set their own)."""
    for item in items:
        tiers = tiers_of(item)
        have = {m.name for m in item.iter_markers()}
        for tier in sorted(tiers - have):
            item.add_marker(getattr(pytest.mark, tier))
        if tiers & {"spark", "cluster", "slow"} and "timeout" not in have:
            item.add_marker(pytest.mark.timeout(SLOW_TIMEOUT))


RANKS = ("cluster", "spark", "slow", "pty")
"""The tiers that run first, heaviest first (others after, in collection order)."""


WEIGHTS = {
    "audit/test_connect.py": 200, "tui/test_audit_screen.py": 150, "audit/test_cluster.py": 45,
    "cli/test_audit_export_cli.py": 200,
    "cli/test_audit_cli.py": 130, "audit/test_own_session.py": 150, "audit/test_datasource.py": 30,
    "tui/test_audit_child.py": 100, "audit/test_export.py": 60, "audit/test_report.py": 40,
}
"""Heavy modules' wall seconds, roughly (a quiet 2-worker run, 2026-12-02; test_cluster.py
since it runs on the run's cluster, 2026-12-04; docs/benchmarks.md):
only to share the heavy modules out evenly (:func:`spread`); a module not named here weighs
:data:`ITEM_WEIGHT` for each of its tests in a heavy tier (its light tests count nothing)."""

ITEM_WEIGHT = {0: 60, 1: 5, 2: 10, 3: 5}
"""Seconds per heavy test of a module not in :data:`WEIGHTS`, by the test's rank in
:data:`RANKS`."""


def _rank(item: pytest.Item) -> int:
    have = {m.name for m in item.iter_markers()}
    return next((i for i, tier in enumerate(RANKS) if tier in have), len(RANKS))


def _relative(item: pytest.Item) -> str:
    try:
        return Path(str(item.path)).resolve().relative_to(TESTS).as_posix()
    except ValueError:
        return str(item.path)


def heaviest_first(items: list[pytest.Item], workers: int = 1) -> None:
    """Order ``items`` (in place, after :func:`mark`) by their module's heaviest tier; with
    several ``workers`` (worksteal's), the heavy modules shared out among them (:func:`spread`)."""
    module_rank: dict[str, int] = {}
    for item in items:
        key = str(item.path)
        module_rank[key] = min(module_rank.get(key, len(RANKS)), _rank(item))
    items.sort(key=lambda item: module_rank[str(item.path)])  # stable: modules stay whole
    if workers > 1:
        spread(items, workers, module_rank)


def worksteal_workers(config: pytest.Config) -> int:
    """How many xdist workers share the run under ``--dist worksteal`` (1 otherwise, and in
    the controller or a run without xdist)."""
    workerinput = getattr(config, "workerinput", None)
    if workerinput is None or workerinput.get("dist") != "worksteal":
        return 1
    return int(workerinput.get("workercount", 1))


def tell_the_worker(node: Any) -> None:
    """In the controller, before a worker starts: the run's ``--dist`` in its workerinput
    (the worker's own ``dist`` option is set to "no" by xdist)."""
    node.workerinput["dist"] = node.config.getoption("dist", "no")


def spread(items: list[pytest.Item], workers: int, module_rank: dict[str, int]) -> None:
    """Lay ``items`` (heaviest first, modules whole) out for worksteal's first distribution,
    which hands worker i the next ``len(left) // (workers - i)`` items: worker i's share
    starts with its heavy modules (each whole), the rest of it the light tests in order.
    The cluster modules all go to the first worker (one cluster and Connect server per
    process); every other heavy module, the longest first, to the least loaded worker. A
    heavy module that does not fit its worker's share (when nearly every selected test is
    heavy: ``-m spark``) fills another's after that one's own, before the light tests."""
    modules: dict[str, list[pytest.Item]] = {}
    for item in items:
        modules.setdefault(str(item.path), []).append(item)
    heavy = [key for key in modules if module_rank[key] < len(RANKS)]
    light = [item for key, group in modules.items() if key not in heavy for item in group]

    def weight(key: str) -> int:
        group = modules[key]
        return WEIGHTS.get(_relative(group[0]),
                           sum(ITEM_WEIGHT.get(_rank(item), 0) for item in group))

    shares: list[list[str]] = [[] for _ in range(workers)]
    load = [0] * workers
    for key in [k for k in heavy if module_rank[k] == 0]:
        shares[0].append(key)
        load[0] += weight(key)
    for key in sorted((k for k in heavy if module_rank[k] > 0), key=weight, reverse=True):
        least = load.index(min(load))
        shares[least].append(key)
        load[least] += weight(key)
    sizes, left = [], len(items)
    for i in range(workers):  # worksteal's first distribution
        sizes.append(left // (workers - i))
        left -= sizes[i]
    chunks: list[list[pytest.Item]] = []
    spill: list[pytest.Item] = []  # heavy modules that do not fit their worker's share
    for size, share in zip(sizes, shares, strict=True):
        chunk: list[pytest.Item] = []
        for key in sorted(share, key=lambda k: (module_rank[k], -weight(k))):
            fits = not chunk or len(chunk) + len(modules[key]) <= size
            (chunk if fits else spill).extend(modules[key])
        chunks.append(chunk)
    pool = spill + light  # the rest fill each share up to its size, in this order
    order: list[pytest.Item] = []
    for size, chunk in zip(sizes, chunks, strict=True):
        fill = max(0, size - len(chunk))
        order += chunk + pool[:fill]
        del pool[:fill]
    items[:] = order + pool


def excludes_processes(config: pytest.Config) -> bool:
    """Whether this run's ``-m`` leaves a test out for being in the subprocess tier and
    nothing else (``make quick``)."""
    from _pytest.mark.expression import Expression  # pytest's own reading of -m

    text = config.getoption("markexpr") or ""
    if not text:
        return False
    expr = Expression.compile(text)
    return (expr.evaluate(lambda name, **_: False)
            and not expr.evaluate(lambda name, **_: name == "subprocess"))


PROCESS_STARTS = ((subprocess.Popen, "_execute_child"),
                  (multiprocessing.process.BaseProcess, "start"),
                  (os, "fork"), (os, "forkpty"), (os, "posix_spawn"), (os, "posix_spawnp"))
"""What starts a process (subprocess, multiprocessing, os.spawn* through os.fork, pty.fork
through os.forkpty): refused in a run without the subprocess tier."""

TERMINAL_OPENS = ((os, "openpty"), (os, "forkpty"))
"""What opens a pseudo-terminal (pty.openpty and pty.fork call these): refused to a test
outside the pty tier."""


def forbid_processes(request: pytest.FixtureRequest) -> Iterator[None]:
    """While the test runs: in a run without the subprocess tier (``make quick``), starting a
    process fails, saying how to mark the test, so that the quick run stays quick and the
    tiers stay true; in every run, a test outside the pty tier that opens a pseudo-terminal
    fails, saying which fixture puts it there (so no pty test is left unmarked)."""
    node = request.node
    refused: dict[tuple[Any, str], Any] = {}
    if excludes_processes(request.config):
        def no_process(*_args: object, **_kw: object) -> None:
            raise AssertionError(
                f"{node.nodeid} starts a process: mark it pytest.mark.subprocess "
                "(tests/support/tiers.py); make quick leaves that tier out")

        refused.update({place: no_process for place in PROCESS_STARTS if hasattr(*place)})
    if node.get_closest_marker("pty") is None:
        def no_terminal(*_args: object, **_kw: object) -> None:
            raise AssertionError(
                f"{node.nodeid} opens a pseudo-terminal outside the pty tier: open it with "
                "the terminal or pty_console fixture (tests/support/terminals.py), which "
                "puts the test in that tier")

        refused.update({place: no_terminal for place in TERMINAL_OPENS if hasattr(*place)})
    saved = {place: getattr(*place) for place in refused}
    for (owner, name), refuse in refused.items():
        setattr(owner, name, refuse)
    try:
        yield
    finally:
        for (owner, name), original in saved.items():
            setattr(owner, name, original)
