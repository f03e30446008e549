"""Acting on one marked message of a flooded queue (issue 23 item 1): the same on a queue of
1,000 and of 1,000,000 messages (``--sizes``), each in a fresh process of its own.

The queue (``APP.FLOOD``, on an embedded queue manager file in ``.bench/``) holds N
messages of about 20 bytes put packed in units of 20,000 (message i carries MsgId i). The
message acted on is one of the last ten, "deep" in the queue; each round takes another one
(the file is used up by one message a round). Figures, each the median of ``ROUNDS``:

* ``ops_plan_s`` / ``ops_move_s``: ``Operation(Move(...)).preview`` (the console's plan)
  and ``.run`` of a selection of one mark (the message's token, as the console marks it),
  in process, and ``ops_plan_move_s`` their sum;
* ``console_s``: the real console in a Textual pilot (120x40), the queue opened, ``End``,
  the message marked: from ``enter`` on the destination (``m`` asked it) through the plan,
  the confirmation (answered at once) and the move to the result on the screen ("key to
  result", the operator's answer excluded);
* ``cli_dry_run_s`` / ``cli_run_s``: the whole ``mqconsole --embedded FILE move APP.FLOOD
  APP.HOLD --msgid X --position P [--dry-run | --yes]`` process, start-up included;
* ``browsed``: messages browsed by the ops plan + move (0: found by its token).

The console's pilot helpers and the counting connection come from ``bench/_console.py``
(a bench script never imports the test suite). Each size's entry records the load average
(1, 5, 15 minutes) before and after it: the machine is shared. Goals (issue 23): at
1,000,000 within 2x the same at 1,000, and <= 1 s.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from _common import ROOT, emit, mqconsole_exe, run, warm_bytecode

FLOOD, HOLD = "APP.FLOOD", "APP.HOLD"
ROUNDS = 3
BENCH_DATA = Path(os.environ.get("MQCONSOLE_BENCH_DATA") or ROOT / ".bench")


def build(path: Path, n: int) -> None:
    from mqconsole.backends.embedded import create_queue_manager
    from mqconsole.mq.md import MQMD, OFFSETS
    from mqconsole.mq.queue import QueueAttrs

    tmp = path.with_suffix(".building")
    for p in (tmp, Path(f"{tmp}-wal"), Path(f"{tmp}-shm")):
        p.unlink(missing_ok=True)
    qm = create_queue_manager(tmp, dead_letter_queue="")
    qm.define_queue(QueueAttrs(FLOOD, max_depth=n + 10))
    qm.define_queue(QueueAttrs(HOLD, max_depth=n + 10))
    at = OFFSETS["msg_id"]
    packed = bytearray(MQMD(format="MQSTR", persistence=0).pack(ccsid=819))
    for first in range(1, n + 1, 20_000):
        page = []
        for i in range(first, min(n + 1, first + 20_000)):
            packed[at:at + 24] = i.to_bytes(24, "big")
            page.append((bytes(packed), b"message %d" % i))
        _, refused = qm.put_packed(FLOOD, page)
        if refused is not None:
            raise refused
        qm.commit()
    qm.close()
    tmp.rename(path)


def data_file(n: int) -> Path:
    BENCH_DATA.mkdir(exist_ok=True)
    path = BENCH_DATA / f"flood-{n}.sqlite"
    if not path.exists():
        build(path, n)
    return path


def _load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


# -- one size, in a child process ---------------------------------------------------------

def _deep(qm, k: int) -> tuple[bytes, bytes, int]:
    """The k-th message from the end still there: (token, MsgId, position)."""
    from mqconsole.backends.base import finds_messages

    depth = qm.inquire_queue(FLOOD).depth
    with qm.browse(FLOOD) as c:
        page = qm.page_at(FLOOD, depth - k, 1)
        m = page.messages[0]
        finder = finds_messages(c)
        finder.browse_token(m.token)
        return m.token, bytes(m.md.msg_id), finder.position_of_current()


def child_ops(path: str) -> dict:
    from _console import CountingQueueManager

    from mqconsole.backends.open import open_embedded
    from mqconsole.ops.operation import Move, Operation
    from mqconsole.ops.selection import Mark, Selection

    qm = open_embedded(path)
    plans, moves, browsed = [], [], 0
    for r in range(ROUNDS):
        token, msg_id, position = _deep(qm, 3 + r)
        sel = Selection(marks=frozenset([Mark(msg_id, token=token, position=position)]))
        counting = CountingQueueManager(qm)
        op = Operation(Move(FLOOD, HOLD, sel), journal=None)
        t0 = time.perf_counter()
        plan = op.preview(counting)
        t1 = time.perf_counter()
        done = op.run(counting)
        t2 = time.perf_counter()
        assert plan.counts["selected"] == 1 and done.counts["done"] == 1, (plan, done)
        plans.append(t1 - t0)
        moves.append(t2 - t1)
        browsed += counting.browsed[FLOOD]
    qm.close()
    return {"ops_plan_s": statistics.median(plans), "ops_move_s": statistics.median(moves),
            "ops_plan_move_s": statistics.median(p + m for p, m in zip(plans, moves,
                                                                       strict=True)),
            "browsed": browsed}


def child_console(path: str) -> dict:
    from _console import open_queue, settle, wait_for

    from mqconsole.backends.open import open_embedded
    from mqconsole.tui.app import MQConsoleApp
    from mqconsole.tui.context import REPO_THEMES, ProfileInfo, Settings
    from mqconsole.tui.screens.dialogs import ConfirmDialog, InputDialog, TextDialog
    from mqconsole.tui.widgets.message_list import MessageList

    home = Path(path).parent / "flood-home"
    home.mkdir(exist_ok=True)
    os.environ["MQCONSOLE_HOME"] = str(home)
    os.environ.pop("MQCONSOLE_CONFIG", None)
    times: list[float] = []

    async def one() -> None:
        app = MQConsoleApp(lambda: open_embedded(path),
                           profile=ProfileInfo(name="bench", read_only=False),
                           settings=Settings(refresh_seconds=0, themes_dirs=[REPO_THEMES],
                                             journal_path=home / "journal.jsonl",
                                             backup_dir=home / "backups", save_dir=home))
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(app, pilot)
            await open_queue(app, pilot, FLOOD)
            lst = app.screen.query_one(MessageList)
            await pilot.press("end")
            await wait_for(app, pilot, lambda: lst.cursor == app.screen.model.count - 1
                           and app.screen.model.has_row(lst.cursor))
            await pilot.press("up", "up", "space", "m")
            await wait_for(app, pilot, lambda: isinstance(app.screen, InputDialog))
            app.screen.query_one("Input").value = HOLD
            t0 = time.perf_counter()
            await pilot.press("enter")
            await wait_for(app, pilot, lambda: isinstance(app.screen, ConfirmDialog),
                           workers=False)
            await pilot.press("y")
            await wait_for(app, pilot, lambda: isinstance(app.screen, TextDialog),
                           workers=False)
            times.append(time.perf_counter() - t0)
            assert "Moved 1 of 1 message" in str(app.screen.body), str(app.screen.body)

    for _ in range(ROUNDS):
        asyncio.run(one())
    return {"console_s": statistics.median(times)}


def cli_times(path: Path) -> dict:
    from mqconsole.backends.open import open_embedded

    exe = mqconsole_exe()
    dry, real = [], []
    for r in range(ROUNDS):
        qm = open_embedded(str(path))
        _, msg_id, position = _deep(qm, 3 + r)
        qm.close()
        args = [exe, "--embedded", str(path), "move", FLOOD, HOLD, "--msgid", msg_id.hex(),
                "--position", str(position)]
        t0 = time.perf_counter()
        p = run([*args, "--dry-run"])
        t1 = time.perf_counter()
        assert p.returncode == 0, p.stderr
        q = run([*args, "--yes"])
        t2 = time.perf_counter()
        assert q.returncode == 0, q.stderr
        dry.append(t1 - t0)
        real.append(t2 - t1)
    return {"cli_dry_run_s": statistics.median(dry), "cli_run_s": statistics.median(real)}


def measure(n: int) -> dict:
    path = data_file(n)
    out: dict = {"messages": n, "load_before": _load()}
    env = dict(os.environ, PYTHONPATH=f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}")
    for child in ("ops", "console"):
        p = subprocess.run([sys.executable, __file__, "--child", child, str(path)],
                           capture_output=True, text=True, env=env, check=False)
        if p.returncode != 0:
            raise SystemExit(f"{child} at {n}: {p.stderr[-2000:]}")
        out.update(json.loads(p.stdout.strip().splitlines()[-1]))
    out.update(cli_times(path))
    out["load_after"] = _load()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,1000000")
    parser.add_argument("--child", nargs=2)
    args = parser.parse_args()
    if args.child:
        kind, path = args.child
        print(json.dumps(child_ops(path) if kind == "ops" else child_console(path)))
        return
    warm_bytecode()
    sizes = [int(s) for s in args.sizes.split(",")]
    results = [measure(n) for n in sizes]
    small, large = results[0], results[-1]
    ratios = {f"ratio_{k}": large[k] / small[k] for k in
              ("ops_plan_move_s", "console_s", "cli_dry_run_s", "cli_run_s") if small[k]}
    emit("flood", {"sizes": results, **ratios})


if __name__ == "__main__":
    main()
