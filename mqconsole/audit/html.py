"""``audit report --html FILE``: one self-contained page for a ticket or an email.

No script, no web font, no link: the tables and their horizontal bars are HTML and inline
CSS, so the page reads the same offline and years later. Every value is escaped (queue
names and application names come from the messages): control bytes (ESC, BEL, ...) shown
as the text output shows them (``\\x1b``), then HTML's special characters.
"""

from __future__ import annotations

from html import escape as _html_escape
from typing import Any

from mqconsole.audit.present import TOP_ROWS, extremes, headline, tables
from mqconsole.mq.payload import safe_text


def escape(value: object) -> str:
    """A value from the messages as HTML text: controls made visible, markup escaped."""
    return _html_escape(safe_text(str(value)))

STYLE = """
body { font: 14px/1.4 system-ui, sans-serif; margin: 2em; color: #222; }
h1 { font-size: 1.4em; } h2 { font-size: 1.1em; margin-top: 1.6em; }
table { border-collapse: collapse; }
th, td { text-align: left; padding: 2px 10px 2px 0; vertical-align: middle; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
td.bar { width: 320px; }
div.bar { background: #3b6ea8; height: 0.9em; min-width: 1px; }
p.none, td.more { color: #777; }
tr.total td { border-top: 1px solid #999; font-weight: 600; }
code { font-size: 0.95em; }
"""


def render_html(report: dict[str, Any], *, title: str = "MQ audit",
                top: int | None = TOP_ROWS, notes: list[str] | None = None) -> str:
    """The report as one HTML page with its tables and bar charts: each count with its
    share of the messages, each list's total, the first ``top`` rows and how many more."""
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             f"<title>{escape(title)}</title><style>{STYLE}</style></head><body>",
             f"<h1>{escape(title)}</h1>", f"<p>{escape(headline(report))}</p>"]
    parts += [f'<p class="note"><b>note</b>: {escape(text)}</p>' for text in notes or ()]
    for label, text in extremes(report):
        parts.append(f"<p><b>{escape(label)}</b>: <code>{escape(text)}</code></p>")
    for table in tables(report, top=top):
        parts.append(f"<h2>{escape(table.title)}</h2>")
        if not table.rows:
            parts.append('<p class="none">none</p>')
            continue
        largest = max(table.counts) if table.counts else 0
        head = "".join(f"<th>{escape(h)}</th>" for h in table.headers)
        parts.append(f"<table><tr>{head}<th>%</th><th></th></tr>")
        for row, count in zip(table.rows, table.counts, strict=True):
            cells = "".join(f"<td>{escape(c)}</td>" for c in row)
            width = 0.0 if largest <= 0 else 100.0 * count / largest
            parts.append(f'<tr>{cells}<td class="n">{count:,}</td>'
                         f'<td class="n">{escape(table.share(count))}</td><td class="bar">'
                         f'<div class="bar" style="width:{width:.1f}%"></div></td></tr>')
        span = len(table.headers) - 1
        if table.more:
            parts.append(f'<tr><td class="more" colspan="{span + 3}">… {table.more:,} more '
                         f'(the JSON report, --json, lists every row)</td></tr>')
        parts.append(f'<tr class="total"><td colspan="{span}">total</td>'
                     f'<td class="n">{table.total:,}</td>'
                     f'<td class="n">{escape(table.share(table.total))}</td><td></td></tr>')
        parts.append("</table>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"
