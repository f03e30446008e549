"""The command table: every command of every command module is reachable by its name, and
a command's module is imported only when that command is used."""

from __future__ import annotations

import importlib
import pkgutil
import subprocess
import sys

import click

import mqconsole.cli.commands as commands_pkg
from mqconsole.cli.main import COMMANDS, cli


def test_the_table_names_every_command_of_every_module() -> None:
    ctx = click.Context(cli)
    listed = {}
    for info in pkgutil.iter_modules(commands_pkg.__path__):
        module = importlib.import_module(f"mqconsole.cli.commands.{info.name}")
        for command in getattr(module, "COMMANDS", []):
            listed[command.name] = command
    assert set(listed) == set(COMMANDS) == set(cli.list_commands(ctx))
    for name, command in listed.items():
        assert cli.get_command(ctx, name) is command
    assert cli.get_command(ctx, "no-such-command") is None


def test_a_command_imports_only_its_own_module(tmp_path) -> None:
    """... and, run with ``--embedded`` and no configuration file, no pydantic (the config
    package's models): a command that loads the site plugins asks only whether a
    configuration file applies."""
    qm = str(tmp_path / "qm.sqlite")
    probe = ("import sys; from mqconsole.cli.main import main; "
             f"main(['--embedded', {qm!r}, 'init']); "
             "print(sorted(m.rsplit('.', 1)[1] for m in sys.modules "
             "if m.startswith('mqconsole.cli.commands.'))); "
             f"main(['--embedded', {qm!r}, 'delete', 'SYSTEM.DEAD.LETTER.QUEUE', '--all', "
             "'--yes']); "
             "print('mqconsole.plugins.host' in sys.modules, "
             "sorted(m for m in sys.modules if m.split('.')[0] == 'pydantic'))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True, env={"MQCONSOLE_HOME": str(tmp_path / "home"),
                                          "PATH": "/usr/bin:/bin"})
    # (common.py holds the options and helpers the commands share)
    assert out.stdout.strip().splitlines()[-2] == "['common', 'init_cmd']"
    assert out.stdout.strip().splitlines()[-1] == "True []"
