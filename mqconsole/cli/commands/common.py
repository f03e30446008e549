"""Options and helpers shared by commands."""

from __future__ import annotations

import click

from mqconsole.cli.session import Session

json_option = click.option("--json", "as_json", is_flag=True, help="JSON on stdout.")


def session_of(ctx: click.Context) -> Session:
    return ctx.find_root().obj


def parse_hex(value: str, what: str, length: int | None = None) -> bytes:
    from mqconsole.cli.errors import CliError

    text = value.strip().replace(" ", "")
    try:
        data = bytes.fromhex(text)
    except ValueError:
        raise CliError(f"{what} {value!r} is not hexadecimal") from None
    if length is not None:
        if len(data) > length:
            raise CliError(f"{what} {value!r} is longer than {length} bytes")
        data = data.ljust(length, b"\x00")
    return data
