"""Message files: IBM's dmpmqmsg/qload format (read and write) and amqsbcg output (read).

The public names live in :mod:`mqconsole.ops.dmpfile`; this package holds the parts:

- :mod:`.common` — the descriptor field table, :class:`DmpFileError`, :class:`DmpFileInfo`
- :mod:`.writer` — ``write_header``, ``write_message``, :class:`DmpWriter`, ``dump_messages``
- :mod:`.reader` — :class:`DmpReader`, ``read_messages``, ``load_file``
- :mod:`.lines` — numbered lines with push-back, shared by both readers
- :mod:`.amqsbcg` — the parser for the output of IBM's amqsbcg browse sample
- :mod:`.checker` — ``check_dmp_text``: every rule of the format, for files we write

See ``docs/files.md`` for what mqconsole writes and reads.
"""
