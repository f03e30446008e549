"""Settling a run that ended in doubt (``ops.indoubt``): ``resolve-in-doubt``, an
operation like every other change — validated before anything is asked, journaled, told to
the plugins — and the caution a move, copy or load shows when its last run ended in doubt
(the caution itself is ``ops.indoubt.doubt_cautions``, from ``Operation.cautions``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from mqconsole.ops.result import OperationResult

from .core import Description, OperationError, Step
from .kinds import check_queue

if TYPE_CHECKING:
    from mqconsole.backends.base import QueueManager
    from mqconsole.ops.journal import Journal, JournalEntry


def _qmgr(qm: QueueManager | None) -> str | None:
    try:
        return None if qm is None else qm.name
    except Exception:  # a broken connection: no doubt can be matched
        return None


@dataclass
class ResolveInDoubt:
    """Settle the in-doubt messages of the last ``of`` (``move``, ``copy``, ``load``) from
    ``source`` (a queue, or a load's file) to ``destination`` that the ``journal`` holds
    (``ops.indoubt.resolve``: a move's are removed from the source when found on the
    destination)."""

    journaled: ClassVar[bool] = True
    leaving_is_done: ClassVar[bool] = True  # an in-doubt message on one side only is settled
    of: str
    source: str
    destination: str
    journal: Journal | None
    dest_qm: QueueManager | None = None
    batch: int = 100
    doubt: JournalEntry | None = field(default=None, init=False)

    def describe(self) -> Description:
        where = self.destination if self.dest_qm is None \
            else f"{self.destination} on {_qmgr(self.dest_qm)}"
        options: dict[str, Any] = {"resolves": self.of, "batch": self.batch}
        if self.dest_qm is not None:
            options["destination_qmgr"] = _qmgr(self.dest_qm)
        if self.doubt is not None:
            options["in_doubt_of"] = self.doubt.op
        verb = "removing from" if self.of == "move" else "looking on"
        what = (f"settling the in-doubt messages of the last {self.of} from {self.source} to "
                f"{where}: {verb} {self.source if self.of == 'move' else where} those found "
                f"on {self.destination}")
        return Description(RESOLVE_KIND, what, source=self.source, destination=self.destination,
                           options=options)

    def validate(self, qm: QueueManager) -> None:
        from mqconsole.ops.indoubt import last_in_doubt

        if self.of != "load":
            check_queue(qm, self.source, "source")
        check_queue(self.dest_qm or qm, self.destination, "destination")
        if self.journal is not None:
            self.doubt = last_in_doubt(self.journal, operation=self.of, qmgr=_qmgr(qm),
                                       source=self.source, destination=self.destination,
                                       dest_qmgr=_qmgr(self.dest_qm))
        if self.doubt is None:
            raise OperationError(f"the last {self.of} from {self.source} to {self.destination} "
                                 "did not end in doubt (mqconsole journal): nothing to resolve")

    def execute(self, step: Step) -> OperationResult:
        from mqconsole.ops.indoubt import resolve

        if self.doubt is None:
            self.validate(step.qm)
        assert self.doubt is not None
        result = resolve(step.qm, self.source, self.destination, list(self.doubt.in_doubt),
                         remove=self.of == "move", dest_qm=self.dest_qm, batch=self.batch,
                         dry_run=step.dry_run, control=step.control)
        step.details.update(resolves=self.of, in_doubt_of=self.doubt.op,
                            in_doubt=len(self.doubt.in_doubt))
        if self.dest_qm is not None:
            step.details["destination_qmgr"] = _qmgr(self.dest_qm)
        step.extra.update(in_doubt=list(self.doubt.in_doubt), resolves=self.of)
        return result


RESOLVE_KIND = "resolve-in-doubt"


__all__ = ["RESOLVE_KIND", "ResolveInDoubt"]
