"""mq.reasons: the names the code uses carry CMQC's values, and no other room declares one."""

from __future__ import annotations

import re
from pathlib import Path

from mqconsole.mq import _generated_constants as g
from mqconsole.mq import reasons

PACKAGE = Path(reasons.__file__).resolve().parent.parent
DECLARATION = re.compile(r"^\s*(MQ(?:RC|AT|FB|PER|MT)_[A-Z0-9_]+)\s*(?::[^=]+)?=\s*-?\d",
                         re.MULTILINE)


def test_every_constant_has_cmqcs_value() -> None:
    tables = {"MQRC": g.MQRC, "MQAT": g.MQAT, "MQPER": g.MQPER}
    names = [n for n in vars(reasons) if n.startswith(("MQRC_", "MQAT_", "MQPER_"))]
    assert len(names) > 40
    for name in names:
        assert tables[name.split("_")[0]][name] == getattr(reasons, name), name


def test_connection_reasons_are_named_codes() -> None:
    assert set(g.MQRC.values()) >= reasons.CONNECTION_REASONS
    assert reasons.MQRC_Q_FULL not in reasons.CONNECTION_REASONS


def test_no_room_outside_mq_declares_an_mq_constant() -> None:
    found = []
    for path in PACKAGE.rglob("*.py"):
        if path.parent.name == "mq" and path.parent.parent == PACKAGE:
            continue
        found += [f"{path.relative_to(PACKAGE)}: {m}"
                  for m in DECLARATION.findall(path.read_text(encoding="utf-8"))]
    assert found == []
