"""Audit columns from fields of JSON payloads (by default the payload's ``type``).

Settings (``plugins.settings.json_field`` in the mqconsole config)::

    fields: [type, order.id]    # default [type]; a dotted path reaches into objects
    max_bytes: 1048576          # larger payloads are not parsed (the value is null)

Each field becomes a string column of the audit snapshot named ``json_field_<path>`` (dots
as ``_``: ``json_field_type``, ``json_field_order_id``), and the report adds a
``by_json_field_<path>`` count. A payload that is not a JSON object, or lacks the field,
gives null. Columns are computed in Spark executors: on a cluster install this plugin as a
package (``pip install ./plugins/json_field``), not from a folder.
"""

from __future__ import annotations

import functools
import json
import re
from typing import Any

from mqconsole.mq.chain import parse_body_lenient
from mqconsole.plugins import AuditColumn, hookimpl, plugin_settings

__version__ = "1.0.0"
MQCONSOLE_API_VERSION = 1

DEFAULT_FIELDS = ("type",)
DEFAULT_MAX_BYTES = 1 << 20
_PATH = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")


def field_value(message, *, path: tuple[str, ...], max_bytes: int = DEFAULT_MAX_BYTES
                ) -> str | None:
    """The field at ``path`` of the message's JSON payload as text, or None."""
    payload = parse_body_lenient(message.md, message.body).payload
    if not payload or len(payload) > max_bytes or payload.lstrip()[:1] != b"{":
        return None
    try:
        value: Any = json.loads(bytes(payload).decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    for key in path:
        if not isinstance(value, dict) or key not in value:
            return None
        value = value[key]
    if value is None:
        return None
    if isinstance(value, str):
        return value
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


def columns_for(settings: dict[str, Any]) -> list[AuditColumn]:
    fields = settings.get("fields", list(DEFAULT_FIELDS))
    if isinstance(fields, str):
        fields = [fields]
    max_bytes = settings.get("max_bytes", DEFAULT_MAX_BYTES)
    if isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or max_bytes < 1:
        raise ValueError("plugins.settings.json_field.max_bytes must be a whole number of "
                         f"bytes above 0, not {max_bytes!r}")
    columns = []
    for field in fields:
        if not isinstance(field, str) or not _PATH.fullmatch(field):
            raise ValueError(f"plugins.settings.json_field.fields: {field!r} is not a field "
                             "path like type or order.id")
        path = tuple(field.split("."))
        columns.append(AuditColumn("_".join(path), "string", functools.partial(
            field_value, path=path, max_bytes=max_bytes)))
    return columns


@hookimpl
def mqconsole_audit_columns() -> list[AuditColumn]:
    return columns_for(plugin_settings())
