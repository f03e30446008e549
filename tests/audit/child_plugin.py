"""A site plugin installed as a module (imported by name): one audit column, for
test_child.py's recipes."""

from __future__ import annotations

from mqconsole.plugins.types import AuditColumn


def _length(message) -> int:
    return len(message.body)


def mqconsole_audit_columns() -> list[AuditColumn]:
    return [AuditColumn("body_length", "bigint", _length)]
