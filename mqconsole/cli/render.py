"""Text renderings of ops documents for the terminal (every value made safe first)."""

from __future__ import annotations

import json
from typing import Any

from mqconsole.mq.names import reason_label
from mqconsole.mq.payload import hex_dump, one_line, safe_text
from mqconsole.ops.views import md_lines


def _kv(pairs: dict[str, Any], indent: str = "  ") -> list[str]:
    if not pairs:
        return []
    width = max(len(k) for k in pairs)
    out = []
    for key, value in pairs.items():
        if isinstance(value, dict | list):
            value = json.dumps(value, ensure_ascii=True, default=str)
        out.append(f"{indent}{key.ljust(width)}  {safe_text(str(value))}")
    return out


def format_show_text(doc: dict[str, Any], *, hex_of: bytes | None = None,
                     hex_note: str | None = None) -> str:
    """``mqconsole show`` without --json: MQMD, headers, then the payload (text or hex dump;
    ``hex_of``: a hex dump of these bytes instead, under ``hex_note``)."""
    lines = ["MQMD"]
    lines += _kv(dict(md_lines(doc.get("md", {}))))  # names before numbers, as the console
    for h in doc.get("headers", []):
        h = dict(h)
        lines.append("")
        lines.append(str(h.pop("type", "header")))
        if "reason_name" in h and isinstance(h.get("reason"), int):
            # the name before the number, as the console's Headers tab (mq.names.reason_label)
            h.pop("reason_name")
            h["reason"] = reason_label(h["reason"])
        folders = h.pop("folders", None)
        lines += _kv(h)
        for f in folders or []:
            lines.append(f"  folder {safe_text(str(f.get('name', '')))}: "
                         f"{safe_text(str(f.get('content', '')))}")
    if doc.get("header_error"):
        lines += ["", f"header error: {safe_text(str(doc['header_error']))}"]
    if doc.get("truncated"):
        lines += ["", f"truncated: {safe_text(str(doc['truncated'].get('note', '')))}"]
    p = doc.get("payload", {})
    lines.append("")
    lines.append(f"Payload  format {safe_text(str(p.get('format', '')).strip()) or '(none)'}  "
                 f"ccsid {p.get('ccsid')}  encoding {p.get('encoding')}  "
                 f"length {p.get('length')}  kind {p.get('kind')}")
    if p.get("note"):
        lines.append(f"  ({safe_text(str(p['note']))})")
    if hex_of is not None:
        if hex_note:
            lines.append(f"  ({hex_note})")
        lines.append(hex_dump(hex_of, ccsid=p.get("ccsid")))
    elif p.get("text") is not None:
        lines.append(safe_text(p["text"]))
    else:
        lines.append(hex_dump(bytes.fromhex(p.get("hex", ""))))
    for d in doc.get("decoded", []):  # plugins' text is payload data too: made safe
        lines.append("")
        lines.append(f"Decoded by plugin {safe_text(str(d['plugin']))}: "
                     f"{one_line(str(d['title']))}")
        lines += [f"  {safe_text(line)}" for line in str(d["text"]).splitlines()]
    return "\n".join(lines)
