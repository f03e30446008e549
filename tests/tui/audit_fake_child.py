"""A cheap stand-in for the audit's process (``mqconsole.audit.child``): the same JSON lines,
no Spark. Run as ``python audit_fake_child.py REPORT_JSON LOG --master M [--conf K=V]...``.

- ``report``: a status line, then the report in REPORT_JSON; a folder named ``slow`` waits
  for the console's cancel and answers "report cancelled"; a folder named ``die`` says why
  on stderr and ends (exit 3) without answering; a folder named ``noted`` notes a sentence
  first (as a snapshot whose queue changed while it was exported).
- ``export``: progress 0 of 251, then 200 of 251, a status, then ``{"rows": 251, "report":
  REPORT_JSON}``.
- ``queues_holding``: two queues.

Every request is appended to LOG (one JSON line each), the master (and the --conf
lines, when there are some) first; the end of the
input ends it (exit 0), as the real one does.
"""

from __future__ import annotations

import json
import sys
import threading
from pathlib import Path
from typing import TextIO


def main() -> int:
    report_file, log_file, _, master = sys.argv[1:5]
    conf = [value for flag, value in zip(sys.argv[5::2], sys.argv[6::2], strict=True)
            if flag == "--conf"]
    report = json.loads(Path(report_file).read_text(encoding="utf-8"))
    with open(log_file, "a", encoding="utf-8") as log:
        return serve(report, log, master, conf)


def serve(report: dict, log: TextIO, master: str, conf: list[str]) -> int:
    log.write(json.dumps({"master": master, **({"conf": conf} if conf else {})}) + "\n")
    log.flush()
    out_lock = threading.Lock()
    cancels: dict[int, threading.Event] = {}

    def tell(job_id: int, **fields: object) -> None:
        with out_lock:
            sys.stdout.write(json.dumps({"id": job_id, **fields}) + "\n")
            sys.stdout.flush()

    def slow(job_id: int) -> None:
        cancels[job_id].wait()
        tell(job_id, error="report cancelled", cancelled=True)

    for line in sys.stdin:
        message = json.loads(line)
        log.write(line)
        log.flush()
        if "cancel" in message:
            cancels[int(message["cancel"])].set()
            continue
        job_id, job = int(message["id"]), message["job"]
        cancels[job_id] = threading.Event()
        if job == "report":
            folder = message["folder"].rstrip("/").rsplit("/", 1)[-1]
            tell(job_id, status=f"reading the messages of {message['folder']}")
            if folder == "slow":
                threading.Thread(target=slow, args=(job_id,), daemon=True).start()
            elif folder == "noted":
                tell(job_id, note="APP.DLQ (QM1) changed during the export: 224 more rows "
                                  "than its depth")
                tell(job_id, result=report)
            elif folder == "die":
                print("java.lang.OutOfMemoryError: Java heap space", file=sys.stderr)
                sys.stderr.flush()
                return 3
            else:
                tell(job_id, result=report)
        elif job == "export":
            tell(job_id, progress=[0, 251], text="exporting")
            tell(job_id, progress=[200, 251], text="read 200: SYSTEM.DEAD.LETTER.QUEUE 200")
            tell(job_id, status="exported 251 messages; counting…")
            tell(job_id, result={"rows": 251, "report": report})
        elif job == "queues_holding":
            tell(job_id, result=[["QM1", "APP.ORDERS.BOQ", 3],
                                 ["QM1", "SYSTEM.DEAD.LETTER.QUEUE", 2]])
    return 0


if __name__ == "__main__":
    sys.exit(main())
