"""A Spark Connect client that runs ``mqconsole`` commands one after another in one process,
as ``run_cli`` runs them in the test process (tests/cli/conftest.py): ``main(args)`` with its
environment and streams, so that they share one Connect session on the server (each new
session starts Python workers of its own there). tests/audit/test_connect.py starts it in a
mount namespace of its own, where the snapshot folder is hidden.

Each line on stdin is a JSON object ``{"args": [...], "home": "..."}``; for each, one JSON
line on stdout: ``{"code": ..., "out": ..., "err": ...}``. It ends when its stdin ends.
"""

from __future__ import annotations

import json
import os
import sys


def main() -> int:
    from tests.cli.conftest import _in_process

    asks, replies = sys.stdin, sys.stdout  # (each command gets streams of its own)
    while line := asks.readline():
        ask = json.loads(line)
        env = {k: v for k, v in os.environ.items() if not k.startswith("MQCONSOLE_")}
        env["MQCONSOLE_HOME"] = ask["home"]
        done = _in_process(list(ask["args"]), env, None)
        replies.write(json.dumps({"code": done.code, "out": done.out, "err": done.err}) + "\n")
        replies.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
