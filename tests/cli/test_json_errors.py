"""With --json an error is a JSON object on stdout too ({"error": SENTENCE, "exit": N}),
besides its sentence on stderr: a script reading stdout learns why, not just that, it failed."""

from __future__ import annotations

import json

import pytest

DLQ = "SYSTEM.DEAD.LETTER.QUEUE"


@pytest.mark.parametrize(
    "args, code, needle",
    [
        (("browse", "NO.SUCH.Q", "--json"), 2, "2085"),  # an unknown queue
        (("move", DLQ, "APP.HOLD", "--json"), 2, "no messages selected"),  # no selection
        (("move", DLQ, "APP.ORDERS", "--all", "--json"), 4, "--yes"),  # no --yes, no terminal
        (("browse", DLQ, "--json", "--where", "colour = red"), 2, "colour"),  # a bad expression
        (("browse", DLQ, "--json", "--bogus"), 2, "--bogus"),  # click's own usage error
    ],
)
def test_an_error_with_json_is_a_json_object_on_stdout(cli, args, code, needle):
    r = cli(*args, input="")
    assert r.code == code, r.err
    got = json.loads(r.out)
    assert got["exit"] == code and needle in got["error"], got
    assert needle in r.err  # the sentence is still said on stderr
    assert "Traceback" not in r.err


def test_without_json_stdout_stays_empty_on_an_error(cli):
    r = cli("browse", "NO.SUCH.Q")
    assert r.code == 2 and r.out == ""


def test_a_command_that_printed_its_json_adds_no_error_object(cli):
    """A dry run whose JSON was printed stays one JSON document on stdout."""
    r = cli("move", DLQ, "APP.HOLD", "--all", "--dry-run", "--json")
    assert isinstance(json.loads(r.out), dict)  # parses as one document whatever the exit
