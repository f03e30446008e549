"""Throughput of the dead-letter handler next to ``resubmit`` of the same messages.

N dead-letter messages (default 100,000; 1 KiB bodies behind a 172-byte MQDLH, persistent,
dead-lettered with MQRC_Q_FULL towards five application queues) are processed, each round
on a fresh copy of the same queue manager file, by:

* ``dlq_in_process``: one pass of a five-rule table (``ops.operation.DlqPass``, as the CLI
  and the console run it: the operation, the attempts file, the report), where every
  message is tried against the first four rules and RETRYed by the fourth — the work of a
  resubmit (header removed, put to the header's destination, got under the cursor) plus
  the table;
* ``resubmit_in_process``: ``ops.operation.Resubmit`` of every message (the same puts and
  gets) with the same messages per unit of work (``--batch``, default 100);
* ``dlq_cli`` and ``resubmit_cli``: the whole ``mqconsole --embedded FILE dlq-handler
  --rules FILE --once --yes --json`` and ``mqconsole --embedded FILE resubmit DLQ --all
  --yes --json`` processes (start-up, journal of N outcomes, output).

Rounds alternate the two so that the machine's drift hits both; each round's ratio
(handler / resubmit) and the median of rounds are the figures (goal: >= 0.8), of wall time
and of CPU time (the process's own, or the child's: steadier than wall time when other
work shares the machine and its disk).
``--profile`` prints the top functions of an in-process handler pass on stderr. The JSON
has the load average before and after (the machine may be shared: the ratios are the
figures). The queue manager files go under ``--dir`` (default: the worktree's ``.bench/``,
gitignored) and are deleted at the end.

    python bench/bench_dlq_handler.py            # 100,000 messages, 3 rounds, JSON on stdout
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

from _common import (
    BYTECODE_NOTE,
    ROOT,
    Timer,
    emit,
    mqconsole_exe,
    profile_of,
    run,
    warm_bytecode,
)
from bench_move import fresh

from mqconsole.backends.base import Context
from mqconsole.backends.embedded import create_queue_manager
from mqconsole.backends.open import open_embedded
from mqconsole.mq.chain import add_dead_letter_header
from mqconsole.mq.md import MQMD
from mqconsole.mq.message import Message
from mqconsole.mq.queue import QueueAttrs
from mqconsole.ops.dlq.rules import parse_table
from mqconsole.ops.operation import DlqPass, Operation, Resubmit
from mqconsole.ops.selection import Selection

DLQ = "SYSTEM.DEAD.LETTER.QUEUE"
DESTINATIONS = [f"APP.IN{i}" for i in range(1, 6)]
OTHERS = ["DEADQ.SECURITY", "APP.DEADQ", "IGNORED.DEAD.QUEUE"]
TABLE = """\
* five rules: every message is tried against the first four, RETRYed by the fourth
INPUTQ(' ') RETRYINT(60) WAIT(NO)
REASON(MQRC_NOT_AUTHORIZED) ACTION(FWD) FWDQ(DEADQ.SECURITY) HEADER(YES)
REASON(MQRC_PUT_INHIBITED) ACTION(RETRY) RETRY(5)
DESTQ(APP.LEGACY.*) ACTION(FWD) FWDQ(APP.DEADQ) HEADER(NO)
REASON(MQRC_Q_FULL) DESTQ(APP.IN*) ACTION(RETRY) RETRY(5)
ACTION(FWD) FWDQ(IGNORED.DEAD.QUEUE) HEADER(YES)
"""


def build(path: Path, n: int, body: bytes) -> None:
    qm = create_queue_manager(path, name="BENCH")
    for q in (*DESTINATIONS, *OTHERS):
        qm.define_queue(QueueAttrs(name=q, max_depth=10_000_000))
    qm.change_queue(DLQ, max_depth=10_000_000)
    for i in range(n):
        md = MQMD(format="MQSTR", ccsid=1208, persistence=1, priority=5,
                  msg_id=b"BENCH" + i.to_bytes(19, "big"), user_identifier="bench")
        md, data = add_dead_letter_header(md, body, reason=2053,
                                          dest_q_name=DESTINATIONS[i % len(DESTINATIONS)],
                                          dest_qmgr_name="BENCH", put_date="20261125",
                                          put_time=f"{i % 24:02d}{i % 60:02d}0000")
        qm.put(DLQ, Message(md, data), context=Context.SET_ALL, syncpoint=True)
        if i % 1000 == 999:
            qm.commit()
    qm.commit()
    qm.close()


def _check(qm, n: int) -> None:
    assert qm.inquire_queue(DLQ).depth == 0
    assert sum(qm.inquire_queue(q).depth for q in DESTINATIONS) == n


def dlq_in_process(path: Path, rules: Path, n: int, batch: int, attempts: Path) -> float:
    qm = open_embedded(path)
    op = Operation(DlqPass(parse_table(rules.read_text()), str(rules), once=True,
                           batch=batch, attempts_file=str(attempts)), journal=None)
    op.validate(qm)
    cpu = time.process_time()
    with Timer() as t:
        summary = op.run(qm)
    cpu = time.process_time() - cpu
    assert summary.result.done == n and not summary.result.failed, summary.to_json()["counts"]
    _check(qm, n)
    qm.close()
    return n / t.seconds, n / cpu


def resubmit_in_process(path: Path, n: int, batch: int) -> float:
    qm = open_embedded(path)
    op = Operation(Resubmit(DLQ, Selection.build(all_=True), batch=batch), journal=None)
    op.validate(qm)
    cpu = time.process_time()
    with Timer() as t:
        summary = op.run(qm)
    cpu = time.process_time() - cpu
    assert summary.result.done == n and not summary.result.failed, summary.counts
    _check(qm, n)
    qm.close()
    return n / t.seconds, n / cpu


def _env(home: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MQCONSOLE_")}
    env["MQCONSOLE_HOME"] = str(home)
    return env


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def dlq_cli(path: Path, rules: Path, n: int, batch: int, home: Path) -> tuple[float, float]:
    cpu = _children_cpu()
    with Timer() as t:
        p = run([mqconsole_exe(), "--embedded", str(path), "dlq-handler", "--rules",
                 str(rules), "--once", "--yes", "--batch", str(batch), "--json"],
                env=_env(home))
    cpu = _children_cpu() - cpu
    assert p.returncode == 0, p.stderr[-2000:]
    assert f'"done": {n}' in p.stdout, p.stdout[:500]
    return n / t.seconds, n / cpu


def resubmit_cli(path: Path, n: int, batch: int, home: Path) -> tuple[float, float]:
    cpu = _children_cpu()
    with Timer() as t:
        p = run([mqconsole_exe(), "--embedded", str(path), "resubmit", DLQ, "--all", "--yes",
                 "--batch", str(batch), "--json"], env=_env(home))
    cpu = _children_cpu() - cpu
    assert p.returncode == 0, p.stderr[-2000:]
    assert f'"done": {n}' in p.stdout, p.stdout[:500]
    return n / t.seconds, n / cpu


def profile(template: Path, rules: Path, work: Path, batch: int, top: int = 30) -> str:
    path = fresh(template, work / "profile.sqlite")
    qm = open_embedded(path)
    op = Operation(DlqPass(parse_table(rules.read_text()), str(rules), once=True,
                           batch=batch, attempts_file=str(work / "profile-attempts.sqlite")),
                   journal=None)
    try:
        return profile_of(lambda: op.run(qm), top)
    finally:
        qm.close()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--messages", type=int, default=100_000)
    ap.add_argument("--batch", type=int, default=100)
    ap.add_argument("--repeat", type=int, default=3, help="rounds of each measurement")
    ap.add_argument("--no-cli", action="store_true", help="in process only")
    ap.add_argument("--profile", action="store_true",
                    help="also print a cProfile of an in-process handler pass on stderr")
    ap.add_argument("--dir", type=Path, default=ROOT / ".bench" / "dlq_handler",
                    help="where the queue manager files go (deleted at the end)")
    args = ap.parse_args()
    n, batch = args.messages, args.batch
    body = bytes(range(256)) * 4
    args.dir.mkdir(parents=True, exist_ok=True)
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(dir=args.dir) as d:
        work = Path(d)
        rules = work / "five.rules"
        rules.write_text(TABLE)
        template = work / "template.sqlite"
        with Timer() as fill:
            build(template, n, body)
        warm_bytecode()
        # per round: (messages per second of wall time, messages per CPU second)
        rates: dict[str, list[tuple[float, float]]] = {"dlq": [], "resubmit": [],
                                                       "dlq_cli": [], "resubmit_cli": []}
        for r in range(args.repeat):
            rates["dlq"].append(dlq_in_process(fresh(template, work / f"d{r}.sqlite"), rules,
                                               n, batch, work / f"att{r}.sqlite"))
            rates["resubmit"].append(resubmit_in_process(
                fresh(template, work / f"r{r}.sqlite"), n, batch))
            if not args.no_cli:
                rates["dlq_cli"].append(dlq_cli(fresh(template, work / f"dc{r}.sqlite"),
                                                rules, n, batch, work / f"home-dc{r}"))
                rates["resubmit_cli"].append(resubmit_cli(
                    fresh(template, work / f"rc{r}.sqlite"), n, batch, work / f"home-rc{r}"))
            for f in work.glob("[dr]*.sqlite*"):
                f.unlink()
        if args.profile:
            print(profile(template, rules, work, batch), file=sys.stderr)

    def ratios(a: str, b: str, cpu: int = 0) -> list[float]:
        return [round(x[cpu] / y[cpu], 3) for x, y in zip(rates[a], rates[b], strict=True)]

    def per_s(key: str, cpu: int = 0) -> list[int]:
        return [round(x[cpu]) for x in rates[key]]

    figures: dict = {
        "messages": n, "batch": batch, "rules": 5, "fill_seconds": round(fill.seconds, 1),
        "dlq_in_process_per_s": per_s("dlq"),
        "resubmit_in_process_per_s": per_s("resubmit"),
        "ratio_in_process": ratios("dlq", "resubmit"),
        "ratio_in_process_median": statistics.median(ratios("dlq", "resubmit")),
        "dlq_in_process_per_cpu_s": per_s("dlq", 1),
        "resubmit_in_process_per_cpu_s": per_s("resubmit", 1),
        "cpu_ratio_in_process": ratios("dlq", "resubmit", 1),
        "cpu_ratio_in_process_median": statistics.median(ratios("dlq", "resubmit", 1)),
        "goal": ">= 0.8",
        "load_average_before": [round(x, 1) for x in load_before],
    }
    if not args.no_cli:
        figures.update({
            "dlq_cli_per_s": per_s("dlq_cli"),
            "resubmit_cli_per_s": per_s("resubmit_cli"),
            "ratio_cli": ratios("dlq_cli", "resubmit_cli"),
            "ratio_cli_median": statistics.median(ratios("dlq_cli", "resubmit_cli")),
            "dlq_cli_per_cpu_s": per_s("dlq_cli", 1),
            "resubmit_cli_per_cpu_s": per_s("resubmit_cli", 1),
            "cpu_ratio_cli": ratios("dlq_cli", "resubmit_cli", 1),
            "cpu_ratio_cli_median": statistics.median(ratios("dlq_cli", "resubmit_cli", 1)),
            "note": BYTECODE_NOTE,
        })
    figures["load_average_after"] = [round(x, 1) for x in os.getloadavg()]
    emit("dlq_handler", figures)


if __name__ == "__main__":
    main()
