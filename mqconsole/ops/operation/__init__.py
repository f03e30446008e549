"""The operation: every change an operator makes, as one unit, for every face.

Move, copy, resubmit, delete, save (--remove), edit, load, put, queue define, queue set,
plugin actions and a dead-letter handler run (:class:`DlqPass`) each go through one
:class:`Operation`::

    describe  what: kind, source, selection, destination, options  (confirmations, journal)
    validate  bad input, as one sentence, before anything is asked or changed
    plan      a dry run: per message what would happen and why, plugins' checks included
    run       progress and cancel; per message done / failed (reason) / skipped
    journal   one entry, always, written by the operation whatever the outcome
    summary   counts, failures with their reasons, the exit code; plugins' operation_done

How a face drives one (the CLI in the foreground, the console in a worker)::

    from mqconsole.ops.operation import Move, Operation

    op = Operation(Move("APP.DLQ", "APP.IN", selection, batch=100),
                   journal=journal, profile="prod", plugins=host)   # host: a PluginHost
    op.validate(qm)                       # OperationError / MQError: report, exit 2 …
    if confirmed(op.describe().what):     # "moving every message from APP.DLQ to APP.IN"
        summary = op.run(qm, progress=on_progress, cancel=event)   # or op.plan(qm)
    render(summary)                       # summary.result, .counts, .failures, .exit_code

``run`` re-raises an error that stopped the operation before it had a result (after the
journal entry and ``operation_done``): faces report it as any other error. A console runs
``op.run`` on a connection of the worker's own; ``cancel`` (a ``threading.Event``) stops at
the next unit-of-work boundary. Plugins' put checks are called only when a plugin has one
(``PluginHost.has_checks``), so the fast paths stay as they are without plugins.

A new kind is a small class in :mod:`.kinds` (``describe``/``validate``/``execute``) and one
line in each face.
"""

from __future__ import annotations

from mqconsole.ops.indoubt import doubt_cautions

from .core import VERBS, Description, Kind, Operation, OperationError, Step, Summary
from .creating import Put, QueueDefine
from .dlqpass import DlqPass, keep_running
from .kinds import (
    Copy,
    Delete,
    Edit,
    Load,
    Move,
    PluginAction,
    QueueSet,
    Resubmit,
    Save,
    Transfer,
    check_queue,
    destination_problem,
    header_kept,
)
from .settling import ResolveInDoubt

__all__ = [
    "VERBS", "Copy", "Delete", "Description", "DlqPass", "Edit", "Kind", "Load", "Move",
    "Operation", "OperationError", "PluginAction", "Put", "QueueDefine", "QueueSet",
    "ResolveInDoubt", "Resubmit",
    "Save", "Step",
    "Summary", "Transfer", "check_queue", "destination_problem",
    "doubt_cautions", "header_kept", "keep_running",
]
