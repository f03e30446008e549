"""Units of work: MQCMIT and what its failure means, MQBACK."""

from __future__ import annotations

from mqconsole.mq.errors import (
    COMMIT_OUTCOME_UNKNOWN_REASONS,
    CommitOutcomeUnknown,
    MQError,
)
from mqconsole.mq.names import reason_name
from mqconsole.mq.reasons import MQRC_BACKED_OUT

from .calls import Calls
from .hints import HINTS, UNKNOWN_HINTS


class UnitsOfWork(Calls):
    """Commit and backout."""

    def commit(self) -> None:
        """MQCMIT, and what its failure means (docs/real-mq.md, "Commit outcomes"):

        * 2003: backed out instead (MQError 2003; the unit of work is over);
        * 2009, 2018, 2548, 2549: it may have committed (``CommitOutcomeUnknown``);
        * anything else: MQ keeps the unit of work open, so MQBACK is issued here; the error
          is raised once MQBACK succeeded (the unit of work is over, nothing of it
          happened). When MQBACK fails as well the unit of work stays marked open (a later
          ``backout()`` or ``close()`` tries again) and the outcome is unknown.
        """
        what = "commit"
        with self._call(what):
            try:
                self._qmgr.commit()
            except self.lib.MQMIError as exc:
                reason, comp = exc.reason, exc.comp
                if reason == MQRC_BACKED_OUT:
                    self._uow = False
                    raise MQError(MQRC_BACKED_OUT, "commit failed: the unit of work was backed out "
                                        "instead (nothing of it happened)",
                                  completion=comp) from exc
                if reason in COMMIT_OUTCOME_UNKNOWN_REASONS:
                    self._uow = False  # the connection is gone, and its unit of work with it
                    raise CommitOutcomeUnknown(
                        reason, f"commit: {UNKNOWN_HINTS.get(reason, HINTS.get(reason, ''))}"
                        " — MQ cannot tell whether the unit of work was committed",
                        completion=comp) from exc
                try:
                    self._qmgr.backout()
                except self.lib.MQMIError as back:
                    raise CommitOutcomeUnknown(
                        reason, f"commit failed ({reason_name(reason)}, {reason}) and the "
                        f"backout after it failed too ({reason_name(back.reason)}, "
                        f"{back.reason}): the unit of work is still open and its outcome "
                        "unknown", completion=comp) from exc
                self._uow = False
                raise MQError(reason, f"commit failed ({HINTS.get(reason, 'see the reason')}"
                                      "); the unit of work was backed out (nothing of it "
                                      "happened)", completion=comp) from exc
            self._uow = False

    def backout(self) -> None:
        """MQBACK; the unit of work stays marked open until an MQBACK succeeds."""
        with self._call("back out"):
            self._qmgr.backout()
            self._uow = False
