"""A whole console session on a flooded dead-letter queue stays light (issue 23 item 3): the
console's resident memory at start-up, at its peak, and back at the queue list.

The real console (a Textual pilot, 120x40, in this process) on an embedded queue manager
whose dead-letter queue holds ``--messages`` messages (200,000 by default; each a dead-letter
header of one of nine reasons and destinations in front of a short payload; built once into
``.bench/`` and copied for each run, since the run changes it) goes through:

1. the queue list (``start_mb``: RSS once it is shown);
2. the dead-letter queue's messages, ``H``, a rules table forwarding the Q_FULL messages to
   ``APP.HOLD`` and ignoring the rest: the plan of all of them, ``ctrl+o``, the run, its
   summary, back to the queue list;
3. ``M`` on the dead-letter queue: a replay (its first 10,000 messages, the CLI's limit);
4. with ``--audit``: ``A`` on the dead-letter queue, ``ctrl+e``: an export of what is left on
   it through Spark (``local[2]``) and its report on screen, back to the queue list — the
   screen's jobs run in the audit's own process (``mqconsole/audit/child.py``, the console's
   default) with Spark's JVM under it, both counted apart (``children_mb``) while the
   screen is open, and ended when it closes;
5. ``J``: the journal, the handler's record opened (a page of its MsgIds), back;
6. back at the queue list, a garbage collection (``end_mb``).

RSS is read from ``/proc/self/status`` (VmRSS; the peak is VmHWM) after each step
(``steps``), split into the heap (``anon_mb``) and mapped libraries and files (``file_mb``);
beside it where the heap is — Python's object arenas and the blocks in use in them
(``pymalloc_*``), SQLite's own count (``sqlite_mb``), glibc's main heap in use and kept free
(``malloc_*``) — and the modules loaded. ``--trace`` adds what Python objects hold then
(``python_mb``, tracemalloc) and the files whose allocations grew most since start-up; on
glibc the end is measured again after ``malloc_trim(0)`` (``end_after_malloc_trim``). Goals
(issue 23): peak < 400 MB, ``end_mb`` within 20 % of ``start_mb``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import os
import shutil
import sys
import time
import tracemalloc
from pathlib import Path

from _common import ROOT, emit
from _console import console_app, open_queue, settle, wait_for

DLQ, HOLD = "SYSTEM.DEAD.LETTER.QUEUE", "APP.HOLD"
BENCH_DATA = Path(os.environ.get("MQCONSOLE_BENCH_DATA") or ROOT / ".bench")
REASONS = (2053, 2085, 2035, 2051, 2052, 2087, 2030, 2042, 2189)  # Q_FULL first
RULES = f"REASON(MQRC_Q_FULL) ACTION(FWD) FWDQ({HOLD}) HEADER(NO)\nACTION(IGNORE)\n"


def build(path: Path, n: int) -> None:
    from mqconsole.backends.embedded import create_queue_manager
    from mqconsole.mq.chain import add_dead_letter_header
    from mqconsole.mq.md import MQMD, OFFSETS
    from mqconsole.mq.queue import QueueAttrs

    tmp = path.with_suffix(".building")
    for p in (tmp, Path(f"{tmp}-wal"), Path(f"{tmp}-shm")):
        p.unlink(missing_ok=True)
    qm = create_queue_manager(tmp, dead_letter_queue=DLQ)
    qm.change_queue(DLQ, max_depth=n + 10)
    qm.define_queue(QueueAttrs(HOLD, max_depth=n + 10))
    for i in range(len(REASONS)):
        qm.define_queue(QueueAttrs(f"APP.QUEUE.{i}", max_depth=n + 10))
    variants = []
    for i, reason in enumerate(REASONS):
        md, body = add_dead_letter_header(MQMD(format="MQSTR", persistence=0),
                                          b'{"order": 1, "note": "flooded"}', reason=reason,
                                          dest_q_name=f"APP.QUEUE.{i}", dest_qmgr_name="QM1")
        variants.append((bytearray(md.pack(ccsid=819)), body))
    at = OFFSETS["msg_id"]
    for first in range(0, n, 20_000):
        page = []
        for i in range(first, min(n, first + 20_000)):
            packed, body = variants[i % len(variants)]
            packed[at:at + 24] = (i + 1).to_bytes(24, "big")
            page.append((bytes(packed), body))
        _, refused = qm.put_packed(DLQ, page)
        if refused is not None:
            raise refused
        qm.commit()
    qm.close()
    tmp.rename(path)


def fresh_copy(n: int, work: Path) -> Path:
    BENCH_DATA.mkdir(exist_ok=True)
    template = BENCH_DATA / f"session-dlq-{n}.sqlite"
    if not template.exists():
        build(template, n)
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    target = work / "qm.sqlite"
    shutil.copy(template, target)
    return target


def _malloc_trim():
    """glibc's ``malloc_trim`` (None elsewhere): hands freed heap back to the system."""
    import ctypes
    import ctypes.util

    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim
    except (OSError, AttributeError):
        return None


def status_mb(pid: int | str = "self") -> dict[str, float]:
    """VmRSS, VmHWM (the peak), RssAnon (the heap: Python's objects, SQLite's caches) and
    RssFile (the pages of loaded libraries and mapped files) of a process, in MB."""
    values = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, rest = line.partition(":")
        if key in ("VmRSS", "VmHWM", "RssAnon", "RssFile"):
            values[key] = round(int(rest.split()[0]) / 1024, 1)
    return values


def rss_mb() -> tuple[float, float]:
    """(VmRSS, VmHWM) of this process in MB."""
    values = status_mb()
    return values["VmRSS"], values["VmHWM"]


def children_rss_mb() -> float:
    """The resident memory of this process's children and theirs (the JVM Spark starts), MB
    (found by each process's parent in ``/proc/<pid>/stat``)."""
    parent_of: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, ValueError, IndexError):
                stat = (entry / "stat").read_text()
                parent_of[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    total, todo = 0.0, [os.getpid()]
    while todo:
        pid = todo.pop()
        for kid in [k for k, p in parent_of.items() if p == pid]:
            with contextlib.suppress(OSError, KeyError):
                total += status_mb(kid)["VmRSS"]
            todo.append(kid)
    return round(total, 1)


def heap_mb() -> dict[str, float]:
    """Where the heap is: Python's object arenas (pymalloc), what SQLite has allocated, and
    glibc's view (``mallinfo2``: in use, free but kept in its heaps, mapped apart), MB."""
    import ctypes
    import ctypes.util
    import re
    import tempfile

    out: dict[str, float] = {}
    with tempfile.TemporaryFile() as tmp:  # written to the C stderr: fd 2 caught for it
        sys.stderr.flush()
        saved = os.dup(2)
        os.dup2(tmp.fileno(), 2)
        try:
            sys._debugmallocstats()
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        tmp.seek(0)
        stats = tmp.read().decode("ascii", "replace")
    arenas = re.search(r"arenas \* \d+ bytes/arena\s*=\s*([\d,]+)", stats)
    used = re.search(r"# bytes in allocated blocks\s*=\s*([\d,]+)", stats)
    if arenas and used:  # Python's small objects: the arenas held, the blocks in use
        out["pymalloc_arenas_mb"] = round(int(arenas.group(1).replace(",", "")) / 2**20, 1)
        out["pymalloc_used_mb"] = round(int(used.group(1).replace(",", "")) / 2**20, 1)
    with contextlib.suppress(OSError, AttributeError):
        sqlite = ctypes.CDLL(ctypes.util.find_library("sqlite3") or "libsqlite3.so.0")
        sqlite.sqlite3_memory_used.restype = ctypes.c_int64
        out["sqlite_mb"] = round(sqlite.sqlite3_memory_used() / 2**20, 1)

    class Mallinfo2(ctypes.Structure):
        _fields_ = [(n, ctypes.c_size_t) for n in ("arena", "ordblks", "smblks", "hblks",
                                                    "hblkhd", "usmblks", "fsmblks",
                                                    "uordblks", "fordblks", "keepcost")]

    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.mallinfo2.restype = Mallinfo2
        info = libc.mallinfo2()
        out.update(malloc_in_use_mb=round((info.uordblks + info.hblkhd) / 2**20, 1),
                   malloc_free_kept_mb=round(info.fordblks / 2**20, 1))
    out["threads"] = len(os.listdir("/proc/self/task"))
    return out


def top_packages(names: set[str]) -> dict[str, int]:
    """How many of the modules ``names`` each top-level package has, most first."""
    from collections import Counter

    return dict(Counter(n.split(".")[0] for n in names).most_common(15))


async def session(path: Path, home: Path, steps: dict, found: dict, rounds: int = 1, *,
                  audit: bool = False) -> None:
    from textual.widgets import DataTable, Input

    from mqconsole.tui.screens.audit import AuditScreen
    from mqconsole.tui.screens.dialogs import ConfirmDialog, TextDialog
    from mqconsole.tui.screens.dlq import DlqHandlerScreen
    from mqconsole.tui.screens.journal import JournalScreen
    from mqconsole.tui.screens.journal_record import JournalRecordScreen
    from mqconsole.tui.screens.queues import QueuesScreen
    from mqconsole.tui.screens.replay import ReplayScreen

    def note(step: str, t0: float) -> None:
        gc.collect()
        mem = status_mb()
        steps[step] = {"rss_mb": mem["VmRSS"], "peak_mb": mem["VmHWM"],
                       "anon_mb": mem["RssAnon"], "file_mb": mem["RssFile"],
                       "modules": len(sys.modules), "children_mb": children_rss_mb(),
                       "seconds": round(time.perf_counter() - t0, 2)}
        steps[step].update(heap_mb())
        if tracemalloc.is_tracing():  # what Python objects hold, apart from the allocator
            steps[step]["python_mb"] = round(tracemalloc.get_traced_memory()[0] / 2**20, 1)

    async def to_queue_list() -> None:
        while not isinstance(app.screen, QueuesScreen):
            await pilot.press("escape")
            await settle(app, pilot)

    trim = _malloc_trim()
    steps_audit: dict[str, int] = {}
    found["audited_messages"] = steps_audit
    settings = {}
    if audit:  # Spark local[2], reading the queue manager file as the CLI's export does
        settings = dict(audit_master="local[2]", audit_dir=home,
                        audit_connection={"backend": "embedded", "path": str(path)})
    app = console_app(path, home, **settings)
    async with app.run_test(size=(120, 40)) as pilot:
        t0 = time.perf_counter()
        await settle(app, pilot)
        note("start", t0)
        modules_at_start = set(sys.modules)
        first = tracemalloc.take_snapshot() if tracemalloc.is_tracing() else None

        for n in range(rounds):
            suffix = "" if n == 0 else f"_round{n + 1}"
            t0 = time.perf_counter()
            rules = home / "session.rules"
            rules.write_text(RULES)
            await open_queue(app, pilot, DLQ)
            await pilot.press("H")
            await wait_for(app, pilot, lambda: isinstance(app.screen, DlqHandlerScreen))
            screen = app.screen
            screen.query_one("#d-rules", Input).value = str(rules)
            screen.query_one("#d-rules", Input).focus()
            await pilot.press("enter")
            await wait_for(app, pilot, lambda s=screen: s.plan is not None)
            note(f"handler_plan{suffix}", t0)
            t0 = time.perf_counter()
            await pilot.press("ctrl+o")
            await wait_for(app, pilot, lambda: isinstance(app.screen, ConfirmDialog))
            await pilot.press("y")
            await wait_for(app, pilot, lambda: isinstance(app.screen, TextDialog), workers=False)
            await pilot.press("enter")
            await settle(app, pilot)
            note(f"handler_run{suffix}", t0)
            screen = None  # this script's reference gone
            await to_queue_list()
            note(f"queue_list_after_handler{suffix}", time.perf_counter())

            t0 = time.perf_counter()
            app.open_replay(DLQ)
            await wait_for(app, pilot, lambda: isinstance(app.screen, ReplayScreen)
                           and bool(app.screen.query("#r-events")))
            await pilot.press("ctrl+o")
            await wait_for(app, pilot, lambda: getattr(app.screen, "view", None) is not None)
            note(f"replay{suffix}", t0)
            await to_queue_list()

            if audit:
                t0 = time.perf_counter()
                table = app.screen.query_one("#queues", DataTable)
                names = [str(table.get_row_at(i)[0]).strip() for i in range(table.row_count)]
                table.move_cursor(row=names.index(DLQ))
                await pilot.press("A")  # the audit of the queue under the cursor
                await wait_for(app, pilot, lambda: isinstance(app.screen, AuditScreen))
                audit_screen = app.screen
                audit_screen.query_one("#folder", Input).value = str(home / f"audit-{n}")
                await pilot.press("ctrl+e")
                await wait_for(app, pilot, lambda s=audit_screen: not s.running,
                               timeout=3600, workers=False)  # done, or failed (its status)
                exported = (audit_screen.report or {}).get("messages")
                if not exported:
                    raise RuntimeError("the audit exported nothing: "
                                       + str(audit_screen.query_one("#status").content))
                steps_audit[f"audit{suffix}"] = exported
                audit_screen = None
                await settle(app, pilot)
                note(f"audit{suffix}", t0)
                await to_queue_list()
                note(f"queue_list_after_audit{suffix}", time.perf_counter())

            t0 = time.perf_counter()
            await pilot.press("J")
            await wait_for(app, pilot, lambda: isinstance(app.screen, JournalScreen)
                           and app.screen.query_one("#journal").row_count > 0)
            await pilot.press("enter")
            await wait_for(app, pilot, lambda: isinstance(app.screen, JournalRecordScreen))
            await settle(app, pilot)
            note(f"journal_record{suffix}", t0)
            await to_queue_list()
            await settle(app, pilot)
            if n + 1 < rounds:
                note(f"queue_list{suffix or '_round1'}", time.perf_counter())
        for _ in range(3):
            gc.collect()
        note("end", time.perf_counter())
        found["imported_since_start"] = top_packages(set(sys.modules) - modules_at_start)
        if first is not None:  # the files whose allocations grew most since start-up
            grown = tracemalloc.take_snapshot().compare_to(first, "filename")[:12]
            found["grown_since_start"] = {
                str(Path(d.traceback[0].filename)).split("site-packages/")[-1]:
                round(d.size_diff / 2**20, 2) for d in grown}
        if trim is not None:  # what the C allocator keeps of what Python freed
            trim(0)
            note("end_after_malloc_trim", time.perf_counter())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=200_000)
    parser.add_argument("--rounds", type=int, default=1,
                        help="go through the session this many times (does the end grow?)")
    parser.add_argument("--audit", action="store_true",
                        help="also an audit export and report of the dead-letter queue from "
                        "the console (Spark local[2], in the audit's own process and its "
                        "JVM: counted apart as children_mb)")
    parser.add_argument("--trace", action="store_true",
                        help="also say what Python objects hold at each step (tracemalloc: "
                        "slower, and its own memory counts in RSS)")
    args = parser.parse_args()
    if args.trace:
        tracemalloc.start()
    work = BENCH_DATA / "session-run"
    path = fresh_copy(args.messages, work)
    load_before = [round(x, 2) for x in os.getloadavg()]
    steps: dict = {}
    found: dict = {}
    t0 = time.perf_counter()
    asyncio.run(session(path, work / "home", steps, found, args.rounds, audit=args.audit))
    start, end = steps["start"]["rss_mb"], steps["end"]["rss_mb"]
    emit("session_rss", {
        "messages": args.messages, "load_before": load_before,
        "load_after": [round(x, 2) for x in os.getloadavg()],
        "seconds": round(time.perf_counter() - t0, 1),
        "start_mb": start, "peak_mb": max(s["peak_mb"] for s in steps.values()),
        "end_mb": end, "end_over_start": round(end / start, 2), "steps": steps,
        "rounds": args.rounds, "audit": args.audit, **found})


if __name__ == "__main__":
    main()
