"""The console's filter (/) and the CLI's --where give the same matches on the same queue
(issue 27): one embedded queue manager file, payloads in UTF-8, EBCDIC (CCSIDs 500 and 037),
Latin-1, UTF-16 and binary, some dead-lettered; the console filtered in a pilot, the CLI
invoked on the same file (in this process, as tests/cli's ``run_cli`` runs it)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mqconsole.mq.chain import add_dead_letter_header
from mqconsole.mq.md import MQMD
from mqconsole.mq.message import Message
from mqconsole.mq.queue import QueueAttrs
from tests.cli.conftest import run_cli

from .conftest import open_queue, settle, wait_for

QUEUE = "APP.SEARCH"
TEXTS = ["an order 4711 for you", "ORDER 4711", "no orders today", "order 47", "a" * 300 + "!",
         "!" + "a" * 300, "Bestellung für Müller: order 4711", "order4711"]
CODECS = [(1208, "utf-8"), (500, "cp500"), (37, "cp037"), (819, "latin-1"),
          (1200, "utf-16-be")]
EXPRESSIONS = [
    "text ~ 'order 4711'",
    "payload ~ '(?i)ORDER \\d+'",
    "text ~ '(a|aa)+$'",
    "text ~ '\\border\\b' and reason = Q_FULL",
    "text !~ 'order'",
    "body ~ 'Müller' or text ~ '^!'",
]


def _fill(qm) -> None:
    qm.define_queue(QueueAttrs(name=QUEUE, max_depth=1000))
    n = 0
    for text in TEXTS:
        for ccsid, codec in CODECS:
            data = text.encode(codec, "replace")
            md = MQMD(format="MQSTR", ccsid=ccsid, encoding=273 if ccsid == 1200 else 546)
            if n % 3 == 0:
                md, data = add_dead_letter_header(md, data, reason=2053 if n % 2 else 2085,
                                                  dest_q_name="APP.ORDERS")
            qm.put(QUEUE, Message(md, data), syncpoint=False)
            n += 1
    qm.put(QUEUE, Message(MQMD(format="", ccsid=1208), b"\x00\x01order 4711\xff\xfe"),
           syncpoint=False)  # binary: its text is missing, whatever it holds


def _cli(path: Path, home: Path, expr: str) -> list[int]:
    r = run_cli("--embedded", str(path), "browse", QUEUE, "--where", expr, "--json",
                home=home)
    assert r.code == 0, r.err
    return [m["position"] for m in r.json]


@pytest.mark.parametrize("read_first", [True, False], ids=["filtered-read", "selected"])
@pytest.mark.parametrize("expr", EXPRESSIONS)
async def test_the_console_filter_and_the_cli_select_the_same(make_app, qm, demo_file,
                                                             tmp_path, monkeypatch, expr,
                                                             read_first):
    """Both routes of the console: a queue read to its end is filtered from what was read;
    a longer one (here: every queue) is browsed again with the filter, the embedded
    queue manager testing the facts and the payload's literal in SQLite."""
    if not read_first:
        from mqconsole.tui.screens import messages

        monkeypatch.setattr(messages, "AUTO_READ", 0)
    _fill(qm)
    cli = _cli(demo_file, tmp_path / "cli-home", expr)
    assert cli  # each expression selects something here
    app = make_app()
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(app, pilot)
        await open_queue(app, pilot, QUEUE)
        await settle(app, pilot)
        await pilot.press("slash")
        app.screen.query_one("#filter-input").value = expr
        await pilot.press("enter")
        await wait_for(app, pilot, lambda: app.screen.model.where_text == expr
                       and app.screen.model.done)
        model = app.screen.model
        console = [model.row(i).position for i in range(model.count)]
        await pilot.press("q")
        await pilot.pause()
    assert console == cli
