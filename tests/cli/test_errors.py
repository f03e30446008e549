"""Bad input: one clear sentence on stderr, exit code 2 (or 1), never a traceback."""

from __future__ import annotations

import pytest

from .conftest import run_cli

DLQ = "SYSTEM.DEAD.LETTER.QUEUE"


@pytest.mark.parametrize(
    "args, needle",
    [
        (("browse", "NO.SUCH.Q"), "2085"),
        (("browse", "NO.SUCH.Q", "--json"), "2085"),
        (("summary", "NO.SUCH.Q"), "2085"),
        (("show", "NO.SUCH.Q", "00"), "2085"),
        (("queue", "show", "NO.SUCH.Q"), "2085"),
        (("put", "NO.SUCH.Q", "--text", "x"), "2085"),
        (("show", DLQ, "XYZ"), "not hexadecimal"),
        (("put", "APP.ORDERS", "--hex", "ZZ"), "not hexadecimal"),
        (("put", "APP.ORDERS", "--msgid", "00" * 30, "--text", "x"), "longer than 24"),
        (("put", "APP.ORDERS"), "exactly one of"),
        (("put", "APP.ORDERS", "--file", "/no/such/file"), "/no/such/file"),
        (("browse", DLQ, "--where", "reason = "), "position"),
        (("browse", DLQ, "--where", "colour = red"), "colour"),
        (("browse", DLQ, "--where", "text ~ '('"), "regular expression"),
        (("show", DLQ, "00" * 24), "no message"),
        (("frobnicate",), "No such command"),
    ],
)
def test_bad_input_is_one_sentence_and_exit_2(cli, args, needle):
    r = cli(*args)
    assert r.code == 2, (r.code, r.err)
    assert needle.lower() in r.err.lower()
    assert "Traceback" not in r.err


@pytest.mark.parametrize("args", [
    ("browse", "NO.SUCH.Q"),
    ("move", "NO.SUCH.Q", "APP.ORDERS", "--all", "--yes"),
    ("move", DLQ, "NO.SUCH.Q", "--all", "--yes"),
    ("copy", "NO.SUCH.Q", "APP.ORDERS", "--all", "--yes"),
    ("summary", "NO.SUCH.Q"),
])
def test_an_unknown_queue_says_its_reason_in_the_one_form(cli, args):
    """Issue 24 item 6: every error sentence says a reason as MQ's name and the number,
    'MQRC_UNKNOWN_OBJECT_NAME (2085)' (mq.names.reason_label) — a move said
    '(MQRC_UNKNOWN_OBJECT_NAME, 2085)' while browse said ': MQRC_UNKNOWN_OBJECT_NAME
    (2085)'."""
    r = cli(*args)
    assert r.code == 2, (r.code, r.err)
    assert "NO.SUCH.Q" in r.err
    assert r.err.rstrip().endswith(": MQRC_UNKNOWN_OBJECT_NAME (2085)"), r.err
    assert "MQRC_UNKNOWN_OBJECT_NAME, 2085" not in r.err


def test_put_to_inhibited_queue_is_exit_1(cli):
    r = cli("put", "APP.LEGACY", "--text", "x")
    assert r.code == 1 and "2051" in r.err and "Traceback" not in r.err


def test_put_to_full_queue_is_exit_1(cli):
    r = cli("put", "APP.SMALL", "--text", "x")
    assert r.code == 1 and "2053" in r.err


def test_missing_embedded_file_is_exit_3(tmp_path):
    r = run_cli("--embedded", str(tmp_path / "nope.sqlite"), "queues", home=tmp_path)
    assert r.code == 3 and "init" in r.err and "Traceback" not in r.err


def test_not_a_queue_manager_file(tmp_path):
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"this is not sqlite at all" * 100)
    r = run_cli("--embedded", str(junk), "queues", home=tmp_path)
    assert r.code in (2, 3) and "Traceback" not in r.err
    assert str(junk) in r.err or "junk.sqlite" in r.err


def test_bad_config_names_setting_and_line(tmp_path):
    cfg = tmp_path / "c.yaml"
    cfg.write_text("profiles:\n  - name: a\n    backend:\n      type: embedded\n"
                   "      path: x.sqlite\n    read_only: maybe\n")
    r = run_cli("--config", str(cfg), "queues", home=tmp_path)
    assert r.code == 2, r.err
    assert "line 6" in r.err and "read_only" in r.err and "Traceback" not in r.err


def test_unknown_profile(tmp_path):
    cfg = tmp_path / "c.yaml"
    cfg.write_text("profiles:\n  - name: a\n    backend:\n      type: embedded\n"
                   "      path: x.sqlite\n")
    r = run_cli("--config", str(cfg), "--profile", "zzz", "queues", home=tmp_path)
    assert r.code == 2 and "zzz" in r.err


def test_read_only_profile_refuses_changes(tmp_path, demo):
    cfg = tmp_path / "c.yaml"
    cfg.write_text(f"profiles:\n  - name: prod\n    read_only: true\n    backend:\n"
                   f"      type: embedded\n      path: {demo}\n")
    r = run_cli("--config", str(cfg), "queue", "set", "APP.ORDERS", "--bothresh", "1", "--yes",
                home=tmp_path)
    assert r.code == 4 and "read-only" in r.err
    r = run_cli("--config", str(cfg), "put", "APP.ORDERS", "--text", "x", home=tmp_path)
    assert r.code == 4
    r = run_cli("--config", str(cfg), "queues", "--json", home=tmp_path)
    assert r.code == 0


def test_help_works_everywhere(tmp_path):
    for args in (("--help",), ("browse", "--help"), ("queue", "set", "--help")):
        r = run_cli(*args, home=tmp_path)
        assert r.code == 0 and "Usage" in r.out
