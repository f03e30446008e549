"""Inputs that used to end in exit 70 (an internal error) are bad input: exit 2 with one
sentence, before any question (issue 17 item 10); files named on the command line are read
with a size limit (/dev/zero, a huge file, a load file's endless first line)."""

from __future__ import annotations

import pytest

from .conftest import run_cli

LONG_NAME = "B" * 49


@pytest.mark.parametrize(("args", "words"), [
    (("queue", "set", "APP.INVOICES", "--bothresh", "99999999999"),
     "bothresh must be a whole number from 0 to 999999999, not 99999999999"),
    (("queue", "define", "NEW.Q", "--max-msg-length", "209715200"),
     "max_msg_length must be a whole number from 0 to 104857600, not 209715200"),
    (("queue", "define", "NEW.Q", "--max-depth", "99999999999"),
     "max_depth must be a whole number"),
    (("queue", "set", "APP.INVOICES", "--boqname", LONG_NAME),
     f"boqname '{LONG_NAME}' is not an MQ name"),
    (("queue", "define", "APP.INVOICES"), "already exists"),
    (("queue", "set", "APP.INVOICES", "--boqname", "APP.INVOICES"),
     "APP.INVOICES cannot be its own backout queue"),  # the console's form says it too
    (("journal", "--since", "99999999999d"), "reaches back before the year 1"),
    (("journal", "--since", "9999-12-31T23:59:59-01:00"), "out of the range of dates"),
    (("put", "APP.AUDIT", "--file", "/dev/zero"),
     "--file /dev/zero holds more than the 100 MiB it may hold"),
    (("move", "APP.INVOICES", "APP.AUDIT", "--msgids-from", "/dev/zero"),
     "--msgids-from /dev/zero holds more than the 64 MiB it may hold"),
    (("edit", "APP.INVOICES", "414D51", "--payload-file", "/dev/zero"),
     "--payload-file /dev/zero holds more than the 100 MiB it may hold"),
    (("put", "APP.AUDIT", "--text", "x", "--reply-to", "R" * 49),
     "--reply-to '" + "R" * 49 + "' is longer than 48 characters"),
])
def test_exit_2_with_one_sentence(cli, args, words):
    r = cli(*args)  # no --yes and no terminal: a question would be exit 4
    assert r.code == 2, r.err
    assert r.err.startswith("mqconsole: ") and words in r.err
    assert r.err.count("\n") == 1 and "internal error" not in r.err


def test_init_with_a_bad_name(tmp_path):
    r = run_cli("--embedded", str(tmp_path / "qm.sqlite"), "init", "--name", "bad name",
                home=tmp_path / "home")
    assert r.code == 2 and "queue manager name 'bad name' is not an MQ name" in r.err
    assert not (tmp_path / "qm.sqlite").exists()


def test_a_huge_file(cli, tmp_path):
    big = tmp_path / "big.bin"
    with open(big, "wb") as fp:
        fp.truncate(101 * 1024 * 1024)  # sparse: no disk used
    r = cli("put", "APP.AUDIT", "--file", str(big))
    assert r.code == 2 and f"--file {big} is 105,906,176 bytes: more than the 100 MiB" in r.err


def test_a_load_file_without_line_ends(cli, tmp_path):
    endless = tmp_path / "endless.dmp"
    with open(endless, "wb") as fp:
        fp.write(b"* DMPMQMSG Version:9.0.0.0 Created:Wed Nov 25 18:28:11 2026")
        fp.truncate(50 * 1024 * 1024)
    r = cli("load", str(endless), "APP.AUDIT", "--yes")
    assert r.code == 2, r.err
    assert f"{endless} line 1: the line is longer than 1024 KiB" in r.err


def test_a_file_header_with_an_absurd_year(cli, tmp_path):
    saved = tmp_path / "saved.dmp"
    assert cli("save", "APP.INVOICES", str(saved), "--all").code == 0
    text = saved.read_text(encoding="latin-1").split("\n", 1)
    head = text[0].rsplit(" ", 1)[0] + " 99999999999999999999999"
    saved.write_text(head + "\n" + text[1], encoding="latin-1")
    r = cli("load", str(saved), "APP.AUDIT", "--dry-run")
    assert r.code in (0, 2) and "internal error" not in r.err, r.err


@pytest.mark.parametrize(("args", "words"), [
    (("dlq-handler", "--rules", "/dev/zero", "--check"),
     "cannot read the rules table /dev/zero: more than 1,000,000 bytes"),
    (("--config", "/dev/zero", "queues"), "/dev/zero: holds more than 4 MiB: not a config file"),
    (("replay", "/dev/zero"), "/dev/zero: holds more than 16 MiB: not a scenario"),
    (("replay", "--queue", "APP.AUDIT", "--endpoints", "/dev/zero"),
     "/dev/zero: holds more than 16 MiB: not a scenario or endpoints file"),
])
def test_every_file_an_operator_names_is_read_with_a_limit(tmp_path, args, words):
    """A rules table, a configuration file, a scenario or endpoints file of /dev/zero read
    on until memory ran out (10 GB in 15 s, never an answer): one sentence, exit 2."""
    r = run_cli(*args, home=tmp_path / "home")
    assert r.code == 2, r.err
    assert r.err.startswith("mqconsole: ") and words in r.err and r.err.count("\n") == 1


@pytest.mark.parametrize("option", ["--encoding", "--ccsid"])
def test_put_numbers_past_an_mqlong_are_usage_errors(cli, option):
    """put --encoding 99999999999999 was an internal error (exit 70: struct.error)."""
    r = cli("put", "APP.AUDIT", "--hex", "00", option, "99999999999999")
    assert r.code == 2 and "internal error" not in r.err
    assert f"Invalid value for '{option}': 99999999999999 is not in the range" in r.err
