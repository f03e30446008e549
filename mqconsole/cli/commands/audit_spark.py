"""``--master`` and ``--remote`` of the audit commands, and the Spark session they ask for."""

from __future__ import annotations

from typing import Any

import click

from mqconsole.cli.output import say


def _check_master(_ctx: click.Context, _param: click.Parameter, value: str | None
                  ) -> str | None:
    from mqconsole.audit.session import BadMaster, check_master

    try:
        return None if value is None else check_master(value)
    except BadMaster as e:
        raise click.BadParameter(str(e)) from None


def _check_remote(_ctx: click.Context, _param: click.Parameter, value: str | None
                  ) -> str | None:
    if value is not None and not value.startswith("sc://"):
        raise click.BadParameter(f"{value!r} is not a Spark Connect address (sc://HOST:PORT)")
    return value


def _check_conf(_ctx: click.Context, _param: click.Parameter, value: tuple[str, ...]
                ) -> dict[str, str]:
    from mqconsole.audit.errors import AuditInputError
    from mqconsole.audit.session import parse_conf

    try:
        return parse_conf(value)
    except AuditInputError as e:
        raise click.BadParameter(str(e)) from None


def spark_options(fn):
    """--master, --remote and --conf."""
    fn = click.option("--conf", "conf", multiple=True, metavar="spark.KEY=VALUE",
                      callback=_check_conf,
                      help="A Spark setting (repeatable); over the site's spark-defaults.conf "
                           "($SPARK_CONF_DIR), which is read too.")(fn)
    fn = click.option("--remote", metavar="sc://HOST:PORT", callback=_check_remote,
                      help="Run on a Spark Connect server instead.")(fn)
    return click.option("--master", metavar="URL", callback=_check_master,
                        help="Spark master: local[N], spark://HOST:PORT, yarn, k8s://URL "
                             "(default: spark.master of the site's spark-defaults.conf, "
                             "else local[*]).")(fn)


def check_choice(master: str | None, remote: str | None) -> None:
    """--master and --remote are alternatives."""
    if master and remote:
        raise click.UsageError("--master and --remote are alternatives: give one")


def open_spark(master: str | None, remote: str | None, intro: str = "",
               conf: dict[str, str] | None = None, rows: int = 0) -> Any:
    """The Spark session (started quietly, JVM output in the log) with ``conf`` (--conf);
    progress on stderr, ``intro`` first on the same line. ``rows``: how many an export
    will write (from :data:`~mqconsole.audit.session.HOT_ROWS` on, a session started here
    compiles its per-row code with C2)."""
    from mqconsole.audit.session import HOT_ROWS, SparkSettings, default_master, start_session

    check_choice(master, remote)
    if remote:
        from mqconsole.audit.remote import connect, set_conf

        say(f"{intro}starting Spark ({remote}) ...")
        session = connect(remote)
        set_conf(session, conf or {})
        return session
    named = master or default_master()  # (a bad one in spark-defaults.conf: exit 2)
    say(f"{intro}starting Spark ({named}) ...")
    return start_session(SparkSettings(master=named, conf=conf or {},
                                       compile_hot=rows >= HOT_ROWS, share_classes=True,
                                       dump_classes=rows >= HOT_ROWS))
