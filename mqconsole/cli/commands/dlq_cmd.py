"""``mqconsole dlq-handler``: IBM's runmqdlq rules tables (docs/dlq-handler.md)."""

from __future__ import annotations

import click

from mqconsole.cli.errors import CliError
from mqconsole.cli.exit_codes import ExitCode
from mqconsole.cli.output import emit_json, say, table

from .common import json_option


def load_rules(path: str):
    """The parsed table, or a CliError (exit 2) with the first problem's sentence."""
    from mqconsole.ops.dlq.rules import RulesError, read_table

    try:
        return read_table(path)
    except RulesError as e:
        raise CliError(str(e), ExitCode.USAGE) from None
    except OSError as e:
        raise CliError(f"cannot read the rules table {path}: {e.strerror or e}",
                       ExitCode.USAGE) from None


@click.command("dlq-handler")
@click.option("--rules", "rules_file", required=True, metavar="FILE",
              help="The rules table (runmqdlq's syntax).")
@click.option("--check", is_flag=True, help="Only validate the table; touch no queue.")
@json_option
def dlq_handler(rules_file: str, check: bool, as_json: bool) -> None:
    """Process a dead-letter queue by a runmqdlq rules table.

    \b
    mqconsole dlq-handler --rules FILE --check [--json]

    --check validates the table without connecting: exit 0 when it is good, 2 with one
    sentence naming the line, column and what was expected when it is not.
    """
    table_ = load_rules(rules_file)
    if not check:
        raise CliError("running the handler is not available yet: give --check to "
                       "validate the table")
    if as_json:
        emit_json(table_.to_dict())
        return
    control = table_.control
    wait = "YES" if control.wait is None else "NO" if control.wait == 0 else control.wait
    say(f"{rules_file}: a valid rules table: {len(table_.rules)} rule"
        f"{'s' if len(table_.rules) != 1 else ''}, RETRYINT({control.retry_interval}) "
        f"WAIT({wait})")
    rows = [[r.number, r.line, r.pattern or "*", r.describe(), r.retry, r.put_aut]
            for r in table_.rules]
    click.echo(table(["RULE", "LINE", "PATTERN", "ACTION", "RETRY", "PUTAUT"], rows,
                     max_width={2: 60}))


COMMANDS = [dlq_handler]
