"""Fixtures every folder shares: embedded queue managers made to order.

``make_qm(*queues, ...)`` opens an embedded queue manager (in RAM unless ``path`` is
given) with the named local queues defined, and closes every one it made when the test
ends. A test folder's ``qm`` fixture is then one line: what differs is only which queues
(and attributes) it needs. Contract tests and the console's tests keep their own ``qm``
(a backend parameter, a demo file), built on the same helper where they can be.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from mqconsole.backends.embedded import EmbeddedQueueManager
from mqconsole.backends.open import open_embedded
from mqconsole.mq.queue import QueueAttrs
from mqconsole.plugins import testing as plugin_testing
from tests.support import collector, jvms, terminals, tiers
from tests.support.examples import load_profile

load_profile()  # HYPOTHESIS_PROFILE: ci (the default) or dev; before any test module
collector.collect_less()  # the cyclic GC less often (tests/support/collector.py)
jvms.quick_start()  # the JVMs the tests start compile less (tests/support/jvms.py)


@pytest.hookimpl(wrapper=True)
def pytest_collection_modifyitems(config: pytest.Config,
                                  items: list[pytest.Item]) -> Iterator[None]:
    """Every test's tiers (spark, cluster, subprocess, pty, mqi, slow) as markers, from its
    folder, module and fixtures (before ``-m`` selects by them), and then, of the tests
    selected, the heaviest modules first, shared out among the xdist workers under
    worksteal (every worker collects, and orders alike): see tests/support/tiers.py."""
    tiers.mark(items)
    yield
    tiers.heaviest_first(items, tiers.worksteal_workers(config))


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node) -> None:
    """xdist's, in the controller: the worker learns the run's ``--dist`` (for the order)."""
    tiers.tell_the_worker(node)


def pytest_collection_finish(session: pytest.Session) -> None:
    """What collection made (modules, test items) is left out of later GC passes."""
    collector.freeze_the_collected()


@pytest.fixture(autouse=True)
def _tiers_hold(request: pytest.FixtureRequest) -> Iterator[None]:
    """In a run that leaves the subprocess tier out, a test starting a process fails; in any
    run, a test outside the pty tier opening a pseudo-terminal fails."""
    yield from tiers.forbid_processes(request)


terminal = terminals.terminal
pty_console = terminals.pty_console
"""The two ways a test opens a pseudo-terminal, which put it in the pty tier
(tests/support/terminals.py)."""


@pytest.fixture(autouse=True)
def _ctrl_c_as_a_shell_gives_it() -> None:
    """Each test starts with Ctrl-C as an operator's shell gives a command: Python's own
    handler, the signal not blocked. A process started by a test inherits an ignored or
    blocked SIGINT; an xdist worker was seen with SIGINT ignored after other tests (a
    mqconsole it started then never answered Ctrl-C: tests/cli/test_journal_signals.py)."""
    import signal
    import threading

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})

MakeQM = Callable[..., EmbeddedQueueManager]
RAM = "/dev/shm" if os.access("/dev/shm", os.W_OK | os.X_OK) else None
"""Where ``make_qm(copy_of=...)`` puts its copies (None: the temp folder)."""


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """A test marked ``capabilities_off_too`` that uses ``make_qm`` runs twice: on the
    embedded queue manager as it is, and with every optional capability of
    backends/base.py switched off (tests/support/plain.py), as the MQI backend is — so the
    fallback paths are proven by the same test (issue 22 item 12)."""
    mark = metafunc.definition.get_closest_marker("capabilities_off_too")
    # (a test of a capability itself says capabilities_off_too(False))
    if "make_qm" in metafunc.fixturenames and mark is not None and \
            (not mark.args or mark.args[0]):
        metafunc.parametrize("capabilities", ["all", "off"], indirect=True)


@pytest.fixture
def capabilities(request: pytest.FixtureRequest) -> str:
    """``all`` (the embedded queue manager as it is) or ``off`` (``plain``)."""
    return getattr(request, "param", "all")


@pytest.fixture
def make_qm(capabilities: str) -> Iterator[MakeQM]:
    """``make_qm("SRC", "DST", max_depth=100_000, path=None, name="QM1", principal=None,
    demo=False, copy_of=None)``: queues by name (each with ``attrs``) or as ``QueueAttrs``;
    ``copy_of`` a queue manager file built once (a module's filled template): a private
    copy of it in RAM, opened, as cheap as an empty one. In a test marked
    ``capabilities_off_too`` it also runs with every optional capability off."""
    opened: list[EmbeddedQueueManager] = []
    folders: list[str] = []

    def make(*queues: str | QueueAttrs, path: Path | str | None = None, name: str = "QM1",
             principal: str | None = None, demo: bool = False, copy_of: Path | None = None,
             **attrs: object) -> EmbeddedQueueManager:
        if copy_of is not None:  # (in RAM, as ":memory:" is: no fsync at its checkpoints)
            folders.append(tempfile.mkdtemp(prefix="mqconsole-test-", dir=RAM))
            path = shutil.copy(copy_of, Path(folders[-1]) / "qm.sqlite")
        qm = open_embedded(":memory:" if path is None else path, create=path is not None,
                           name=name, principal=principal)
        opened.append(qm)
        if demo:
            from mqconsole.ops.demo import build_demo
            build_demo(qm)
        for q in queues:
            qm.define_queue(q if isinstance(q, QueueAttrs) else QueueAttrs(q, **attrs))
        if capabilities == "off":
            from tests.support.plain import plain

            return plain(qm)
        return qm

    yield make
    for qm in reversed(opened):
        qm.close()
    for folder in folders:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def qm(make_qm: MakeQM) -> EmbeddedQueueManager:
    """An empty queue manager QM1 in RAM (its dead-letter queue only); folders and modules
    override it with the queues they need."""
    return make_qm()


@pytest.fixture(scope="session")
def spark_log(tmp_path_factory) -> Path:
    """The log file of the test process's SparkSession (the ``spark`` fixture's): the JVM's
    output and pyspark's error logging go there, as an audit command's go to its own."""
    from mqconsole.audit.session import SparkSettings

    return SparkSettings(log_dir=tmp_path_factory.mktemp("spark-log")).log_file


@pytest.fixture(scope="session")
def spark(spark_log: Path):
    """One SparkSession per test process (per xdist worker): ``local[2]``, two shuffle
    partitions, its JVM output in :func:`spark_log`. The console and the CLI run in process
    (tests/cli's ``run_cli``) reuse it: ``start_session`` gives back the running session on
    the same master (or any local one for the default master)."""
    from mqconsole.audit.session import SparkSettings, start_session, stop_session

    stop_session()  # one a test started without this fixture writes another log: ours now
    session = start_session(SparkSettings(master="local[2]", log_dir=spark_log.parent,
                                          shuffle_partitions=2))
    yield session
    session.stop()


@pytest.fixture(scope="session")
def spark_cluster(tmp_path_factory):
    """One Spark standalone cluster (a master and a worker) per test process, shared by the
    tests that run on a cluster and by :func:`spark_connect`'s server; both JVMs are stopped
    by PID when the run ends, and the run fails if either outlives it. It listens on
    :data:`~tests.audit.cluster.ELSEWHERE` (127.0.0.2), a loopback address mqconsole does not
    take for this machine (``session.on_this_machine`` is false: every test on it gets a
    real cluster's settings), which no other machine reaches: a master and a worker without
    authentication accept any job, and are not put on the machine's network for the run.
    The worker offers 4 cores and 4 GB (an offer, not a reservation) and an application takes
    2 cores, as a 2-core worker gave: the Connect server's and a test's run side by side."""
    from tests.audit.cluster import ELSEWHERE, alive, standalone_cluster

    folder = tmp_path_factory.mktemp("cluster")
    with standalone_cluster(folder, cores=4, memory="4g", app_cores=2,
                            host=ELSEWHERE) as cluster:
        yield cluster
    assert not any(alive(pid) for pid in cluster.pids), "a cluster JVM outlived its stop"


@pytest.fixture(scope="session")
def built_plugin(tmp_path_factory) -> Path | None:
    """mqconsole's Spark Connect plugin, built once per test process with this machine's
    javac (``mqconsole audit connect-plugin``); None where there is no JDK (the tests that
    need it say so: :func:`store_plugin_jar`)."""
    from mqconsole.audit.java import SparkUnavailable
    from mqconsole.audit.storeplugin import build_jar

    try:
        return build_jar(tmp_path_factory.mktemp("plugin") / "mqconsole-connect.jar")
    except SparkUnavailable:
        return None


@pytest.fixture
def store_plugin_jar(built_plugin: Path | None) -> Path:
    """The plugin's jar; the test is skipped, with the reason, where no JDK can build it."""
    if built_plugin is None:
        pytest.skip("no Java compiler (a JDK's javac) here to build the Connect plugin")
    return built_plugin


@pytest.fixture(scope="session")
def spark_connect(spark_cluster, built_plugin, tmp_path_factory):
    """One Spark Connect server per test process, on :func:`spark_cluster` (its executor
    on the cluster's worker), shared by every test that runs over Connect; stopped
    by PID when the run ends, and the run fails if it outlives that. It runs as
    docs/audit.md says a site's does: with mqconsole's plugin (where a JDK built it), and
    ``viewfs://NAME/audit`` mounted on a folder of its own (``server.viewfs``: the URI and
    the folder), a Hadoop file system only the server knows, standing for ``hdfs://``.
    Its executors' Python workers carry tests/audit/taskmarks.py's probe: a file in
    ``server.tasks`` for each partition of the ``mqconsole`` data source they read, what
    test_connect proves an export ran there by."""
    import uuid

    from mqconsole.audit.storeplugin import server_settings
    from tests.audit.cluster import alive, connect_server
    from tests.audit.taskmarks import sitecustomize

    folder = tmp_path_factory.mktemp("connect")
    root = folder / "viewfs"
    root.mkdir()
    tasks, probe = folder / "tasks", folder / "probe"
    tasks.mkdir()
    probe.mkdir()
    (probe / "sitecustomize.py").write_text(sitecustomize(tasks))
    repo = Path(__file__).resolve().parents[1]  # (the probe imports tests.audit.taskmarks)
    python_path = os.pathsep.join(p for p in (str(probe), str(repo),
                                              os.environ.get("PYTHONPATH")) if p)
    name = f"mqconnect{uuid.uuid4().hex[:12]}"
    settings = ["--conf", f"spark.hadoop.fs.viewfs.mounttable.{name}.link./audit=file://{root}",
                "--conf", f"spark.executorEnv.PYTHONPATH={python_path}"]
    if built_plugin is not None:
        settings += server_settings(built_plugin)
    with connect_server(folder, master=spark_cluster.url, settings=settings) as server:
        server.viewfs = (f"viewfs://{name}/audit", root)
        server.plugin = built_plugin is not None
        server.tasks = tasks
        yield server
    assert not alive(server.process.pid), "the Connect server outlived its stop"


register_plugins = pytest.fixture(plugin_testing.register_plugins)
"""``register_plugins(*plugins, settings=None) -> PluginHost``: plugins registered for this
test only (unregistered when it ends; no global host is ever touched)."""
