"""A Spark standalone cluster (on 127.0.0.1, or on ``host``: the run's is at
127.0.0.2, tests/conftest.py), started with pyspark's own ``spark-class``.

pip's pyspark has no ``sbin/start-master.sh``, but ``$SPARK_HOME/bin/spark-class`` runs the
master and the worker classes (spark.md). ``spark-class`` ends by ``exec``-ing java, so the
PIDs are the JVMs' own: both are stopped by PID (SIGTERM, then SIGKILL), never by name.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

START_BOUND = 900.0
"""How long a JVM of these may take to say it started: a hang guard, not a speed (a Connect
server took over 240 s at load 30 beside CPU hogs: make test-loaded, 2026-12-02)."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Cluster:
    url: str
    master: subprocess.Popen
    worker: subprocess.Popen
    logs: Path

    @property
    def pids(self) -> list[int]:
        return [self.master.pid, self.worker.pid]


def alive(pid: int) -> bool:
    """Whether a process of that id still runs (the tests check each JVM is gone)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def spark_home() -> Path:
    import pyspark

    return Path(pyspark.__file__).resolve().parent


def _wait_for(path: Path, words: str, proc: subprocess.Popen, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists() and words in path.read_text(errors="replace"):
            return
        if proc.poll() is not None:
            raise RuntimeError(f"{path.name}: exited {proc.returncode}: "
                               f"{path.read_text(errors='replace')[-2000:]}")
        time.sleep(0.5)
    raise TimeoutError(f"{path.name} did not say {words!r} in {timeout:.0f} s: "
                       f"{path.read_text(errors='replace')[-2000:]}")


def stop(proc: subprocess.Popen) -> None:
    """Stop one JVM by its PID: SIGTERM, then SIGKILL after 30 s."""
    if proc.poll() is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        os.kill(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)


ELSEWHERE = "127.0.0.2"
"""Where the run's cluster listens: on the loopback (Linux routes all of 127.0.0.0/8 there;
no other machine reaches it), yet not the address mqconsole takes for this machine
(``session.on_this_machine``: 127.0.0.1 and localhost), so a cluster there is run as one
elsewhere is: the settings a real cluster gets."""


@contextlib.contextmanager
def standalone_cluster(folder: Path, *, cores: int = 2, memory: str = "2g",
                       app_cores: int | None = None, timeout: float = START_BOUND,
                       host: str = "127.0.0.1") -> Iterator[Cluster]:
    """A master and one worker on ``host`` (by default 127.0.0.1; the worker offering
    ``cores`` and ``memory``; an application takes ``app_cores`` of them unless it says,
    all by default); stopped by PID when the block ends."""
    home = spark_home()
    spark_class = str(home / "bin" / "spark-class")
    env = {**os.environ, "SPARK_HOME": str(home), "SPARK_LOCAL_IP": host,
           "PYSPARK_PYTHON": sys.executable, "SPARK_WORKER_DIR": str(folder / "work"),
           "SPARK_LOG_DIR": str(folder), "SPARK_NO_DAEMONIZE": "1"}
    if app_cores is not None:  # (spark-class gives SPARK_MASTER_OPTS to the master's JVM)
        env["SPARK_MASTER_OPTS"] = f"-Dspark.deploy.defaultCores={app_cores}"
    port = free_port()
    url = f"spark://{host}:{port}"
    master_log, worker_log = folder / "master.log", folder / "worker.log"
    with master_log.open("wb") as out:
        master = subprocess.Popen(
            [spark_class, "org.apache.spark.deploy.master.Master", "--host", host,
             "--port", str(port), "--webui-port", str(free_port())],
            stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env)
    worker = None
    try:
        _wait_for(master_log, "I have been elected leader", master, timeout)
        with worker_log.open("wb") as out:
            worker = subprocess.Popen(
                [spark_class, "org.apache.spark.deploy.worker.Worker", "--host", host,
                 "--cores", str(cores), "--memory", memory, "--webui-port", str(free_port()),
                 url], stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                env=env)
        _wait_for(worker_log, "Successfully registered with master", worker, timeout)
        yield Cluster(url, master, worker, folder)
    finally:
        if worker is not None:
            stop(worker)
        stop(master)


@dataclass
class ConnectServer:
    url: str
    process: subprocess.Popen
    log: Path
    viewfs: tuple[str, Path] | None = None  # a viewfs:// URI only the server mounts, and where
    plugin: bool = False  # whether it runs mqconsole's plugin (tests/conftest.py)
    tasks: Path | None = None  # where its executors' probe writes (tests/audit/taskmarks.py)

    def started(self, timeout: float = START_BOUND) -> ConnectServer:
        """This server, once its log says it started (its process ended: RuntimeError)."""
        _wait_for(self.log, "Spark Connect server started", self.process, timeout)
        return self

    @property
    def app_id(self) -> str | None:
        """Its application's id on a standalone cluster (its log says it when connected)."""
        found = re.search(r"Connected to Spark cluster with app ID (app-[0-9-]+)",
                          self.log.read_text(errors="replace"))
        return found.group(1) if found else None


@contextlib.contextmanager
def connect_server(folder: Path, *, timeout: float = START_BOUND, master: str = "local[2]",
                   settings: Sequence[str] = (), wait: bool = True) -> Iterator[ConnectServer]:
    """A Spark Connect server on 127.0.0.1 (``master``: ``local[2]``, or a standalone
    cluster's ``spark://…``, whose worker runs the executors), started in the foreground with
    ``spark-submit --class …SparkConnectServer`` (what ``sbin/start-connect-server.sh --wait``
    runs), ``settings`` (``--jars``, ``--conf``...) added; its Python workers are this
    venv's. The block begins once the server says it started, or at once with ``wait=False``
    (the caller then waits with :meth:`ConnectServer.started`: its JVM starts meanwhile).
    Stopped by PID when the block ends."""
    home = spark_home()
    env = {**os.environ, "SPARK_HOME": str(home), "SPARK_LOCAL_IP": "127.0.0.1",
           "PYSPARK_PYTHON": sys.executable, "SPARK_LOG_DIR": str(folder)}
    port = free_port()
    log = folder / "connect.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [str(home / "bin" / "spark-submit"), "--class",
             "org.apache.spark.sql.connect.service.SparkConnectServer", "--name",
             "mqconsole-test-connect", "--master", master,
             "--conf", f"spark.connect.grpc.binding.port={port}",
             "--conf", "spark.connect.grpc.binding.address=127.0.0.1",
             "--conf", "spark.ui.enabled=false", "--conf", "spark.task.maxFailures=1",
             # two shuffle partitions, as the tests' own session (Spark's default is 200)
             "--conf", "spark.sql.shuffle.partitions=2", *settings],
            stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env)
    try:
        server = ConnectServer(f"sc://127.0.0.1:{port}", proc, log)
        yield server.started(timeout) if wait else server
    finally:
        stop(proc)
