"""``mqconsole audit report | sql | clean`` (and ``export``): bulk audits on Spark (docs/audit.md).

Thin: parse, start Spark through :mod:`mqconsole.audit.session` (checked first: exit 3 with
how to get pyspark or Java), call :mod:`mqconsole.audit`, show. Progress goes to stderr,
answers to stdout; JVM output to the log file, never the terminal.
"""

from __future__ import annotations

import sys
import time
from typing import Any

import click

from mqconsole.cli.output import emit_json, safe, say, table, table_lines

from .audit_export_cmd import export
from .audit_spark import open_spark, spark_options
from .common import InputPath, OutputPath, json_option, session_of


@click.group("audit")
def audit() -> None:
    """Bulk audits on Spark: a Parquet snapshot of queues or files, the report, SQL.

    Exit codes: 1 a Spark job failed (Spark's reason in one line); 2 a missing or invalid
    snapshot, a bad --as-of or bad SQL; 3 Java or pyspark missing (pip install
    'mqconsole[spark]'), or Spark cannot start.
    """


@audit.command("report")
@click.option("--in", "folder", required=True, metavar="DIR", type=InputPath(),
              help="The snapshot folder.")
@click.option("--as-of", metavar="TIME", help="Ages as of this ISO 8601 time (default now).")
@json_option
@click.option("--html", "html_file", metavar="FILE", type=OutputPath(),
              help="Write one self-contained HTML page (tables and bar charts) to FILE "
              "(replaced whole; never one of mqconsole's own files).")
@spark_options
def report(folder: str, as_of: str | None, as_json: bool, html_file: str | None,
           master: str | None, remote: str | None, conf: dict[str, str]) -> None:
    """The audit report of a snapshot: counts by queue, reason, destination, age, put
    application and backout count, duplicate MsgIds, the oldest and youngest message."""
    from mqconsole.audit.errors import spark_failures
    from mqconsole.audit.report import build_report, parse_as_of
    from mqconsole.audit.snapshot import open_snapshot, precheck, snapshot_notes, unreadable

    if as_json and html_file:
        raise click.UsageError("--json and --html are alternatives: give one")
    when = parse_as_of(as_of)
    precheck(folder, remote=bool(remote))  # a bad folder is exit 2 before Spark starts
    started = time.monotonic()
    spark = open_spark(master, remote, conf=conf)
    with spark_failures("the report", unreadable=unreadable(folder)):
        opened = open_snapshot(spark, folder)  # once (over Spark Connect, a job on the server)
        notes = snapshot_notes(opened)
        for text in notes:
            say(f"note: {safe(text)}")

        def doubt(text: str) -> None:  # the report's doubts: said now, and kept as notes
            say(text)
            notes.append(text)

        result = build_report(spark, opened, as_of=when, progress=say, warn=doubt)
    say(f"report done in {time.monotonic() - started:.1f} s")
    if html_file:
        from mqconsole.audit.html import render_html
        from mqconsole.ops.outputs import write_private

        # checked again as it is written: a temporary file beside it, then renamed over it
        write_private(html_file, render_html(result, title=f"MQ audit of {folder}",
                                             notes=notes),
                      option="--html", state=session_of(click.get_current_context())
                      .state_files())
        say(f"wrote {safe(html_file)}")
    elif as_json:  # notes: a key added to the report's fixed ones (docs/audit.md)
        emit_json({**result, "notes": notes})
    else:
        click.echo(render_text(result, notes=notes))


def render_text(result: dict[str, Any], width: int = 30, notes: list[str] | None = None
                ) -> str:
    """The report as text tables, each count with a horizontal bar; ``notes`` (what the
    export said about the snapshot) under the headline."""
    from mqconsole.audit.present import TOP_ROWS, bar, extremes, headline, tables

    lines = [safe(headline(result))]
    lines += [f"note: {safe(text)}" for text in notes or ()]
    lines += [f"{label}: {safe(text)}" for label, text in extremes(result)]
    for part in tables(result, top=TOP_ROWS):
        lines += ["", part.title]
        if not part.rows:
            lines.append("  none")
            continue
        largest = max(part.counts)
        rows = [[*row, f"{count:,}", bar(count, largest, width)]
                for row, count in zip(part.rows, part.counts, strict=True)]
        lines.append(table([*part.headers, ""], rows, max_width={0: 60, 1: 60}))
        if part.more:
            lines.append(f"  … {part.more:,} more (--json lists every row)")
    return "\n".join(lines)


@audit.command("sql")
@click.option("--in", "folder", required=True, metavar="DIR", type=InputPath(),
              help="The snapshot folder.")
@click.argument("query")
@json_option
@click.option("--limit", type=click.IntRange(min=0), default=1000, show_default=True,
              help="Show at most this many rows (0: all; they stream).")
@click.option("--out", "out", metavar="DIR", type=OutputPath(dir_okay=True),
              help="Write every row to this new folder through Spark instead of showing them "
              "(never one of mqconsole's own files).")
@click.option("--format", "fmt", type=click.Choice(["parquet", "csv"]), default="parquet",
              show_default=True, help="The format of --out.")
@spark_options
def sql(folder: str, query: str, as_json: bool, limit: int, out: str | None, fmt: str,
        master: str | None, remote: str | None, conf: dict[str, str]) -> None:
    """Run QUERY (Spark SQL) over the snapshot's view ``messages``: queries only, never a
    write (docs/audit.md says exactly what runs).

    Example: mqconsole audit sql --in snap "SELECT dlh_reason_name, count(*) FROM messages
    GROUP BY 1 ORDER BY 2 DESC"
    """
    from mqconsole.audit.errors import spark_failures
    from mqconsole.audit.query import check_out, check_query, prepare_query, write_result
    from mqconsole.audit.snapshot import precheck, unreadable
    from mqconsole.audit.store import display

    check_query(query)
    precheck(folder, remote=bool(remote))
    if out is not None and as_json:
        raise click.UsageError("--out and --json are alternatives: give one")
    target = check_out(out, folder, remote=bool(remote)) if out is not None else None
    spark = open_spark(master, remote, conf=conf)
    with spark_failures("the query", unreadable=unreadable(folder)):
        prepared = prepare_query(spark, folder, query)
        for text in prepared.notes:
            say(f"note: {safe(text)}")
        if target is not None:
            rows = write_result(prepared, target, fmt)
            say(f"wrote {rows:,} rows to {safe(display(target))} ({fmt})")
            return
        shown, more = _show_rows(prepared, limit, as_json)
    if more:
        say(f"{shown:,} rows shown, there are more: --limit 0 shows all, --out DIR writes "
            "them all")
    else:
        say(f"{shown:,} rows")


def _show_rows(prepared: Any, limit: int, as_json: bool, block: int = 1000
               ) -> tuple[int, bool]:
    """Print the rows as Spark sends them (a JSON list, or tables of ``block`` rows whose
    columns the first block sets); the rows shown and whether more were left out."""
    import json
    import textwrap

    from mqconsole.audit.query import stream_rows

    columns = prepared.columns
    shown = 0
    more = False
    pending: list[list[Any]] = []
    widths: list[int] | None = None

    def flush() -> None:
        nonlocal widths
        cells = [["NULL" if v is None else v for v in row] for row in pending]
        lines, widths = table_lines(columns, cells, widths=widths,
                                    max_width=dict.fromkeys(range(len(columns)), 80))
        click.echo("\n".join(lines if shown <= len(pending) else lines[1:]))
        pending.clear()

    for row in stream_rows(prepared, limit):
        if limit and shown == limit:
            more = True
            break
        shown += 1
        if as_json:
            item = json.dumps(dict(zip(columns, row, strict=True)), indent=2,
                              ensure_ascii=True, default=str)
            sys.stdout.write(("[\n" if shown == 1 else ",\n") + textwrap.indent(item, "  "))
            continue
        pending.append(row)
        if len(pending) == block:
            flush()
    if as_json:
        sys.stdout.write("\n]\n" if shown else "[]\n")
    elif pending or not shown:
        flush()
    sys.stdout.flush()
    return shown, more


@audit.command("clean")
@click.argument("folders", nargs=-1, required=True, metavar="FOLDER...", type=InputPath())
@json_option
@spark_options
def clean(folders: tuple[str, ...], as_json: bool, master: str | None, remote: str | None,
          conf: dict[str, str]) -> None:
    """Remove what killed exports left: their staging folders (.NAME.tmp-...) in FOLDER
    (where exports write their --out), or beside it when FOLDER is an --out. A staging
    folder an export may still hold is kept and named. This machine's folders without
    Spark; another file system's (hdfs://, s3a://, ...) through Spark's Hadoop (--master),
    or the Connect server's with --remote (a Hadoop URI through mqconsole's plugin there:
    'audit connect-plugin'), where a staging folder is removed once its export's
    heartbeat has stopped (10 minutes without a beat; 6 hours where a Connect server's
    executors write it; 24 hours of age for an older version's, without one)."""
    from mqconsole.audit.errors import spark_failures
    from mqconsole.audit.export import clean_staging
    from mqconsole.audit.store import local_path, to_uri
    from mqconsole.audit.stores import store_for

    uris = [to_uri(f) for f in folders]
    spark = None
    if remote or any(local_path(u) is None for u in uris):
        spark = open_spark(master, remote, conf=conf)
    removed: list[str] = []
    kept: list[str] = []
    with spark_failures("audit clean"):  # (over Connect, each look is a job on the server)
        for uri in uris:
            store = None if spark is None else store_for(spark, uri)
            gone, held = clean_staging(uri, store)
            removed += gone
            kept += held
    if as_json:
        emit_json({"removed": removed, "kept": kept})
        return
    for path in removed:
        click.echo(f"removed {safe(path)}")
    for path in kept:
        click.echo(f"kept {safe(path)} ({kept_because(path, remote=bool(remote))})")
    if not removed and not kept:
        click.echo("nothing to clean: no staging folder of a killed export there")


def kept_because(path: str, remote: bool) -> str:
    """Why ``audit clean`` kept a staging folder: this machine's folder is judged by its
    export's lock (held: it is writing); another file system's, or any over Spark Connect
    (the server's side), by its heartbeat, which can only say "may"."""
    from mqconsole.audit.store import local_path, to_uri

    if local_path(to_uri(path)) is not None and not remote:
        return "an export is writing it"
    return ("an export may still be writing it: its heartbeat is recent, or it has none and "
            "is younger than 24 hours")


@audit.command("connect-plugin")
@click.argument("jar", metavar="OUT.jar", type=OutputPath())
@click.option("--spark-jars", metavar="DIR", type=InputPath(),
              help="The Connect server's Spark jars folder ($SPARK_HOME/jars) to build "
              "against (default: the installed pyspark's).")
@json_option
def connect_plugin(jar: str, spark_jars: str | None, as_json: bool) -> None:
    """Build mqconsole's Spark Connect plugin into OUT.jar (with this machine's javac: a
    Java 17 or 21 JDK), for a snapshot on hdfs://, s3a://, abfss://, gs://... over
    --remote. The Connect server takes it with --jars OUT.jar --conf
    spark.connect.extensions.relation.classes=mqconsole.audit.connect.StorePlugin
    (docs/audit.md)."""
    from mqconsole.audit.storeplugin import build_jar, server_settings

    built = build_jar(jar, spark_jars)
    if as_json:
        emit_json({"jar": str(built), "server": server_settings(built)})
        return
    say(f"wrote {safe(str(built))}; start the Connect server with "
        f"{safe(' '.join(server_settings(built)))}")


audit.add_command(export)

COMMANDS = [audit]
