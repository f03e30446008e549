"""``queue set`` confirms like every change and warns of a BOQNAME naming no queue (issue 15
item 5): real invocations, on a pseudo-terminal for the question."""

from __future__ import annotations

MISSING = ("BOQNAME APP.ORDERS.RETRY names a queue that does not exist on QM1: a message "
           "backed out BOTHRESH times cannot be requeued there until it is defined")


def test_without_a_terminal_it_needs_yes(cli):
    r = cli("queue", "set", "APP.ORDERS", "--bothresh", "9")
    assert r.code == 4 and "needs --yes" in r.err
    assert cli("queue", "show", "APP.ORDERS", "--json").json["bothresh"] == 3
    r = cli("queue", "set", "APP.ORDERS", "--bothresh", "9", "--dry-run")
    assert r.code == 0 and "dry run" in r.err and "BOTHRESH: 3 -> 9" in r.err
    assert cli("queue", "show", "APP.ORDERS", "--json").json["bothresh"] == 3
    assert cli("queue", "set", "APP.ORDERS", "--bothresh", "9", "--yes").code == 0
    assert cli("queue", "show", "APP.ORDERS", "--json").json["bothresh"] == 9


def test_a_boqname_naming_no_queue_is_warned_of_before_the_question(cli):
    r = cli("queue", "set", "APP.ORDERS", "--boqname", "APP.ORDERS.RETRY")
    assert r.code == 4
    warned, refused = r.err.strip().splitlines()
    assert warned == f"warning: {MISSING}" and "needs --yes" in refused
    r = cli("queue", "set", "APP.ORDERS", "--boqname", "APP.ORDERS.RETRY", "--yes", "--json")
    assert r.code == 0, r.err  # MQ allows it: the backout queue may be defined later
    assert r.json["warnings"] == [MISSING] and f"warning: {MISSING}" in r.err
    [entry] = [e for e in cli("journal", "--json").json if e["operation"] == "queue-set"]
    assert entry["details"]["warnings"] == [MISSING]
    # a threshold changed while BOQNAME still names no queue: said again
    r = cli("queue", "set", "APP.ORDERS", "--bothresh", "2", "--yes")
    assert r.code == 0 and MISSING in r.err
    # a queue that exists, and a change that does not touch the backout: nothing said
    for args in (("--boqname", "APP.AUDIT"), ("--max-depth", "9")):
        r = cli("queue", "set", "APP.ORDERS", *args, "--yes")
        assert r.code == 0 and "warning" not in r.err, r.err


def test_queue_define_warns_too(cli):
    r = cli("queue", "define", "APP.NEW", "--boqname", "APP.NEW.BOQ")
    assert r.code == 0 and "BOQNAME APP.NEW.BOQ names a queue that does not exist" in r.err


def test_on_a_terminal_it_asks_after_the_warning(demo, tmp_path, answer_on_a_terminal):
    code, out, text = answer_on_a_terminal(["--embedded", str(demo), "queue", "set",
                                            "APP.ORDERS", "--boqname", "APP.ORDERS.RETRY"],
                                           b"y\n", home=tmp_path / "home")
    assert code == 0, text
    assert text.index(MISSING) < text.index("changing boqname of queue APP.ORDERS?")
    assert "APP.ORDERS: BOQNAME: APP.ORDERS.BOQ -> APP.ORDERS.RETRY" in out + text
