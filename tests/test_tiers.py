"""The suite's own order (tests/support/tiers.py): the heaviest modules first, each whole."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace

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
