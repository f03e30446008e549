"""The site plugins' audit columns as ``--where`` fields, named as in the audit snapshot.

A plugin's audit column (``mqconsole_audit_columns``: ``AuditColumn(name, spark_type,
compute)``) is the snapshot's ``<plugin>_<name>`` column; the same name in ``--where``
computes the same value on each browsed message (``compute(message)``, run as its plugin),
so a report row ``by_<plugin>_<name>`` opens its messages in the browser:
``json_field_currency = 'EUR'``. Columns of a type the language cannot compare (dates, times,
maps, bytes) give no field; a column that raises on a message is a missing value there.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mqconsole.plugins.host import describe, operators_stop

from .where.fields import FIELDS, Field
from .where.kinds import BOOL, FLOAT, INT, STR

if TYPE_CHECKING:
    from mqconsole.plugins import PluginHost

_KINDS = {"string": STR, "int": INT, "integer": INT, "bigint": INT, "long": INT,
          "smallint": INT, "tinyint": INT, "boolean": BOOL, "double": FLOAT, "float": FLOAT}


def column_fields(host: PluginHost | None) -> tuple[Field, ...]:
    """One field per audit column of ``host``'s plugins that ``--where`` can compare."""
    if host is None:
        return ()
    taken = {f.name for f in FIELDS} | {a for f in FIELDS for a in f.aliases}
    out: list[Field] = []
    for registered in host.audit_columns():
        column = registered.column
        kind = _KINDS.get(column.spark_type.strip().lower())
        name = f"{registered.plugin}_{column.name}".lower()
        if kind is None or name in taken:
            continue
        taken.add(name)
        out.append(Field(name, kind, _getter(host, registered.plugin, column.compute),
                         f"audit column {column.name} of plugin {registered.plugin}",
                         needs_payload=True))
    return tuple(out)


def _getter(host: PluginHost, plugin: str, compute: Any):
    def get(view: Any) -> Any:
        try:
            with host.running(plugin, "audit column"):
                return compute(view.message)
        except BaseException as e:  # its sys.exit too: a value that cannot be read
            if operators_stop(e) or isinstance(e, Exception):
                raise
            raise RuntimeError(describe(e)) from e
    get.__name__ = f"get_{plugin}"
    return get


__all__ = ["column_fields"]
