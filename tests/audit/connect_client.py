"""A client process that runs ``mqconsole`` commands one after another, as ``run_cli`` runs
them in the test process (tests/cli/conftest.py): ``main(args)`` with its environment and
streams, so that they share one Spark session: over Connect one Connect session on the
server (each new session starts Python workers of its own there: tests/audit/test_connect.py,
which starts it in a mount namespace of its own, where the snapshot folder is hidden); with
``--master spark://…`` one driver and one application on the cluster
(tests/audit/test_cluster.py).

Each line on stdin is a JSON object ``{"args": [...], "home": "..."}``; for each, one JSON
line on stdout: ``{"code": ..., "out": ..., "err": ..., "master": ...}``, ``master`` the
master of the classic SparkContext running in the client after the command (None when
none runs: a Connect client has none). It ends when its stdin ends. :class:`Client` is the
test's side.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _master() -> str | None:
    """The running classic SparkContext's master (pyspark not imported: none)."""
    if "pyspark" not in sys.modules:
        return None
    from pyspark import SparkContext

    context = SparkContext._active_spark_context
    return None if context is None else context.master


def main() -> int:
    from tests.cli.conftest import _in_process

    asks, replies = sys.stdin, sys.stdout  # (each command gets streams of its own)
    while line := asks.readline():
        ask = json.loads(line)
        env = {k: v for k, v in os.environ.items() if not k.startswith("MQCONSOLE_")}
        env["MQCONSOLE_HOME"] = ask["home"]
        done = _in_process(list(ask["args"]), env, None)
        replies.write(json.dumps({"code": done.code, "out": done.out, "err": done.err,
                                  "master": _master()}) + "\n")
        replies.flush()
    return 0


class Client:
    """This module as a process (under ``wrap``, e.g. ``unshare``): ``client(*args)`` runs
    ``mqconsole args`` there (its home ``home``) and gives its exit code, stdout, stderr
    (a ``Result``) and the master its Spark then runs on (:attr:`master`)."""

    def __init__(self, wrap: list[str], env: dict[str, str], home: Path, log: Path) -> None:
        self.home = home
        self.master: str | None = None
        with log.open("wb") as err:
            self.process = subprocess.Popen(
                [*wrap, sys.executable, "-m", "tests.audit.connect_client"], cwd=REPO,
                env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err, text=True)

    def __call__(self, *args: str):
        from tests.cli.conftest import Result

        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps({"args": args, "home": str(self.home)}) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()  # (a hang is pytest-timeout's to stop)
        assert line, f"the client ended (exit {self.process.wait()})"
        reply = json.loads(line)
        self.master = reply.pop("master")
        return Result(**reply)

    def close(self) -> int:
        assert self.process.stdin is not None
        self.process.stdin.close()
        return self.process.wait(timeout=300)


if __name__ == "__main__":
    sys.exit(main())
