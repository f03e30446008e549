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
