"""A probe in the Spark Connect server's executors (tests/conftest.py's ``spark_connect``):
every Python worker there that reads a partition of the ``mqconsole`` data source first
writes a file ``ran-<pid>-<n>`` into a folder of the server's (hidden from the Connect
client in tests/audit/test_connect.py), saying which partition it read, its process id and
its ancestors' command lines as /proc showed them then (worker, pyspark's daemon, up to
the executor's JVM). Only a task run there can write one: the proof that an export over
Connect was read on the server's executors, by processes of its application.

The probe is a ``sitecustomize`` on the executors' ``PYTHONPATH``
(``spark.executorEnv.PYTHONPATH``): pyspark's daemon imports it when it starts, before it
forks the workers, so each worker has the wrapped reader. The wrapper only adds the file;
the read is the reader's own.
"""

from __future__ import annotations

import itertools
import json
import os
from pathlib import Path
from typing import Any

PREFIX = "ran-"


def sitecustomize(folder: Path) -> str:
    """The text of the ``sitecustomize.py`` that installs the probe, writing into
    ``folder`` (a failure to install it is written there too, for the test to show)."""
    return ("try:\n"
            "    from tests.audit.taskmarks import install\n"
            f"    install({str(folder)!r})\n"
            "except Exception as e:\n"
            "    import os\n"
            f"    with open(os.path.join({str(folder)!r}, f'failed-{{os.getpid()}}'), 'w') as f:\n"
            "        f.write(repr(e))\n")


def ancestry(pid: int, most: int = 4) -> list[tuple[int, list[str]]]:
    """``pid`` and its ancestors, each with its command line, up to the first JVM (an
    executor's, for a task's worker: nothing above it is recorded) or ``most`` of them."""
    out: list[tuple[int, list[str]]] = []
    while pid > 1 and len(out) < most:
        try:
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            break
        out.append((pid, [a.decode(errors="replace") for a in argv if a]))
        if argv and Path(argv[0].decode(errors="replace")).name == "java":
            break
        parent = [line for line in status.splitlines() if line.startswith("PPid:")]
        pid = int(parent[0].split()[1]) if parent else 0
    return out


_count = itertools.count()


def _mark(folder: str, source: Any) -> None:
    pid = os.getpid()
    name = f"{PREFIX}{pid}-{next(_count)}"
    text = json.dumps({"pid": pid, "source": source.to_json(), "ancestors": ancestry(pid)})
    part = os.path.join(folder, f".{name}")
    with open(part, "w") as f:
        f.write(text)
    os.replace(part, os.path.join(folder, name))  # whole, or not there


def install(folder: str) -> None:
    """Wrap ``MqconsoleReader.read``: a mark, then the reader's own read."""
    from mqconsole.audit.datasource import MqconsoleReader

    original = MqconsoleReader.read

    def read(self, partition):
        _mark(folder, partition.source)
        yield from original(self, partition)

    MqconsoleReader.read = read  # type: ignore[method-assign]


def marks(folder: Path) -> dict[str, dict]:
    """The marks written so far, by file name."""
    return {p.name: json.loads(p.read_text()) for p in folder.glob(f"{PREFIX}*")}


def failures(folder: Path) -> list[str]:
    """What a probe that could not install itself wrote."""
    return [p.read_text() for p in folder.glob("failed-*")]
