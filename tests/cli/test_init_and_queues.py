from __future__ import annotations

from collections import Counter

from .conftest import run_cli

DLQ = "SYSTEM.DEAD.LETTER.QUEUE"


def test_init_refuses_existing_file(tmp_path, demo):
    r = run_cli("--embedded", str(demo), "init", home=tmp_path)
    assert r.code == 2
    assert "already exists" in r.err
    assert "Traceback" not in r.err


def test_init_plain_creates_dead_letter_queue(tmp_path):
    path = tmp_path / "new.sqlite"
    r = run_cli("--embedded", str(path), "init", "--name", "QMX", "--json", home=tmp_path)
    assert r.code == 0, r.err
    assert r.json["queue_manager"] == "QMX"
    q = run_cli("--embedded", str(path), "queues", "--json", home=tmp_path).json
    dlq = [row for row in q if row["is_dead_letter_queue"]]
    assert [row["name"] for row in dlq] == [DLQ]


def test_queues_json_marks_dlq_and_backout_queues(cli):
    r = cli("queues", "--json")
    assert r.code == 0, r.err
    rows = {row["name"]: row for row in r.json}
    keys = {"name", "type", "depth", "max_depth", "put_inhibited", "get_inhibited", "bothresh",
            "boqname", "hardenbo", "is_dead_letter_queue", "backout_queue_for"}
    assert all(keys <= set(row) for row in rows.values())
    assert rows[DLQ]["is_dead_letter_queue"] and rows[DLQ]["depth"] >= 200
    assert rows["APP.SHARED.BOQ"]["backout_queue_for"] == ["APP.INVOICES", "APP.SHIPPING"]
    assert rows["APP.ORDERS.BOQ"]["backout_queue_for"] == ["APP.ORDERS"]
    assert rows["APP.PAYMENTS"]["bothresh"] == 0
    assert rows["APP.LEGACY"]["put_inhibited"] is True
    assert rows["REMOTE.ORDERS"]["depth"] is None
    assert rows["APP.SMALL"]["depth"] == rows["APP.SMALL"]["max_depth"] == 10


def test_queues_text_output(cli):
    r = cli("queues")
    assert r.code == 0, r.err
    assert "SYSTEM.DEAD.LETTER.QUEUE" in r.out and "DLQ" in r.out
    assert "BOQ for APP.INVOICES,APP.SHIPPING" in r.out


def test_demo_dead_letter_queue_has_the_promised_scene(cli):
    rows = cli("browse", DLQ, "--json").json
    assert len(rows) >= 200
    reasons = Counter(r["dlh"]["reason"] for r in rows)
    assert {2053, 2051, 2085, 2035, 2030, 2362} <= set(reasons)
    formats = Counter(r["dlh"]["format"] for r in rows)
    assert {"MQSTR", "MQHRF2"} <= set(formats)
    ebcdic = [r for r in rows if r["dlh"]["dest_q"] == "ZOS.INBOUND"]
    assert ebcdic and all(r["preview"].startswith("ACCT") for r in ebcdic)


def test_demo_backout_queues_hold_messages_with_backout_counts(cli):
    rows = cli("browse", "APP.SHARED.BOQ", "--json").json
    assert rows and max(r["backout_count"] for r in rows) >= 2


def test_queue_define_set_show(cli):
    r = cli("queue", "define", "APP.NEW", "--max-depth", "50", "--bothresh", "2",
            "--boqname", "APP.NEW.BOQ", "--description", "new one", "--json")
    assert r.code == 0, r.err
    assert r.json["max_depth"] == 50 and r.json["bothresh"] == 2
    r = cli("queue", "set", "APP.NEW", "--hardenbo", "--put-inhibited", "--bothresh", "4",
            "--yes")
    assert r.code == 0, r.err
    doc = cli("queue", "show", "APP.NEW", "--json").json
    assert doc["hardenbo"] is True and doc["put_inhibited"] is True and doc["bothresh"] == 4
    assert doc["boqname"] == "APP.NEW.BOQ" and doc["description"] == "new one"
    assert doc["status"]["uncommitted_messages"] == 0
    text = cli("queue", "show", "APP.NEW")
    assert text.code == 0
    # MQ's names and words (issue 15 item 14), as the console's i shows them
    lines = {line.split("  ", 1)[0]: line.split("  ", 1)[1].strip()
             for line in text.out.splitlines()}
    assert lines["BOTHRESH"] == "4" and lines["BOQNAME"] == "APP.NEW.BOQ"
    assert lines["PUT"] == "DISABLED" and lines["GET"] == "ENABLED"
    assert lines["HARDENBO"] == "YES" and lines["MAXDEPTH"] == "50"
    assert lines["TYPE"] == "QLOCAL" and lines["IPPROCS"] == "0"
    assert "True" not in text.out and "False" not in text.out


def test_queue_set_unknown_queue_is_exit_2(cli):
    r = cli("queue", "set", "NO.SUCH.QUEUE", "--bothresh", "1")
    assert r.code == 2
    assert "2085" in r.err and "Traceback" not in r.err
    assert len(r.err.strip().splitlines()) == 1


def test_queue_set_without_attributes_is_usage_error(cli):
    r = cli("queue", "set", "APP.ORDERS")
    assert r.code == 2 and "at least one attribute" in r.err


def test_queue_define_existing_is_an_error(cli):
    r = cli("queue", "define", "APP.ORDERS")
    assert r.code != 0 and "Traceback" not in r.err


def test_queue_define_bad_name(cli):
    r = cli("queue", "define", "BAD NAME!")
    assert r.code == 2 and "not a valid MQ queue name" in r.err


def test_queue_set_json_is_the_operations_summary_and_it_is_journaled(cli):
    r = cli("queue", "set", "APP.AUDIT", "--max-depth", "9", "--put-inhibited", "--json",
            "--yes")
    assert r.code == 0, r.err
    assert r.json["operation"] == "queue-set" and r.json["exit_code"] == 0
    assert r.json["changes"] == {"max_depth": {"before": 5000, "after": 9},
                                 "put_inhibited": {"before": False, "after": True}}
    [entry] = cli("journal", "--json").json
    assert entry["operation"] == "queue-set" and entry["details"]["changes"] == \
        r.json["changes"]
