"""The change journal: JSON lines appended safely by any number of processes.

The journal is ``journal.path`` (default ``<state folder>/journal.jsonl``,
:func:`mqconsole.paths.default_journal_path`), mode 0600, with its rotated files beside it
(``journal.<UTC time>.jsonl``, renamed aside past a size or an age: :class:`Rotation`).
Every record is one line of ASCII JSON starting with its ``time`` (UTC, milliseconds).

A change is written as it commits, so a killed process leaves a record of all it did::

    {"time":…,"record":"start","op":"9f2c…","operator":"alice","sudo_user":null,
     "profile":"prod","qmgr":"QM1","operation":"move","source":"APP.DLQ",
     "destinations":["APP.IN"],"details":{…},"dry_run":false}
    {"time":…,"record":"unit","op":"9f2c…","unit":1,"msgids":["414D51…",…],
     "destination":"APP.IN"}                              (before the unit's commit)
    {"time":…,"record":"commit","op":"9f2c…","unit":1}  (after it)
    …
    {"time":…,"record":"end","op":"9f2c…","committed":20000,"operator":…,
     "operation":"move",…,"msgids":[…],"outcomes":[…],"backup":null,"details":{…},
     "dry_run":false}

The end record holds the counts (``details``: selected, done, failed, skipped), every
failure, and the done messages no unit record holds (``committed`` says how many the
units hold), so it stays small however many messages moved. ``destinations`` replaces
``destination`` in a unit whose messages went to several queues (one per MsgId); a
delete's units name its ``backup`` file (complete before anything is removed), so an
interrupted delete still says where its messages are. A change stopped at a commit says so
in its end record's details: ``cancelled`` and ``stopped_by`` (``Ctrl-C``, ``SIGTERM``,
``escape``, ``the console closing``), ``stopped_early``, or the ``error`` that stopped it
(:meth:`JournalEntry.stopped`). A unit
without its commit record is a unit backed out, unless nothing of its operation follows
it: then the process died between the two and the unit is *in doubt* (check the queues);
so is the last unit without its commit record of a change whose end record says
``outcome_unknown`` (a commit MQ could not confirm: exit 5).
The unit record is the intent: a unit whose record cannot be written (a full disk) is
backed out by its engine, never committed (``Recorder.unit`` answers False), so every
message that moved is in a unit record, committed or in doubt, or in the end record.
An operation with a start and no end was *interrupted* (killed, or the machine stopped).

A dry run, and a change written before this format, is one record without ``record``::

    {"time":"2026-11-02T09:14:03.512Z","operator":"alice","sudo_user":null,
     "profile":"prod","qmgr":"QM1","operation":"move","source":"APP.DLQ",
     "destinations":["APP.IN"],"msgids":["414D51…"],
     "outcomes":[{"msgid":"414D51…","outcome":"done","destination":"APP.IN"}],
     "backup":null,"details":{},"dry_run":false}

Appending takes an exclusive ``flock`` and writes the whole line with one ``os.write``, so
lines never interleave; a line a crash left without its line end is ended first, so it
never swallows the next record, and a write that fails (disk full, ``ulimit -f``) is cut
back off. A write that fails raises :class:`JournalError` (exit code 6). Reading reports
and skips a torn or foreign line, keeping its neighbours, and puts each operation's
records back together as one :class:`JournalEntry` (``state``: complete or interrupted;
``in_doubt``: the ids of an unconfirmed last unit).
"""

from __future__ import annotations

from .entry import OUTCOMES, JournalEntry, Outcome, format_time, parse_time
from .pages import RecordIds
from .since import parse_since
from .writer import Journal, JournalError, Recorder, Rotation, rotated_files, signals_held

__all__ = ["OUTCOMES", "Journal", "JournalEntry", "JournalError", "Outcome", "RecordIds",
           "Recorder", "Rotation", "format_time", "parse_since", "parse_time", "rotated_files",
           "signals_held"]
