"""Message files in IBM's dmpmqmsg/qload format, and amqsbcg output: the public API.

Write::

    with DmpWriter(path, qmgr="QM1", queue="APP.DLQ") as w:     # header written here
        for message in messages:
            w.write(message)                                     # w.count counts them
    dump_messages(path, messages, qmgr="QM1", queue="APP.DLQ")   # the same in one call
    write_header(fp, qmgr=..., queue=..., style="dmpmqmsg" | "qload", created=...)
    write_message(fp, message, index=None, body_style="X" | "S")

Read (dmpmqmsg and qload files of every variant, and amqsbcg output)::

    for message in read_messages(path_or_fp): ...                # one at a time
    messages = load_file(path)
    with DmpReader(path) as r:                                   # r.info: DmpFileInfo
        for message in r: ...                                    # r.warnings afterwards

Check a written file against every rule of the format: ``check_dmp_text(text)`` →
problems (empty when it conforms).

A file that breaks the format raises :class:`DmpFileError` (a ``ValueError``) whose text is
one sentence naming the file and line; a message the format cannot carry raises
:class:`DmpWriteError`. Details of the layout and of what maps to what: ``docs/files.md``.
"""

from __future__ import annotations

from .files.checker import check_dmp_file, check_dmp_text
from .files.common import FIELDS, DmpFileError, DmpFileInfo, format_ctime, parse_ctime
from .files.reader import DmpReader, load_file, read_file_info, read_messages, read_text
from .files.writer import (
    DmpWriteError,
    DmpWriter,
    descriptor_lines,
    dump_messages,
    header_text,
    write_header,
    write_message,
)

__all__ = [
    "FIELDS",
    "DmpFileError",
    "DmpFileInfo",
    "DmpReader",
    "DmpWriteError",
    "DmpWriter",
    "check_dmp_file",
    "check_dmp_text",
    "descriptor_lines",
    "dump_messages",
    "format_ctime",
    "header_text",
    "load_file",
    "parse_ctime",
    "read_file_info",
    "read_messages",
    "read_text",
    "write_header",
    "write_message",
]
