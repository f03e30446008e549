"""Issue 16: outside mq/, an MQ reason code is written by its name, never as a bare number.

An AST scan (comments and strings don't count) of every module under mqconsole/ outside
mqconsole/mq/: an integer literal that is one of CMQC's reason codes (2001 and up, which
includes the 6100-6200 block) fails, naming the file, line and the name to import from
mq.reasons instead. No allow-list: nothing outside mq/ needs such a number.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from mqconsole.mq import _generated_constants as g

PACKAGE = Path(g.__file__).resolve().parent.parent
MQ_ROOM = PACKAGE / "mq"
REASON_NAMES: dict[int, str] = {v: k for k, v in sorted(g.MQRC.items()) if v >= 2001}


def bare_reason_codes(source: str) -> list[tuple[int, int]]:
    """(line, value) of each integer literal in source that is an MQ reason code."""
    return [(node.lineno, node.value) for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.Constant) and type(node.value) is int
            and node.value in REASON_NAMES]


def test_the_scan_sees_a_bare_code_and_not_a_named_one() -> None:
    assert bare_reason_codes("x = 2085\nif r in {2033, 7}: pass\n") == [(1, 2085), (2, 2033)]
    assert bare_reason_codes("x = MQRC_Q_FULL  # 2053\ny = '2053'\nz = 2000\n") == []
    assert REASON_NAMES[2053] == "MQRC_Q_FULL" and 6104 in REASON_NAMES


@pytest.mark.slow
def test_no_module_outside_mq_writes_a_reason_code_as_a_number() -> None:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if MQ_ROOM in path.parents:
            continue
        found += [f"{path.relative_to(PACKAGE)}:{line}: {value} (use {REASON_NAMES[value]})"
                  for line, value in bare_reason_codes(path.read_text(encoding="utf-8"))]
    assert found == []
