"""Bulk audits on Apache Spark (``docs/audit.md``): a snapshot, then reports over it.

One module per job: ``java`` and ``session`` (finding Java and pyspark, starting Spark with
its output in a log file), ``columns`` (the snapshot's columns), ``rows`` (messages to Arrow
record batches), ``sources`` (what to read: queues of several profiles, saved files),
``datasource`` (the PySpark Python data source ``mqconsole``), ``export`` (the snapshot job).

Importing this package imports no pyspark: the modules that need it import it themselves, and
``session.require_spark()`` turns a missing Java or pyspark into one sentence (exit 3).
"""
