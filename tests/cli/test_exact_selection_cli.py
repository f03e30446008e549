"""A --msgid names one message (issue 15, trust 1, the command line): one carried by several
messages is refused before any question, naming --position, --token and --all-duplicates;
--position and --token name exactly one of them."""

from __future__ import annotations

from mqconsole.backends.open import open_embedded
from mqconsole.mq.queue import QueueAttrs
from tests.support.exact_marks import BODIES, SHARED_ID, bodies, fill

Q = "APP.REPLAYED"
SHARED = SHARED_ID.hex().upper()


def test_a_shared_msgid_is_named_exactly_or_taken_whole_when_said(cli, demo):
    qm = open_embedded(str(demo))
    qm.define_queue(QueueAttrs(name=Q))
    fill(qm, Q)
    r = cli("delete", Q, "--msgid", SHARED, "--yes")
    assert r.code == 2 and "carried by 3 messages on APP.REPLAYED" in r.err
    assert "--position" in r.err and "--token" in r.err and "--all-duplicates" in r.err
    assert "Traceback" not in r.err and len(bodies(qm, Q)) == 4
    rows = cli("browse", Q, "--json").json
    assert [row["msgid"] for row in rows].count(SHARED) == 3
    assert all(row["token"] for row in rows) and len({row["token"] for row in rows}) == 4
    second = next(row for row in rows if row["position"] == 3)
    r = cli("delete", Q, "--msgid", SHARED, "--position", str(second["position"]), "--yes",
            "--json")
    assert r.code == 0, r.err
    assert (r.json["selected"], r.json["done"]) == (1, 1)
    assert bodies(qm, Q) == [b"message 17 body", BODIES[0], BODIES[2]]
    last = cli("browse", Q, "--json").json[-1]
    r = cli("move", Q, "APP.AUDIT", "--token", last["token"], "--yes", "--json")
    assert r.code == 0 and r.json["done"] == 1, r.err
    assert bodies(qm, Q) == [b"message 17 body", BODIES[0]]
    r = cli("delete", Q, "--msgid", SHARED, "--position", "3", "--yes", "--json")
    assert r.code == 0 and r.json["selected"] == 0  # position 3 holds no such message now
    r = cli("delete", Q, "--msgid", SHARED, "--all-duplicates", "--yes", "--json")
    assert r.code == 0 and r.json["done"] == 1, r.err
    assert bodies(qm, Q) == [b"message 17 body"]
    qm.close()


def test_position_and_token_are_checked_before_anything(cli):
    r = cli("delete", "APP.ORDERS", "--position", "3", "--yes")
    assert r.code == 2 and "--position goes with a --msgid each" in r.err
    r = cli("delete", "APP.ORDERS", "--token", "XYZ", "--yes")
    assert r.code == 2 and "not hexadecimal" in r.err


def test_a_msgid_not_on_the_queue_is_said_before_any_question(cli, demo):
    qm = open_embedded(str(demo))
    qm.define_queue(QueueAttrs(name=Q))
    fill(qm, Q)
    absent = "AB" * 24
    for args in (("delete", Q, "--msgid", absent),  # no --yes, stdin not a terminal: no exit 4
                 ("move", Q, "APP.AUDIT", "--msgid", absent),
                 ("move", Q, "APP.AUDIT", "--msgid", absent, "--all-duplicates")):
        r = cli(*args)
        assert r.code == 2, (args, r.err)
        [line] = r.err.strip().splitlines()
        assert f"no message with MsgId {absent} on {Q}" in line
    r = cli("delete", Q, "--msgid", absent, "--msgid", "CD" * 24)
    assert r.code == 2 and f"none of the 2 MsgIds given is on {Q}" in r.err
    # one of them present: the change goes on (the absent one simply matches nothing)
    r = cli("delete", Q, "--msgid", absent, "--msgid", SHARED, "--all-duplicates", "--yes",
            "--json")
    assert r.code == 0 and r.json["done"] == 3, r.err
    assert bodies(qm, Q) == [b"message 17 body"]
    qm.close()
