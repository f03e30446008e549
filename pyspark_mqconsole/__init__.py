"""``spark.read.format("mqconsole")`` in any SparkSession, with no ``register`` call.

PySpark 4 registers by itself the ``DefaultSource`` of every importable top-level module
named ``pyspark_*`` the first time a session uses a Python data source
(``pyspark.sql.worker.lookup_data_sources``): installing mqconsole's ``[spark]`` extra
installs this one, so the ``mqconsole`` source reads embedded queue managers, saved files
and the profiles of mqconsole's configuration straight away (docs/audit.md). It is a face of
its own: it reads the configuration, which ``mqconsole.audit`` may not (import contracts).
``mqconsole.audit.datasource.register`` is still the way to give other connections or the
plugins' audit columns.
"""

from __future__ import annotations

from mqconsole.audit.datasource import MqconsoleDataSource


class DefaultSource(MqconsoleDataSource):
    """The ``mqconsole`` data source; a ``profile`` option may name a configured profile."""

    @classmethod
    def resolve_profile(cls, name: str) -> object | None:
        """The configuration's profile ``name`` as an executor opens it (no password: the
        executor reads its ``password_env``); ConfigError says why not."""
        from mqconsole.cli.backendspec import spec_of
        from mqconsole.config import load_config

        return spec_of(load_config().profile(name))


__all__ = ["DefaultSource"]
