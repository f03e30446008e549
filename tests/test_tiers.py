"""The suite's tiers (tests/support/tiers.py): the markers each test gets from its folder,
module and fixtures, the guard that fails a test doing what its tiers do not say, and the
order (the heaviest modules first, each whole)."""

from __future__ import annotations

import multiprocessing
import os
import pty
import subprocess
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace

import pytest

from tests.support import tiers


@dataclass
class Item:
    """What heaviest_first reads of a pytest item: its module and its markers."""

    path: Path
    name: str
    marks: tuple[str, ...] = field(default=())

    def iter_markers(self) -> list[SimpleNamespace]:
        return [SimpleNamespace(name=m) for m in self.marks]


def test_the_heaviest_modules_run_first_and_each_module_stays_whole() -> None:
    a, b, c, d, e = (Path(f"tests/test_{x}.py") for x in "abcde")
    items = [Item(a, "light1"), Item(a, "light2"),
             Item(b, "light"), Item(b, "slow", ("slow",)), Item(b, "light_again"),
             Item(c, "spark", ("spark",)),
             Item(d, "cluster", ("cluster", "spark")),
             Item(e, "pty", ("pty", "subprocess"))]
    tiers.heaviest_first(items)  # type: ignore[arg-type]
    assert [i.name for i in items] == [
        "cluster", "spark", "light", "slow", "light_again", "pty", "light1", "light2"]


def test_an_order_without_heavy_tests_is_left_as_collected() -> None:
    items = [Item(Path(f"tests/test_{n}.py"), str(n)) for n in (3, 1, 2)]
    tiers.heaviest_first(items)  # type: ignore[arg-type]
    assert [i.name for i in items] == ["3", "1", "2"]


def test_two_workers_each_start_on_heavy_modules_the_cluster_ones_on_the_first() -> None:
    """worksteal hands worker 0 the first len // 2 items and worker 1 the rest: each share
    starts with its heavy modules (whole), the cluster ones all in the first share, the
    others to the less loaded share, longest first; the light tests fill the shares."""
    paths = {x: Path(f"tests/test_{x}.py") for x in ("cl", "sp1", "sp2", "sp3", "slow")}
    items = [Item(Path(f"tests/test_light{n}.py"), f"light{n}") for n in range(12)]
    items += [Item(paths["sp1"], "sp1a", ("spark",)), Item(paths["sp1"], "sp1b", ("spark",)),
              Item(paths["cl"], "cl", ("cluster", "spark")), Item(paths["cl"], "cl_light"),
              Item(paths["sp2"], "sp2", ("spark",)),
              Item(paths["slow"], "slow", ("slow",)),
              Item(paths["sp3"], "sp3a", ("spark",)), Item(paths["sp3"], "sp3b", ("spark",)),
              Item(paths["sp3"], "sp3c", ("spark",))]
    tiers.heaviest_first(items, workers=2)  # type: ignore[arg-type]
    names = [i.name for i in items]
    assert sorted(names) == sorted(  # nothing lost or doubled
        [f"light{n}" for n in range(12)] + ["sp1a", "sp1b", "cl", "cl_light", "sp2", "slow",
                                            "sp3a", "sp3b", "sp3c"])
    first, second = names[:len(names) // 2], names[len(names) // 2:]
    # weights: cl 60, sp3 15, sp1 10, slow 10, sp2 5: cl alone in the first; the rest in the
    # second (sp3, sp1, slow, sp2: the second stays the less loaded), spark before slow
    assert first[:2] == ["cl", "cl_light"]
    assert first[2:] == [f"light{n}" for n in range(8)]
    assert second == ["sp3a", "sp3b", "sp3c", "sp1a", "sp1b", "sp2", "slow",
                      *(f"light{n}" for n in range(8, 12))]


def test_one_worker_keeps_the_heaviest_first_order() -> None:
    a, b = Path("tests/test_a.py"), Path("tests/test_b.py")
    items = [Item(a, "light"), Item(b, "spark", ("spark",))]
    tiers.heaviest_first(items, workers=1)  # type: ignore[arg-type]
    assert [i.name for i in items] == ["spark", "light"]


def test_heavy_modules_that_overflow_a_share_fill_the_other_after_its_own() -> None:
    """Every test heavy (``-m spark``): a share holds what fits of its own modules (whole);
    a module that does not fit fills another share after that one's own."""
    cl, x, y, z = (Path(f"tests/test_{n}.py") for n in ("cl", "x", "y", "z"))
    items = [Item(cl, f"cl{n}", ("cluster", "spark")) for n in range(2)]
    for path in (x, y, z):
        items += [Item(path, f"{path.stem[5:]}{n}", ("spark",)) for n in range(2)]
    # weights: cl 120 (the first share); x, y, z 10 each: all three to the second share,
    # which holds 4 of the 8 tests: z goes on to the first share, after cl
    tiers.heaviest_first(items, workers=2)  # type: ignore[arg-type]
    assert [i.name for i in items] == ["cl0", "cl1", "z0", "z1", "x0", "x1", "y0", "y1"]


# --- the markers: from the folder, the module and the fixtures -------------------------

ROOT = Path(__file__).resolve().parent.parent
TIERS = ("spark", "cluster", "subprocess", "pty", "mqi", "slow")


def _collected(pytester, *paths: str) -> dict[str, set[str]]:
    """The test ids under ``paths`` (of this repository), collected by a pytest run in this
    process (the suite's own conftest marks them), with the tiers each was marked with.
    (Without the snapshot plugin: its session end would remove the outer run's folder.)"""
    items, _ = pytester.inline_genitems("-p", "no:cacheprovider", "-p", "no:textual-snapshot",
                                        "--rootdir", str(ROOT),
                                        "-c", str(ROOT / "pyproject.toml"),
                                        *(str(ROOT / p) for p in paths))
    return {item.nodeid: {m.name for m in item.iter_markers()} & set(TIERS) for item in items}


def test_the_tests_driving_a_pseudo_terminal_are_in_the_pty_and_subprocess_tiers(pytester):
    """Each test that opens a pseudo-terminal (through the terminal or pty_console fixture,
    marked by nobody) is in the pty and subprocess tiers; its neighbours are not in pty."""
    tiers_of = _collected(pytester, "tests/tui/test_decoder_hang.py",
                          "tests/tui/test_lost_terminal.py", "tests/cli/test_dlq_cli.py",
                          "tests/cli/test_all_prompt.py")
    ptys = {nodeid for nodeid, names in tiers_of.items() if "pty" in names}
    assert ptys == {
        "tests/tui/test_decoder_hang.py::test_q_quits_while_a_decoder_never_returns",
        "tests/tui/test_lost_terminal.py::test_input_hung_up_ends_the_console_with_129",
        "tests/cli/test_dlq_cli.py::"
        "test_a_dry_run_on_a_terminal_cuts_the_story_not_the_reason",
        "tests/cli/test_all_prompt.py::test_the_all_question_gives_the_count"}
    assert all("subprocess" in tiers_of[nodeid] for nodeid in ptys)
    assert tiers_of["tests/tui/test_lost_terminal.py::"
                    "test_input_hung_up_ends_the_console_with_129"] == {"pty", "subprocess",
                                                                         "slow"}
    # the rest of tests/cli: subprocess by its folder, not pty
    assert tiers_of["tests/cli/test_dlq_cli.py::test_an_unusable_attempts_file_is_bad_input"
                    "_before_anything"] == {"subprocess"}


NEW_CONFTEST = '''
from tests.support import terminals, tiers

terminal = terminals.terminal
pty_console = terminals.pty_console


def pytest_collection_modifyitems(items):
    tiers.mark(items)
'''

NEW_MODULE = '''
import pytest


@pytest.fixture
def screen(terminal):
    return terminal


def test_keys(terminal):
    pass


def test_console(pty_console):
    pass


def test_through_another_fixture(screen):
    pass


@pytest.mark.slow
def test_plain():
    pass
'''


def test_a_new_test_using_a_terminal_fixture_needs_no_marker(pytester):
    """A module written tomorrow: a test using the terminal or pty_console fixture, itself
    or through another fixture, is in the pty and subprocess tiers; one that does not is
    in none of them (a hand-set marker stays)."""
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    pytester.makeconftest(NEW_CONFTEST)
    pytester.makepyfile(test_new=NEW_MODULE)
    items, _ = pytester.inline_genitems("-p", "no:cacheprovider", "-p", "no:textual-snapshot")
    marked = {item.name: {m.name for m in item.iter_markers()} & set(TIERS) for item in items}
    assert marked == {"test_keys": {"pty", "subprocess"},
                      "test_console": {"pty", "subprocess"},
                      "test_through_another_fixture": {"pty", "subprocess"},
                      "test_plain": {"slow"}}


# --- the guard: what a test outside a tier may not do ----------------------------------

@dataclass
class Node:
    """What forbid_processes reads of a test: its id and its markers."""

    nodeid: str
    marks: tuple[str, ...] = ()

    def get_closest_marker(self, name: str) -> SimpleNamespace | None:
        return SimpleNamespace(name=name) if name in self.marks else None


QUICK = "not (spark or cluster or subprocess or pty or mqi or slow)"  # the Makefile's


@contextmanager
def held(marks: tuple[str, ...] = (), markexpr: str = "") -> Iterator[None]:
    """forbid_processes around a test marked ``marks`` in a run selecting ``markexpr``."""
    config = SimpleNamespace(getoption=lambda name, default=None:
                             markexpr if name == "markexpr" else default)
    request = SimpleNamespace(node=Node("tests/x.py::test_x", marks), config=config)
    guard = tiers.forbid_processes(request)  # type: ignore[arg-type]
    next(guard)
    try:
        yield
    finally:
        next(guard, None)


def _forked(fork: Callable[[], int | tuple[int, int]]) -> Callable[[], None]:
    """``fork`` called as a test would: should the guard let it through, the child ends at
    once (it would run the rest of the suite) and is reaped."""
    def call() -> None:
        got = fork()
        pid = got[0] if isinstance(got, tuple) else got
        if pid == 0:  # pragma: no cover - the child, only if the guard failed
            os._exit(0)
        os.waitpid(pid, 0)
    return call


def _opened(openpty: Callable[[], tuple[int, int]]) -> Callable[[], None]:
    def call() -> None:
        for fd in openpty():  # (only if the guard failed)
            os.close(fd)
    return call


OPENS = {"pty.openpty": _opened(pty.openpty), "os.openpty": _opened(lambda: os.openpty()),
         "pty.fork": _forked(pty.fork), "os.forkpty": _forked(lambda: os.forkpty())}


@pytest.mark.parametrize("markexpr", ["", QUICK])
@pytest.mark.parametrize("how", sorted(OPENS))
def test_a_test_outside_the_pty_tier_cannot_open_a_pseudo_terminal(how, markexpr):
    """In every run (make test's and make quick's), a test not in the pty tier that opens a
    pseudo-terminal fails, naming the fixtures that would put it there; the functions are
    given back when it ends."""
    before = os.openpty, os.forkpty
    with held(markexpr=markexpr), pytest.raises(
            AssertionError, match=r"tests/x\.py::test_x opens a pseudo-terminal outside the "
                                  r"pty tier: open it with the terminal or pty_console"):
        OPENS[how]()
    assert (os.openpty, os.forkpty) == before


def test_a_test_in_the_pty_tier_opens_one_as_it_likes() -> None:
    before = os.openpty, os.forkpty
    with held(("pty", "subprocess")):
        assert (os.openpty, os.forkpty) == before  # (this test's own guard's, if any)


STARTS = {"subprocess": lambda: subprocess.run(["true"], check=False),
          "multiprocessing": lambda: multiprocessing.get_context("fork").Process(
              target=os.getpid).start(),
          "os.fork": _forked(lambda: os.fork()),
          "os.posix_spawn": lambda: os.waitpid(
              os.posix_spawn("/bin/true", ["true"], dict(os.environ)), 0)}


@pytest.mark.parametrize("how", sorted(STARTS))
def test_make_quick_refuses_a_process_started_outside_the_subprocess_tier(how):
    before = subprocess.Popen._execute_child, os.fork, os.posix_spawn  # type: ignore[attr-defined]
    with held(markexpr=QUICK), pytest.raises(
            AssertionError, match=r"tests/x\.py::test_x starts a process: mark it"):
        STARTS[how]()
    assert (subprocess.Popen._execute_child, os.fork,  # type: ignore[attr-defined]
            os.posix_spawn) == before
    with held(markexpr=""):  # make test: the tier runs, nothing is refused
        assert (subprocess.Popen._execute_child, os.fork,  # type: ignore[attr-defined]
                os.posix_spawn) == before
