"""The hook specifications: the names and arguments sites' plugins implement.

Names and arguments are fixed (sites' plugins implement them) and documented one by one in
``docs/plugins.md``, the plugins' contract (a test fails when a hook is missing there).
Hooks run off the console's UI thread; ``mqconsole_check_put`` also runs in dry-run plans,
so it must have no side effects.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import pluggy

if TYPE_CHECKING:
    from mqconsole.mq.message import Message

    from .types import Action, AuditColumn, Decoded

PROJECT = "mqconsole"
hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)


@hookspec
def mqconsole_decode_payload(message: Message, payload: bytes) -> Decoded | None:
    """Decode a message's payload (the bytes after every MQ header) for an operator.

    Called when a message is shown (the console's Decoded tab, ``mqconsole show``).
    Return ``Decoded(title, text)``, or ``None`` when the payload is not yours.
    """


@hookspec
def mqconsole_check_put(operation: str, message: Message, destination: str) -> str | None:
    """Refuse a put: return one sentence saying why, or ``None`` to let it go.

    Called before each put of move, copy, resubmit, edit, load, put and the dead-letter
    handler, with the message exactly as it would be put, and in dry-run plans too.
    ``operation`` is the operation's kind (``move``, ``resubmit``, ...). All checks run;
    a refusal leaves that message where it was, counted as failed with the sentence.
    A check that raises refuses too (fail safe).
    """


@hookspec
def mqconsole_actions() -> list[Action]:
    """Actions this plugin offers: a list of ``Action(id, title, scope, dangerous, run)``.

    Called once at start-up. They appear in the console's command palette and as
    ``mqconsole action ID QUEUE``.
    """


@hookspec
def mqconsole_audit_columns() -> list[AuditColumn]:
    """Columns to add to the audit snapshot: ``AuditColumn(name, spark_type, compute)``.

    ``compute(message)`` runs inside Spark executors; the column is named
    ``<plugin>_<name>`` in the snapshot.
    """


@hookspec
def mqconsole_failure_rules() -> Mapping[str, Callable[[Mapping[str, Any]], bool]]:
    """Failure rules for the delivery model: name -> rule, used in scenarios as
    ``plugin: NAME``. A rule gets the delivery's facts and returns True when it fails."""


@hookspec
def mqconsole_operation_done(summary: Any) -> None:
    """Called after every operation (also dry runs, failures and cancels) with its
    summary (``mqconsole.ops.operation.Summary``: kind, counts, failures, exit code,
    ``to_json()``). For notifications; the return value is ignored."""
