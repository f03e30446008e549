"""Helpers for the delivery-model tests: run a scenario written inline, read its log."""

from __future__ import annotations

import textwrap

import pytest

from mqconsole.model import ReplayResult, parse_scenario, replay


def run_yaml(text: str, **kw) -> ReplayResult:
    return replay(parse_scenario(textwrap.dedent(text)), **kw)


def brief(result: ReplayResult, *, keep: tuple[str, ...] = ()) -> list[tuple]:
    """The log as (t_ms, type, message-or-endpoint[, extra fields]) tuples."""
    out = []
    for e in result.events:
        row = (e["t_ms"], e["type"], e.get("message", e.get("endpoint")))
        extra = tuple(e[k] for k in keep if k in e)
        out.append(row + extra)
    return out


def queues(result: ReplayResult) -> dict[str, list[tuple[str, int]]]:
    return {q: [(m["message"], m["backout_count"]) for m in items]
            for q, items in result.final["queues"].items()}


@pytest.fixture
def run():
    return run_yaml
