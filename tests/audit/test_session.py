"""The test session is started the way an audit starts Spark: quiet, UTC, one try per task."""

from __future__ import annotations

import pytest

from mqconsole.audit.session import BadMaster, check_master


def test_session_settings(spark) -> None:
    conf = spark.sparkContext.getConf()
    assert spark.conf.get("spark.sql.session.timeZone") == "UTC"
    assert spark.conf.get("spark.sql.parquet.outputTimestampType") == "TIMESTAMP_MICROS"
    assert conf.get("spark.task.maxFailures") == "1"
    assert conf.get("spark.ui.enabled") == "false"
    assert spark.range(5).count() == 5


def test_a_running_session_given_back_logs_pysparks_errors_to_its_own_file(spark, spark_log,
                                                                          tmp_path) -> None:
    """A Connect session opened in the process sends pyspark's error logging to its own log
    (remote.connect, the console's ``tui.audit_master = sc://…``); an audit given the
    running classic session back (start_session, any log_dir) sends it back to that
    session's log, where its JVM writes: a failing query's words are never in another
    file (issue 26: the CLI's bad-query test failed after the console's Connect test)."""
    from mqconsole.audit.session import SparkSettings, quiet_python_loggers, start_session

    quiet_python_loggers(tmp_path / "connect.log")  # what remote.connect does
    again = start_session(SparkSettings(master="local[2]", log_dir=tmp_path / "own"))
    assert again.sparkContext is spark.sparkContext
    logged = spark_log.stat().st_size
    with pytest.raises(Exception, match="no_such_column"):
        again.sql("SELECT no_such_column").collect()
    with spark_log.open("rb") as fp:
        fp.seek(logged)
        assert "no_such_column" in fp.read().decode(errors="replace")
    assert "no_such_column" not in ((tmp_path / "connect.log").read_text()
                                    if (tmp_path / "connect.log").exists() else "")


@pytest.mark.parametrize("master", ["local", "local[2]", "local[*]", "spark://127.0.0.1:7077",
                                    "yarn", "k8s://https://10.0.0.1:443"])
def test_masters_spark_knows(master) -> None:
    assert check_master(master) == master


@pytest.mark.parametrize("master", ["", "local[0]", "spark://host", "mesos://x:5050", "local[a]"])
def test_other_masters_are_refused(master) -> None:
    with pytest.raises(BadMaster, match="is not a Spark master"):
        check_master(master)


def test_a_site_sets_spark_and_mqconsole_keeps_only_what_it_pins(tmp_path):
    """spark-defaults.conf and --conf win over mqconsole's defaults; the Java options are
    joined (mqconsole's logging settings stay); retries and speculation stay off; on a
    cluster the executors' logging settings are shipped with the job."""
    import sys

    from mqconsole.audit.session import SparkSettings, spark_conf_pairs

    log4j = tmp_path / "log4j2.properties"
    site = {"spark.pyspark.python": "/opt/venv/bin/python", "spark.speculation": "true",
            "spark.sql.shuffle.partitions": "64", "spark.task.maxFailures": "4",
            "spark.driver.extraJavaOptions": "-Dsite=1", "spark.yarn.dist.files": "/site/a.txt"}
    settings = SparkSettings(master="yarn", conf={"spark.executor.memory": "8g",
                                                  "spark.sql.shuffle.partitions": "12"})
    pairs = spark_conf_pairs(settings, log4j, site=site, environ={})
    assert pairs.get("spark.pyspark.python", site["spark.pyspark.python"]) == \
        "/opt/venv/bin/python" != sys.executable
    assert pairs["spark.sql.shuffle.partitions"] == "12"  # --conf, over the site's 64
    assert pairs["spark.executor.memory"] == "8g"
    assert (pairs["spark.speculation"], pairs["spark.task.maxFailures"]) == ("false", "1")
    assert pairs["spark.driver.extraJavaOptions"].startswith(
        f"-Dlog4j2.configurationFile=file:{log4j} ")
    assert pairs["spark.driver.extraJavaOptions"].endswith(" -Dsite=1")
    assert pairs["spark.executor.extraJavaOptions"] == \
        "-Dlog4j2.configurationFile=mqconsole-log4j2.properties"
    # YARN localises it in the container's folder before the executor's JVM starts
    assert pairs["spark.yarn.dist.files"] == f"/site/a.txt,{log4j}#mqconsole-log4j2.properties"
    assert "spark.files" not in pairs  # it takes no #name: a cluster's SparkContext refused it
    for master in ("spark://10.0.0.5:7077", "k8s://https://10.0.0.1:443"):
        # the executors start before a file of the job reaches them: the cluster's logging
        elsewhere = spark_conf_pairs(SparkSettings(master=master), log4j, site={}, environ={})
        assert "spark.executor.extraJavaOptions" not in elsewhere
        assert not {"spark.files", "spark.yarn.dist.files"} & set(elsewhere)
        with_site = spark_conf_pairs(SparkSettings(master=master), log4j, environ={}, site={
            "spark.executor.extraJavaOptions": "-Dsite=2"})
        assert with_site["spark.executor.extraJavaOptions"] == "-Dsite=2"
    assert "spark.driver.host" not in pairs
    assert "spark.python.daemon.module" not in pairs  # a cluster's workers: Spark's own
    here = spark_conf_pairs(SparkSettings(master="local[2]"), log4j, site={}, environ={})
    assert here["spark.pyspark.python"] == sys.executable  # the site names none
    assert here["spark.python.daemon.module"] == "mqconsole.audit.daemon"  # this Python's
    assert here["spark.executor.extraJavaOptions"] == f"-Dlog4j2.configurationFile=file:{log4j}"
    assert "spark.files" not in here
    env_python = spark_conf_pairs(SparkSettings(master="local[2]"), log4j, site={},
                                  environ={"PYSPARK_PYTHON": "/venv/bin/python"})
    assert "spark.pyspark.python" not in env_python
    assert "spark.python.daemon.module" not in env_python  # another Python: Spark's daemon
    own = spark_conf_pairs(SparkSettings(master="local[2]", conf={
        "spark.python.daemon.module": "site.daemon"}), log4j, site={}, environ={})
    assert own["spark.python.daemon.module"] == "site.daemon"


class _ServerConf:
    """A Connect session's ``spark.conf`` as the check reads it: ``get(key, default)``, the
    server's value, or the default where the server set none."""

    def __init__(self, settings: dict[str, str]) -> None:
        self.settings = settings

    def get(self, key: str, default: str | None = None) -> str | None:
        return self.settings.get(key, default)


@pytest.mark.parametrize(("server", "bad"), [
    ({"spark.task.maxFailures": "1"}, []),
    ({"spark.task.maxFailures": "1", "spark.speculation": "false"}, []),
    ({"spark.task.maxFailures": "1", "spark.speculation": "true"}, ["spark.speculation=true"]),
    ({"spark.task.maxFailures": "1", "spark.speculation": "True"}, ["spark.speculation=True"]),
    ({}, ["spark.task.maxFailures=4"]),  # Spark's default: three retries
    ({"spark.task.maxFailures": "2", "spark.speculation": "true"},
     ["spark.speculation=true", "spark.task.maxFailures=2"]),
    # a local master retries no task, whatever maxFailures says, but local[N,F]'s F
    ({"spark.master": "local[*]"}, []),
    ({"spark.master": "local"}, []),
    ({"spark.master": "local[4]", "spark.task.maxFailures": "8"}, []),
    ({"spark.master": "local[4,1]"}, []),
    ({"spark.master": "local[4,3]"}, ["spark.master=local[4,3]"]),
    ({"spark.master": "spark://host:7077"}, ["spark.task.maxFailures=4"]),
])
def test_a_connect_server_that_would_run_a_task_twice_is_named_by_its_settings(server, bad):
    """Over Spark Connect the export cannot pin retries and speculation off (the server's
    settings): it reads them and names those that let a task run twice (the refusal itself,
    on a real server: test_connect)."""
    from mqconsole.audit.remote import second_copies

    assert second_copies(_ServerConf(server)) == bad


def test_the_workers_daemon_imports_pyspark_from_the_installed_package(tmp_path):
    """pip's layout (``<pyspark>/python/lib/*.zip`` beside the package): those zips go last
    in the daemon's path, so pyspark is imported from its compiled files; a zip of another
    Spark (a SPARK_HOME of its own) or any other zip stays where it is."""
    from mqconsole.audit.daemon import installed_zips

    site = tmp_path / "site-packages"
    (site / "pyspark" / "python" / "lib").mkdir(parents=True)
    (site / "pyspark" / "__init__.py").write_text("")
    own = [str(site / "pyspark" / "python" / "lib" / name)
           for name in ("pyspark.zip", "py4j-0.10.9.9-src.zip")]
    other = [str(tmp_path / "spark-home" / "python" / "lib" / "pyspark.zip"),
             str(tmp_path / "app.zip")]
    path = [*own, *other, str(tmp_path / "src"), str(site)]
    assert installed_zips(path) == own
    assert installed_zips([p for p in path if p != str(site)]) == []  # no package beside
    assert installed_zips([str(tmp_path / "src"), str(site)]) == []


def test_site_defaults_are_read_as_spark_submit_reads_them(tmp_path):
    import pytest

    from mqconsole.audit.errors import AuditInputError
    from mqconsole.audit.session import parse_conf, site_defaults

    conf_dir = tmp_path / "conf"
    conf_dir.mkdir()
    (conf_dir / "spark-defaults.conf").write_text(
        "# a site\nspark.executor.memory   4g\n\nspark.pyspark.python=/opt/py/bin/python\n")
    want = {"spark.executor.memory": "4g", "spark.pyspark.python": "/opt/py/bin/python"}
    assert site_defaults({"SPARK_CONF_DIR": str(conf_dir)}) == want
    assert site_defaults({"SPARK_HOME": str(tmp_path)}) == want
    assert site_defaults({}) == {}
    assert parse_conf(["spark.a=1", "spark.b = x=y"]) == {"spark.a": "1", "spark.b": "x=y"}
    for bad in ("spark.a", "a=1", "=1"):
        with pytest.raises(AuditInputError, match="not a Spark setting"):
            parse_conf([bad])
    # the master is --master's, and mqconsole's process is the driver: said, not dropped
    for bad in ("spark.master=yarn", " spark.submit.deployMode = cluster"):
        with pytest.raises(AuditInputError, match=r"^--conf spark\.(master|submit\.deployMode) "
                                                  "is not taken: "):
            parse_conf(["spark.a=1", bad])


def test_the_master_none_names_is_the_sites_then_local(tmp_path):
    """No --master: spark.master of the site's spark-defaults.conf, as spark-submit takes
    it (it ran on local[*] whatever the site named, silently); a bad one names the file."""
    import pytest

    from mqconsole.audit.session import DEFAULT_MASTER, BadMaster, default_master

    conf_dir = tmp_path / "conf"
    conf_dir.mkdir()
    env = {"SPARK_CONF_DIR": str(conf_dir)}
    assert default_master(env) == DEFAULT_MASTER == "local[*]"  # no file
    (conf_dir / "spark-defaults.conf").write_text("spark.executor.memory 4g\n")
    assert default_master(env) == DEFAULT_MASTER
    (conf_dir / "spark-defaults.conf").write_text("spark.master   spark://head:7077\n")
    assert default_master(env) == "spark://head:7077"
    (conf_dir / "spark-defaults.conf").write_text("spark.master=yarn\n")
    assert default_master({"SPARK_HOME": str(tmp_path)}) == "yarn"
    (conf_dir / "spark-defaults.conf").write_text("spark.master mars\n")
    with pytest.raises(BadMaster, match=r"spark-defaults\.conf names spark\.master 'mars', "
                                        "not a Spark master") as e:
        default_master(env)
    assert str(conf_dir / "spark-defaults.conf") in str(e.value)


def test_a_big_export_compiles_its_hot_code_with_c2_and_every_other_session_with_c1(tmp_path):
    """C1 only for a session's driver by default; C2 for the code run ~10^5 times when the
    session is for an export of many rows (the export's JVM spends most of its time in a few
    per-row methods, where C2 pays); a site's Java options still come last (they win)."""
    from mqconsole.audit.session import HOT_JIT, QUICK_JIT, SparkSettings, spark_conf_pairs

    log4j = tmp_path / "log4j2.properties"
    quick = spark_conf_pairs(SparkSettings(master="local[2]"), log4j, site={}, environ={})
    hot = spark_conf_pairs(SparkSettings(master="local[2]", compile_hot=True,
                                         conf={"spark.driver.extraJavaOptions": "-Dsite=1"}),
                           log4j, site={}, environ={})
    assert QUICK_JIT in quick["spark.driver.extraJavaOptions"]
    assert HOT_JIT not in quick["spark.driver.extraJavaOptions"]
    options = hot["spark.driver.extraJavaOptions"]
    assert HOT_JIT in options and QUICK_JIT not in options
    assert options.startswith(f"-Dlog4j2.configurationFile=file:{log4j} ")
    assert options.endswith(" -Dsite=1")


def test_the_cli_export_asks_for_c2_from_hot_rows_on(monkeypatch):
    """``audit export`` opens Spark after planning, with the rows the plan counted: below
    HOT_ROWS C1, from it on C2, and the driver writes its class-data sharing archive at exit
    when there is none (audit/classes.py); every command-line session uses the archive
    (start_session replaced: no JVM here)."""
    import pytest

    from mqconsole.audit import session
    from mqconsole.cli.commands import audit_spark

    asked: list[tuple[bool, bool, bool]] = []

    class Stop(Exception):
        pass

    def start(settings):
        asked.append((settings.compile_hot, settings.share_classes, settings.dump_classes))
        raise Stop

    monkeypatch.setattr(session, "start_session", start)
    for rows in (0, session.HOT_ROWS - 1, session.HOT_ROWS):
        with pytest.raises(Stop):
            audit_spark.open_spark("local[2]", None, rows=rows)
    assert asked == [(False, True, False), (False, True, False), (True, True, True)]
