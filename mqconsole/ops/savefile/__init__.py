"""Saving queues to dmpmqmsg files and loading files onto queues (on top of ``ops.dmpfile``),
one module per job: ``publish.py`` (a file written beside its target, fsynced and published
by a link that never overwrites; the files a save must never replace; backup names),
``save.py`` (browsing the selected messages into a file; what identifies a message between
a browse and a get) and ``load.py`` (checking a file whole, then putting its messages under
syncpoint; ranges, what is already on the queue, the command that loads the rest).

The names below are re-exported so ``from mqconsole.ops.savefile import …`` keeps working.
"""

from __future__ import annotations

from .load import (
    DEFAULT_BATCH,
    MAX_REFUSALS_IN_A_ROW,
    FileCheck,
    check_file,
    load_to_queue,
    parse_range,
    present_on,
    range_problem,
    resume_command,
)
from .publish import (
    NEVER_OVERWRITTEN,
    TargetExistsError,
    UnsafeTargetError,
    backup_file_name,
    check_new_target,
    new_backup_path,
    new_target_problem,
    refuse_unsafe_target,
    remove_stale_partials,
    write_file_safely,
    write_messages_file,
    write_new_file,
)
from .save import SaveReport, iter_selected, message_key, save_queue, save_selected

__all__ = [
    "DEFAULT_BATCH",
    "MAX_REFUSALS_IN_A_ROW",
    "NEVER_OVERWRITTEN",
    "FileCheck",
    "SaveReport",
    "TargetExistsError",
    "UnsafeTargetError",
    "backup_file_name",
    "check_file",
    "check_new_target",
    "iter_selected",
    "load_to_queue",
    "message_key",
    "new_backup_path",
    "new_target_problem",
    "parse_range",
    "present_on",
    "range_problem",
    "refuse_unsafe_target",
    "remove_stale_partials",
    "resume_command",
    "save_queue",
    "save_selected",
    "write_file_safely",
    "write_messages_file",
    "write_new_file",
]
