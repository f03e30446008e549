"""``mqconsole replay`` and ``mqconsole doctor``: the delivery model (docs/delivery-model.md)."""

from __future__ import annotations

from typing import Any

import click

from mqconsole.cli.errors import CliError
from mqconsole.cli.exit_codes import ExitCode
from mqconsole.cli.output import emit_json, safe, say, table

from .common import InputPath, json_option, session_of


def _usage(exc: Exception) -> CliError:
    return CliError(str(exc), ExitCode.USAGE)


def failure_rules(ctx: click.Context, needed: bool) -> dict[str, Any]:
    """The site plugins' failure rules (``plugin: NAME`` in a scenario, ``--fail
    plugin=NAME``), loaded only when a rule asks for one."""
    return session_of(ctx).plugins.failure_rules() if needed else {}


@click.command("replay")
@click.argument("scenario", required=False, metavar="[SCENARIO.yaml]", type=InputPath())
@click.option("--queue", "-q", metavar="QUEUE", help="Replay this live queue (read only) "
              "instead of a scenario file.")
@click.option("--endpoints", metavar="FILE", type=InputPath(),
              help="With --queue: the endpoints that read it "
              "(the endpoints: block of the scenario format).")
@click.option("--fail", "fails", multiple=True, metavar="RULE",
              help="With --queue: a failure rule, e.g. msgid=HEX, position=1, first=2, "
              "between=1000:5000 (repeatable; first matching rule wins).")
@click.option("--max-messages", type=click.IntRange(min=1), default=10_000, show_default=True,
              help="With --queue: read at most N messages.")
@click.option("--max-events", type=click.IntRange(min=1), default=None,
              help="Override limits.max_events.")
@click.option("--until-ms", type=click.IntRange(min=0), default=None,
              help="Override limits.until_ms.")
@json_option
@click.pass_context
def replay(ctx: click.Context, scenario: str | None, queue: str | None, endpoints: str | None,
           fails: tuple[str, ...], max_messages: int, max_events: int | None,
           until_ms: int | None, as_json: bool) -> None:
    """Replay what the application server does with a poison message.

    \b
    mqconsole replay SCENARIO.yaml [--json]
    mqconsole replay --queue Q --endpoints ENDPOINTS.yaml [--fail RULE]... [--json]

    The first form needs no queue manager. The second reads the queue's real attributes
    and messages (browse only: nothing changes) and replays them. A failure rule may be a
    site plugin's (plugin: NAME in the file, --fail plugin=NAME; docs/plugins.md).
    """
    from dataclasses import replace as dc_replace

    from mqconsole.model import Limits, ScenarioError
    from mqconsole.ops import replay as rp

    if (scenario is None) == (queue is None):
        raise CliError("give a scenario file or --queue QUEUE (not both)")
    try:
        if scenario is not None:
            if endpoints or fails:
                raise CliError("--endpoints and --fail go with --queue; a scenario file "
                               "holds its own endpoints: and failures:")
            sc = rp.load_scenario(scenario)
            if max_events is not None or until_ms is not None:
                sc = dc_replace(sc, limits=Limits(
                    max_events=max_events or sc.limits.max_events,
                    until_ms=sc.limits.until_ms if until_ms is None else until_ms))
            rules = failure_rules(ctx, any(r.plugin for r in sc.failures))
            result = rp.run_scenario(sc, plugins=rules)
            title = scenario
            notes: list[str] = []
        else:
            assert queue is not None  # one of scenario and --queue (checked above)
            if not endpoints:
                raise CliError("--queue needs --endpoints FILE: the endpoints that read it")
            eps = rp.load_endpoints(endpoints)
            rules = failure_rules(ctx, any("plugin" in f.lower() for f in fails))
            qm = session_of(ctx).connect()
            run = rp.replay_queue(qm, queue, eps, fails, max_messages=max_messages,
                                  limits=rp.limits_of(max_events, until_ms), plugins=rules)
            result, sc = run.result, run.scenario
            title = f"{queue} on {qm.name} (read only)"
            notes = run.notes()
    except (ScenarioError, rp.FailSpecError, rp.ReplaySetupError) as e:
        raise _usage(e) from None
    for note in notes:
        say(note)
    if as_json:
        emit_json(result.to_json())
        return
    _print_replay(title, sc, result)


def _print_replay(title: str, sc: Any, result: Any) -> None:
    from mqconsole.ops.replay import event_text, summary_text

    qm = sc.queue_manager
    click.echo(f"Replay of {safe(title)}  ({safe(qm.name)}, {qm.platform})")
    click.echo("")
    rows = [[ev["t_ms"], ev["seq"], ev["type"], event_text(ev)] for ev in result.events]
    if rows:
        click.echo(table(["T_MS", "SEQ", "EVENT", "WHAT HAPPENED"], rows))
    else:
        click.echo("(no events)")
    click.echo("")
    click.echo("Summary: " + summary_text(result))
    click.echo("")
    click.echo("Final state:")
    for name, items in result.final["queues"].items():
        shown = " ".join(f"{m['message']}({m['backout_count']})" for m in items[:12])
        more = f" … {len(items) - 12} more" if len(items) > 12 else ""
        click.echo(f"  {safe(name)}: {safe(shown) or '(empty)'}{more}")
    for name, ep in result.final["endpoints"].items():
        click.echo(f"  endpoint {safe(name)}: {ep['state']}, rollback counter "
                   f"{ep['rollback_counter']}")
    if result.final["lost"]:
        click.echo("  lost: " + safe(" ".join(m["message"] for m in result.final["lost"])))
    if result.final.get("in_flight"):
        click.echo("  in flight when the limits cut the replay short: " + safe(" ".join(
            f"{m['message']}@{m['endpoint']}/{m['session']}" for m in result.final["in_flight"])))


@click.command("doctor")
@click.option("--endpoints", metavar="FILE", type=InputPath(),
              help="The endpoints that read the queues "
              "(the endpoints: block of the scenario format, optionally with authorities:).")
@json_option
@click.pass_context
def doctor(ctx: click.Context, endpoints: str | None, as_json: bool) -> None:
    """Say, per queue, what a poison message would do there, and how to fix it.

    Without --endpoints every application queue is judged as if read by an activation
    specification that does not stop on failure (the verdict is about the queue's own
    settings). Nothing is changed: the fixes are printed as commands to run.
    """
    from mqconsole.model import ScenarioError
    from mqconsole.ops.doctor import diagnose
    from mqconsole.ops.replay import load_endpoints

    try:
        eps = load_endpoints(endpoints) if endpoints else None
    except ScenarioError as e:
        raise _usage(e) from None
    qm = session_of(ctx).connect()
    report = diagnose(qm, eps)
    if as_json:
        emit_json(report.to_json())
        _exit_if_bad(report)
        return
    if not report.diagnoses:
        say("no queue to judge" + (" (no endpoint in the file)" if eps else ""))
        return
    rows = [[d.queue, d.verdict.upper(), d.finding] for d in report.diagnoses]
    click.echo(table(["QUEUE", "VERDICT", "FINDING"], rows))
    flagged = [d for d in report.diagnoses if d.verdict != "ok"]
    for d in flagged:
        if not (d.commands or d.mqsc or d.advice):
            continue
        click.echo("")
        click.echo(f"{safe(d.queue)} ({d.verdict}):")
        for p in d.problems:
            click.echo(f"  - {safe(p.text)}")
        for line in d.commands:
            click.echo(f"    {safe(line)}")
        for line in d.mqsc:
            click.echo(f"    {safe(line)}")
        for line in d.advice:
            click.echo(f"    # {safe(line)}")
    counts = report.counts()
    say(f"{counts['ok']} ok, {counts['warn']} warn, {counts['bad']} bad "
        f"({len(report.diagnoses)} queues judged on {report.qmgr})")
    _exit_if_bad(report)


def _exit_if_bad(report: Any) -> None:
    """Exit 1 when a queue is judged BAD (a script or a CI check can stop on it); WARN and
    OK exit 0."""
    if report.counts()["bad"]:
        raise SystemExit(int(ExitCode.PARTIAL))


COMMANDS = [replay, doctor]
