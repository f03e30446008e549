"""The ``mqconsole`` command: global options, the command table, and error handling.

Every command parses, asks, shows and calls ``ops/``; nothing here talks SQL or MQI.
Imports are kept lazy so ``mqconsole queues`` starts fast (no textual on that path).
"""

from __future__ import annotations

import contextlib
import importlib
import signal
import sys
import threading
from collections.abc import Iterator

import click

from .errors import report
from .exit_codes import ExitCode
from .session import Session

CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"], "max_content_width": 100}

# The command table: name -> "module:attribute" in mqconsole.cli.commands. A command's
# module is imported when the command runs (or --help lists it), so ``mqconsole queues``
# loads only what ``queues`` needs.
COMMANDS = {
    "init": "init_cmd:init",
    "queues": "queue_cmd:queues",
    "queue": "queue_cmd:queue",
    "put": "put_cmd:put",
    "browse": "browse_cmd:browse",
    "show": "browse_cmd:show",
    "summary": "browse_cmd:summary",
    "move": "transfer_cmd:move",
    "copy": "transfer_cmd:copy",
    "resubmit": "transfer_cmd:resubmit_command",
    "delete": "delete_cmd:delete",
    "edit": "edit_cmd:edit",
    "save": "files_cmd:save",
    "load": "files_cmd:load",
    "journal": "journal_cmd:journal",
    "replay": "model_cmd:replay",
    "doctor": "model_cmd:doctor",
    "config": "config_cmd:config",
    "tui": "tui_cmd:tui",
    "plugins": "plugins_cmd:plugins",
    "action": "action_cmd:action",
    "dlq-handler": "dlq_cmd:dlq_handler",
    "audit": "audit_cmd:audit",
}


class LazyGroup(click.Group):
    """A group whose commands (``COMMANDS``) are imported when first looked up."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*self.commands, *COMMANDS})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in COMMANDS:
            module, attr = COMMANDS[cmd_name].split(":")
            command = getattr(importlib.import_module(f"mqconsole.cli.commands.{module}"),
                              attr)
            self.add_command(command, cmd_name)
        return self.commands.get(cmd_name)


# a path the command reads (as commands.common.InputPath: not imported here, to start fast);
# `init` checks --embedded as the file it creates (ops.outputs)
_READ = click.Path(readable=False, path_type=str)


@click.group(cls=LazyGroup, context_settings=CONTEXT_SETTINGS, invoke_without_command=True)
@click.option("--config", "config_file", metavar="FILE", type=_READ, help="Configuration "
              "file (else $MQCONSOLE_CONFIG, else the user config directory).")
@click.option("--profile", "profile_name", metavar="NAME", help="Profile of the config to use.")
@click.option("--embedded", "embedded_path", metavar="PATH", type=_READ,
              help="Use the embedded queue manager in this file (':memory:' for RAM).")
@click.option("--no-plugins", is_flag=True,
              help="Load no site plugin (as MQCONSOLE_NO_PLUGINS=1 does).")
@click.version_option(package_name="mqconsole")
@click.pass_context
def cli(ctx: click.Context, config_file: str | None, profile_name: str | None,
        embedded_path: str | None, no_plugins: bool) -> None:
    """mqconsole: a console for IBM MQ dead-letter and backout queues.

    Without a command, opens the terminal console. Exit codes: 0 done, 1 some messages
    failed (and stayed where they were) or Ctrl-C stopped it at a commit, 2 usage or bad
    input, 3 cannot connect, 4 refused (read-only, not authorized, missing --yes),
    5 outcome unknown (check the queues), 6 the journal could not be written (the summary
    says what was done), 129 SIGHUP, 130 interrupted (Ctrl-C twice), 143 SIGTERM.
    """
    session = Session(config_file=config_file, profile_name=profile_name,
                      embedded_path=embedded_path, no_plugins=no_plugins)
    ctx.obj = session
    ctx.call_on_close(session.close)
    if ctx.invoked_subcommand is None:
        from .commands.tui_cmd import run_tui

        run_tui(session)


def main(argv: list[str] | None = None) -> int:
    """Console-script entry point: run, map every known error to one line and an exit code
    (with ``--json``, also to a JSON object on stdout: ``{"error": ..., "exit": N}``)."""
    with _operators_ctrl_c():
        return _main(argv)


def _interrupt(signum: int, frame: object) -> None:
    from .operate import Interrupted

    raise Interrupted


@contextlib.contextmanager
def _operators_ctrl_c() -> Iterator[None]:
    """Ctrl-C raises :class:`~.operate.Interrupted` rather than a bare KeyboardInterrupt
    (Python's default), so that it stops a plugin's code too, where a plugin's own
    KeyboardInterrupt is only that plugin's failure (main thread only)."""
    if (threading.current_thread() is not threading.main_thread()
            or signal.getsignal(signal.SIGINT) is not signal.default_int_handler):
        yield
        return
    signal.signal(signal.SIGINT, _interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def _main(argv: list[str] | None) -> int:
    from .output import emit_json_error, forget_json

    forget_json()
    args = sys.argv[1:] if argv is None else argv
    as_json = "--json" in args[:args.index("--")] if "--" in args else "--json" in args
    try:
        cli.main(args=argv, prog_name="mqconsole", standalone_mode=False)
    except click.exceptions.Exit as e:
        return int(e.exit_code)
    except click.ClickException as e:
        e.show()
        code = int(ExitCode.USAGE) if e.exit_code == 2 else int(e.exit_code)
        if as_json:
            emit_json_error(e.format_message(), code)
        return code
    except click.exceptions.Abort as e:
        # click turns a KeyboardInterrupt (Ctrl-C, at a prompt too) into Abort
        interrupt = e.__cause__ or e.__context__
        if isinstance(interrupt, KeyboardInterrupt):
            return _interrupted(interrupt, as_json)
        print("mqconsole: aborted", file=sys.stderr)
        if as_json:
            emit_json_error("aborted", ExitCode.REFUSED)
        return int(ExitCode.REFUSED)
    except KeyboardInterrupt as e:
        return _interrupted(e, as_json)
    except BrokenPipeError:
        return 0
    except BaseException as e:
        if isinstance(e, SystemExit):
            return int(e.code or 0) if isinstance(e.code, int) else 0
        return report(e, as_json=as_json)
    return 0


def _interrupted(exc: KeyboardInterrupt, as_json: bool = False) -> int:
    """Ctrl-C (twice during a change) is 130; a second SIGTERM 143, SIGHUP 129. A change
    stopped this way backed out its open unit of work; what it committed is in the
    journal."""
    from .operate import Terminated
    from .output import emit_json_error

    where = getattr(exc, "plugin_running", None)  # stopped while a plugin's code ran
    where = f" while {where} ran" if where else ""
    if isinstance(exc, Terminated):  # a second SIGTERM (143) or SIGHUP (129)
        sentence, code = (f"terminated{where} (the open unit of work was backed out)",
                          exc.code)
    else:
        sentence, code = f"interrupted{where}", ExitCode.INTERRUPTED
    with contextlib.suppress(OSError):  # after a hangup the terminal may be gone
        print(f"mqconsole: {sentence}", file=sys.stderr)
        if as_json:
            emit_json_error(sentence, code)
    return int(code)


def entry() -> None:  # pragma: no cover - thin wrapper
    sys.exit(main())


if __name__ == "__main__":  # pragma: no cover
    entry()
