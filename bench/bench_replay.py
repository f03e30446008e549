"""One replay, one speed (issue 23 item 5): the console's replay of a queue against
``mqconsole replay --queue`` on the same queue.

The queue (``APP.REPLAY`` on an embedded queue manager file in ``.bench/``) holds ``--messages``
messages (5,000 by default), read by the model's default activation specification; the rule
is ``position=1``. Figures, each the median of ``ROUNDS``:

* ``cli_s``: the whole ``mqconsole --embedded FILE replay --queue APP.REPLAY --endpoints E
  --fail position=1 --json`` process, start-up included;
* ``ops_s``: ``ops.replay.replay_queue`` in process, without and with the timeline the
  console steps through (``ops_timeline_s``);
* ``console_s``: the real console in a Textual pilot (120x40): from ``ctrl+o`` to the events
  on the screen;
* ``events``: the events of the replay (the default limit is 10,000).

Goal (issue 23): ``console_s`` at most 1.5x ``cli_s``. The load average is recorded before
and after: the machine is shared.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import time
from pathlib import Path

from _common import ROOT, emit, mqconsole_exe, run, warm_bytecode
from _console import bulk_fill, console_app, settle, wait_for

QUEUE = "APP.REPLAY"
ROUNDS = 3
BENCH_DATA = Path(os.environ.get("MQCONSOLE_BENCH_DATA") or ROOT / ".bench")
ENDPOINTS = f"""endpoints:
  - name: the model activation specification
    queue: {QUEUE}
    provider: mq_activation_spec
    stop_endpoint_on_failure: false
"""


def data_file(n: int) -> Path:
    from mqconsole.backends.embedded import create_queue_manager
    from mqconsole.mq.queue import QueueAttrs

    BENCH_DATA.mkdir(exist_ok=True)
    path = BENCH_DATA / f"replay-{n}.sqlite"
    if not path.exists():
        tmp = path.with_suffix(".building")
        for p in (tmp, Path(f"{tmp}-wal"), Path(f"{tmp}-shm")):
            p.unlink(missing_ok=True)
        qm = create_queue_manager(tmp)
        qm.define_queue(QueueAttrs(QUEUE, max_depth=n + 10))
        bulk_fill(qm, QUEUE, n)
        qm.close()
        tmp.rename(path)
    return path


def _load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def ops_times(path: Path) -> dict:
    from mqconsole.backends.open import open_embedded
    from mqconsole.model import EndpointsFile
    from mqconsole.ops import replay as rp
    from mqconsole.ops.doctor import default_endpoint

    qm = open_embedded(str(path))
    eps = EndpointsFile((default_endpoint(QUEUE),))
    plain, timeline, events = [], [], 0
    for _ in range(ROUNDS):
        t0 = time.perf_counter()
        rp.replay_queue(qm, QUEUE, eps, ["position=1"])
        t1 = time.perf_counter()
        events = len(rp.replay_queue(qm, QUEUE, eps, ["position=1"],
                                     timeline=True).result.events)
        t2 = time.perf_counter()
        plain.append(t1 - t0)
        timeline.append(t2 - t1)
    qm.close()
    return {"ops_s": statistics.median(plain), "ops_timeline_s": statistics.median(timeline),
            "events": events}


def console_times(path: Path) -> dict:
    from textual.widgets import Input

    from mqconsole.tui.screens.replay import ReplayScreen

    times: list[float] = []

    async def one() -> None:
        app = console_app(path, path.parent / "replay-home")
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(app, pilot)
            app.open_replay(QUEUE)
            await wait_for(app, pilot, lambda: isinstance(app.screen, ReplayScreen)
                           and bool(app.screen.query("#r-events")))
            app.screen.query_one("#r-fail", Input).value = "position=1"
            t0 = time.perf_counter()
            await pilot.press("ctrl+o")
            await wait_for(app, pilot, lambda: app.screen.view is not None, workers=False)
            await pilot.pause()
            times.append(time.perf_counter() - t0)

    for _ in range(ROUNDS):
        asyncio.run(one())
    return {"console_s": statistics.median(times)}


def cli_times(path: Path) -> dict:
    endpoints = path.parent / "replay-endpoints.yaml"
    endpoints.write_text(ENDPOINTS)
    args = [mqconsole_exe(), "--embedded", str(path), "replay", "--queue", QUEUE,
            "--endpoints", str(endpoints), "--fail", "position=1", "--json"]
    times = []
    for _ in range(ROUNDS):
        t0 = time.perf_counter()
        p = run(args)
        times.append(time.perf_counter() - t0)
        assert p.returncode == 0, p.stderr
    return {"cli_s": statistics.median(times)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=5_000)
    args = parser.parse_args()
    warm_bytecode()
    path = data_file(args.messages)
    out: dict = {"messages": args.messages, "load_before": _load()}
    out.update(cli_times(path))
    out.update(ops_times(path))
    out.update(console_times(path))
    out["console_over_cli"] = round(out["console_s"] / out["cli_s"], 2)
    out["load_after"] = _load()
    emit("replay", out)


if __name__ == "__main__":
    main()
