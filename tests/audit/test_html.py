"""The HTML page and the text tables of the report (mqconsole/audit/html.py, present.py):
shares and totals, the first rows of a long list and how many more. No Spark."""

from __future__ import annotations

import re

from mqconsole.audit.html import render_html
from mqconsole.audit.present import TOP_ROWS, tables
from mqconsole.cli.commands.audit_cmd import render_text
from tests.audit.reportdata import AS_OF, make_rows, oracle


def _report() -> dict:
    report = oracle(make_rows(300, seed=9), AS_OF)
    report["by_put_application"] = [{"name": f"APP{i:03}", "count": 100 - i}
                                    for i in range(40)]
    return report


def test_each_table_has_shares_a_total_and_the_first_rows_with_n_more() -> None:
    report = _report()
    page = render_html(report)
    apps = page[page.index("By put application"):]
    apps = apps[:apps.index("</table>")]
    assert apps.count('<div class="bar"') == TOP_ROWS
    assert "APP024" in apps and "APP025" not in apps
    assert f"… {40 - TOP_ROWS} more (the JSON report, --json, lists every row)" in apps
    total = sum(100 - i for i in range(40))
    assert re.search(rf'<tr class="total"><td colspan="1">total</td><td class="n">{total:,}'
                     rf'</td><td class="n">{100 * total / report["messages"]:.1f}%</td>', apps)
    first = f'<td class="n">100</td><td class="n">{100 * 100 / report["messages"]:.1f}%</td>'
    assert first in apps
    # by queue: every message is in one queue, so the total is all of them, 100%
    queues = page[page.index("Messages by queue"):]
    queues = queues[:queues.index("</table>")]
    assert f'<td class="n">{report["messages"]:,}</td><td class="n">100.0%</td>' in queues


def test_tables_keep_every_row_unless_asked_and_json_is_untouched() -> None:
    report = _report()
    full = {t.key: t for t in tables(report)}
    cut = {t.key: t for t in tables(report, top=10)}
    assert len(full["by_put_application"].rows) == 40 and full["by_put_application"].more == 0
    assert len(cut["by_put_application"].rows) == 10 and cut["by_put_application"].more == 30
    assert cut["by_put_application"].total == full["by_put_application"].total
    assert len(report["by_put_application"]) == 40  # the report itself (--json) keeps all


def test_shares_of_nothing_and_of_a_little() -> None:
    report = oracle([], AS_OF)
    page = render_html(report)
    assert page.count("<table>") == 1  # the five age buckets, at zero
    assert '<td class="n">0</td><td class="n">-</td>' in page
    part = next(tables({"messages": 100_000, "by_queue": [
        {"qmgr": "Q", "queue": "A", "count": 1, "bytes": 1}]}))
    assert part.share(1) == "<0.1%" and part.share(50_000) == "50.0%"


def test_control_bytes_from_messages_are_escaped_as_in_the_text_output():
    rows = make_rows(40)
    for row in rows[:10]:
        row["queue"] = "APP.\x1b[31mRED\x07"
        row["put_appl_name"] = "evil\x1b]0;title\x07<b>"
    report = oracle(rows, AS_OF)
    page = render_html(report)
    text = render_text(report)
    for raw in ("\x1b", "\x07", "\x9b", "title\x07<b>"):
        assert raw not in page
    assert "\x1b" not in text and "\x07" not in text
    assert "APP.\\x1b[31mRED\\x07" in text and "APP.\\x1b[31mRED\\x07" in page
    assert "evil\\x1b]0;title\\x07&lt;b&gt;" in page
