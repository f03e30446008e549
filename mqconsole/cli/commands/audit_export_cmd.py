"""``mqconsole audit export``: browse queues (or read saved files) into a snapshot.

Thin: resolve the profiles (no password leaves them: an executor reads ``password_env``
itself) and the plugin audit columns, plan (every check before Spark starts, exit 2),
start Spark quietly (exit 3 when Java or pyspark is missing), run, say. Progress (messages
read, per queue) on stderr; ``--json`` prints the summary on stdout.
"""

from __future__ import annotations

import sys
import time

import click

from mqconsole.cli.output import emit_json, safe, say
from mqconsole.ops.outputs import SNAPSHOT
from mqconsole.ops.words import counted

from .audit_spark import check_choice, open_spark, spark_options
from .common import OutputPath, json_option, session_of


def connections_of(session, also: tuple[str, ...]) -> dict[str, object]:
    from mqconsole.cli.errors import CliError

    spec = session.backend_spec()
    if spec.kind == "embedded" and not spec.in_memory:
        session.connect()  # a missing file: one sentence saying how to create one (exit 3)
    out: dict[str, object] = {session.profile.name: spec}
    for name in also:
        if name in out:
            raise CliError(f"--also-profile {name} is already in the export")
        out[name] = session.backend_spec(name)
    return out


class ProgressLines:
    """Messages read per queue, one line per change, at most one per second per queue."""

    def __init__(self) -> None:
        self.said: dict[tuple[str, str, str], tuple[int, bool, float]] = {}

    def __call__(self, states) -> None:
        now = time.monotonic()
        for p in states:
            key = (p.qmgr, p.queue, p.source)
            read, done, at = self.said.get(key, (-1, False, 0.0))
            if (read, done) == (p.read, p.done) or (not p.done and now - at < 1.0):
                continue
            self.said[key] = (p.read, p.done, now)
            where = p.queue if p.source == "queue" else p.source
            qmgr = f" ({p.qmgr})" if p.qmgr and p.source == "queue" else ""
            say(f"{safe(where)}{safe(qmgr)}: {counted(p.read, grouped=True)} read"
                f"{' (done)' if p.done else ''}")


@click.command("export")
@click.option("--out", "out", required=True, metavar="DIR",
              type=OutputPath(allow=(SNAPSHOT,), dir_okay=True),
              help="The snapshot folder to write (must not exist, unless --replace; never "
              "one of mqconsole's own files).")
@click.option("--queues", "patterns", metavar="PATTERNS",
              help="Queues of the profile in use: names, '*' patterns, comma-separated.")
@click.argument("files", nargs=-1, type=click.Path(dir_okay=False))
@click.option("--also-profile", "also", multiple=True, metavar="P",
              help="Another queue manager's profile to browse the same queues on "
                   "(repeatable).")
@click.option("--format", "fmt", type=click.Choice(["parquet", "csv"]), default="parquet",
              show_default=True, help="Snapshot format.")
@click.option("--with-payload", is_flag=True, help="Keep each payload (column payload).")
@click.option("--replace", is_flag=True, help="Replace the snapshot at --out.")
@spark_options
@json_option
@click.pass_context
def export(ctx: click.Context, out: str, patterns: str | None, files: tuple[str, ...],
           also: tuple[str, ...], fmt: str, with_payload: bool, replace: bool,
           master: str | None, remote: str | None, conf: dict[str, str],
           as_json: bool) -> None:
    """Browse queues (never get) or read saved files (dmpmqmsg, amqsbcg) into a Parquet
    snapshot partitioned by queue (rows by put time), for 'audit report' and 'audit sql'.

    Examples: mqconsole --profile prod audit export --out snap --queues
    'SYSTEM.DEAD.LETTER.QUEUE,APP.*.BOQ' --also-profile dr;
    mqconsole audit export --out snap saved/*.dmp

    With --remote sc://HOST:PORT the job runs on a Spark Connect server, whose Python
    workers run mqconsole's data source: they need the same mqconsole and Python, and must
    reach --out, the saved files and the queue managers (docs/audit.md).
    """
    from mqconsole.audit.java import check_pyspark

    check_pyspark()  # exit 3 saying how to get it (the data source's module imports pyspark)
    from mqconsole.audit.datasource import plugin_columns
    from mqconsole.audit.errors import spark_failures
    from mqconsole.audit.export import ExportRequest, plan_export, run_export
    from mqconsole.audit.sources import split_patterns
    from mqconsole.audit.store import to_uri

    session = session_of(ctx)
    check_choice(master, remote)
    if also and not patterns:
        raise click.UsageError("--also-profile needs --queues")
    queue_patterns = split_patterns(patterns or "")
    connections = connections_of(session, also) if queue_patterns else {}
    # a path is made an absolute URI here, on the client (never the server's folder)
    request = ExportRequest(out=to_uri(out), connections=connections,
                            patterns=queue_patterns, files=list(files), format=fmt,
                            with_payload=with_payload, replace=replace,
                            plugin_columns=plugin_columns(session.plugins),
                            remote=bool(remote))
    plan = plan_export(request)
    spark = open_spark(master, remote, intro=f"exporting {len(plan.queues)} queue(s) and "
                                             f"{len(plan.files)} file(s) to {safe(out)}; ",
                       conf=conf, rows=plan.rows_expected)
    with spark_failures("the export"):  # any step's job: read, compaction, count, commit
        summary = run_export(spark, plan, report=ProgressLines(), note=lambda t: say(safe(t)))
    say(f"{counted(summary.rows, grouped=True)} in {safe(summary.out)} "
        f"({summary.seconds:.1f} s)")
    if as_json:
        emit_json(summary.to_json())
    sys.stdout.flush()
