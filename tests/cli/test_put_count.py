"""``put --count`` of any size (issue 28 item 10): ``put --count 99999999999 --dry-run``
grew 250 MB/s until the OOM killer took it. A count has an upper bound (MQ's largest
MAXDEPTH, 999,999,999: exit 2 past it, before anything), and a dry run of the largest
count lists the first copies and the rest in one step: its memory stays bounded."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import threading

from .conftest import MQCONSOLE, run_cli

MEMORY_CAP = 1 << 30  # address space: a plan growing without bound fails fast, not the machine
RSS_BOUND_KB = 400 * 1024


def _put(demo, home, *args: str) -> tuple[int, str, str, int]:
    """Exit code, stdout, stderr and the child's peak RSS (KiB) of one real invocation."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MQCONSOLE_")}
    env["MQCONSOLE_HOME"] = str(home)

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))

    out_file, err_file = home.parent / "out.txt", home.parent / "err.txt"
    with open(out_file, "wb") as out, open(err_file, "wb") as err:
        proc = subprocess.Popen([MQCONSOLE, "--embedded", str(demo), "put", "APP.AUDIT",
                                 *args], stdout=out, stderr=err, stdin=subprocess.DEVNULL,
                                env=env, preexec_fn=cap)
    watchdog = threading.Timer(300, proc.kill)  # a regression fails, never hangs
    watchdog.start()
    try:
        _pid, status, usage = os.wait4(proc.pid, 0)  # this child's own peak RSS
    finally:
        watchdog.cancel()
    proc.returncode = os.waitstatus_to_exitcode(status)
    return proc.returncode, out_file.read_text(), err_file.read_text(), usage.ru_maxrss


def test_the_dry_run_of_the_largest_count_has_bounded_memory(tmp_path, demo):
    code, out, err, rss = _put(demo, tmp_path / "home", "--text", "x", "--count",
                               "999999999", "--dry-run", "--json")
    assert code == 1, err  # most of them would not fit under the queue's MAXDEPTH
    doc = json.loads(out)
    assert doc["would_fail"] == 999_995_000 - 1
    assert doc["dry_run"] and doc["selected"] == 999_999_999 and doc["done"] == 0
    plan = doc["plan"]
    # the first 1,000 one by one, then those that fit APP.AUDIT (MAXDEPTH 5000), then the
    # rest, which would find it full (issue 28 item 17: put's dry run predicts too)
    assert len(plan) == 1002 and plan[0]["position"] == 1 and "would_fail" not in plan[999]
    assert plan[-2:] == [
        {"position": "1001-5000", "count": 4000, "msgid": "(new)", "destination": "APP.AUDIT"},
        {"position": "5001-999999999", "count": 999_995_000 - 1, "msgid": "(new)",
         "destination": "APP.AUDIT",
         "would_fail": {"reason": 2053, "reason_name": "MQRC_Q_FULL"}}]
    assert rss < RSS_BOUND_KB, f"peak RSS {rss} KiB"


def _put_here(demo, home, *args: str) -> tuple[int, str, str]:
    """Exit code, stdout and stderr of one invocation in this process (no memory to
    measure: tests/cli's ``run_cli``)."""
    r = run_cli("--embedded", str(demo), "put", "APP.AUDIT", *args, home=home)
    return r.code, r.out, r.err


def test_the_dry_run_says_how_many_would_be_put(tmp_path, demo):
    code, _out, err = _put_here(demo, tmp_path / "home", "--text", "x", "--count", "5000",
                                "--dry-run")
    assert code == 0, err
    assert "dry run: 5,000 of 5,000 selected messages would be put" in err


def test_a_count_past_the_bound_is_exit_2_before_anything(tmp_path, demo):
    code, out, err = _put_here(demo, tmp_path / "home", "--text", "x", "--count",
                               "99999999999", "--dry-run")
    assert code == 2 and out == ""
    assert err == ("mqconsole: a put's count is at most 999,999,999 (the most messages an MQ "
                   "queue holds, its largest MAXDEPTH), not 99,999,999,999\n")
