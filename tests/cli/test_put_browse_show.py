from __future__ import annotations

import json

DLQ = "SYSTEM.DEAD.LETTER.QUEUE"


def test_put_then_browse_json(cli):
    r = cli("queue", "define", "T.Q")
    assert r.code == 0, r.err
    r = cli("put", "T.Q", "--text", '{"a": 1}', "--count", "3", "--priority", "5",
            "--correlid", "ABCD", "--json")
    assert r.code == 0, r.err
    assert r.json["put"] == 3 and len(set(r.json["msgids"])) == 3
    rows = cli("browse", "T.Q", "--json").json
    assert [row["position"] for row in rows] == [1, 2, 3]
    row = rows[0]
    assert set(row) >= {"position", "msgid", "correlid", "put_time", "format", "persistence",
                        "priority", "backout_count", "length", "user", "put_appl_name", "dlh",
                        "preview"}
    assert row["format"] == "MQSTR" and row["priority"] == 5 and row["length"] == 8
    assert row["correlid"].startswith("ABCD") and row["correlid"] == row["correlid"].upper()
    assert row["dlh"] is None and row["preview"] == '{"a": 1}'
    assert row["put_time"].endswith("Z") or "+00:00" in row["put_time"]


def test_put_hex_and_file_and_fixed_msgid(cli, tmp_path):
    cli("queue", "define", "T.Q")
    f = tmp_path / "body.bin"
    f.write_bytes(b"\x00\x01\x02binary")
    assert cli("put", "T.Q", "--file", str(f), "--msgid", "01" * 24).code == 0
    assert cli("put", "T.Q", "--hex", "48656C6C6F", "--format", "MQSTR").code == 0
    rows = cli("browse", "T.Q", "--json").json
    assert rows[0]["msgid"] == "01" * 24 and rows[0]["length"] == 9
    assert rows[1]["preview"] == "Hello"


def test_browse_where_and_limit(cli):
    rows = cli("browse", DLQ, "--json", "--where", "reason = Q_FULL").json
    assert rows and all(r["dlh"]["reason"] == 2053 for r in rows)
    limited = cli("browse", DLQ, "--json", "--where", "reason = 2053", "--limit", "5").json
    assert len(limited) == 5 and limited == rows[:5]
    combo = cli("browse", DLQ, "--json", "--where",
                "(reason = PUT_INHIBITED or reason = 2035) and not dest_q = 'APP.SECURE'").json
    assert combo and {r["dlh"]["reason"] for r in combo} == {2051}


def test_browse_text_mode(cli):
    r = cli("browse", DLQ, "--limit", "3")
    assert r.code == 0, r.err
    assert "REASON" in r.out and "MQRC_" in r.out
    assert len(r.out.strip().splitlines()) == 4


def test_browse_empty_queue_says_so(cli):
    cli("queue", "define", "EMPTY.Q")
    r = cli("browse", "EMPTY.Q", "--json")
    assert r.code == 0 and r.json == [] and "empty" in r.err


def test_browse_no_match_exit_0_with_note(cli):
    r = cli("browse", DLQ, "--where", "backout > 1000")
    assert r.code == 0 and "matched" in r.err


def test_show_json_has_md_headers_payload(cli):
    args = ("browse", DLQ, "--json", "--where", "original_format = MQHRF2", "--limit", "1")
    row = cli(*args).json[0]
    r = cli("show", DLQ, row["msgid"], "--json")
    assert r.code == 0, r.err
    doc = r.json
    assert doc["md"]["MsgId"] == row["msgid"] and doc["md"]["Format"] == "MQDEAD"
    types = [h["type"] for h in doc["headers"]]
    assert types[:2] == ["MQDLH", "MQRFH2"]
    assert doc["headers"][0]["reason"] == row["dlh"]["reason"]
    assert doc["payload"]["format"].strip() == "MQSTR" and doc["payload"]["text"]
    text = cli("show", DLQ, row["msgid"])
    assert text.code == 0 and "MQDLH" in text.out


def test_show_ebcdic_message_decodes_text(cli):
    row = cli("browse", DLQ, "--json", "--where", "dest_q = ZOS.INBOUND", "--limit", "1").json[0]
    doc = cli("show", DLQ, row["msgid"], "--json").json
    assert doc["md"]["Encoding"] == 785 and doc["md"]["CodedCharSetId"] == 500
    assert doc["headers"][0]["dest_q"] == "ZOS.INBOUND"
    assert doc["payload"]["ccsid"] == 500 and doc["payload"]["text"].startswith("ACCT")


def test_summary_json_and_text(cli):
    r = cli("summary", DLQ, "--json")
    assert r.code == 0, r.err
    doc = r.json
    total = len(cli("browse", DLQ, "--json").json)
    assert doc["total"] == total
    assert sum(x["count"] for x in doc["by_reason_and_dest"]) == total
    assert sum(doc["by_format"].values()) == total
    assert sum(doc["by_age"].values()) == total and sum(doc["by_size"].values()) == total
    assert doc["oldest"]["put_time"] <= doc["youngest"]["put_time"]
    text = cli("summary", DLQ)
    assert text.code == 0 and "APP.SMALL" in text.out


def test_destinations_name_their_queue_manager(cli):
    """The demo's messages for APP.ORDERS on QM9 are not the local APP.ORDERS: summary
    (counted inside the store) and browse say APP.ORDERS@QM9 (issue 15 item 7)."""
    cli("put", DLQ, "--text", "x")  # a message without a header beside them
    doc = cli("summary", DLQ, "--json").json
    remote = [g for g in doc["by_reason_and_dest"] if g["reason"] == 2087]
    assert [(g["destination"], g["dest_q"], g["dest_qmgr"]) for g in remote] == [
        ("APP.ORDERS@QM9", "APP.ORDERS", "QM9")]
    local = [g for g in doc["by_reason_and_dest"] if g["dest_q"] == "APP.SMALL"]
    assert local and all(g["destination"] == "APP.SMALL" and g["dest_qmgr"] == "QM1"
                         for g in local)
    text = cli("summary", DLQ).out
    assert "MQRC_UNKNOWN_REMOTE_Q_MGR (2087)       APP.ORDERS@QM9" in text
    browsed = cli("browse", DLQ, "--where", "reason = 2087", "--limit", "1").out
    assert "APP.ORDERS@QM9" in browsed


def test_payload_escape_sequences_never_reach_terminal(cli):
    cli("queue", "define", "EVIL.Q")
    evil = "\x1b[2J\x1b]0;pwned\x07[bold red]boom[/] \x9b31m"
    assert cli("put", "EVIL.Q", "--text", evil).code == 0
    for args in (("browse", "EVIL.Q"), ("browse", "EVIL.Q", "--json")):
        r = cli(*args)
        assert r.code == 0
        assert "\x1b" not in r.out and "\x07" not in r.out and "\x9b" not in r.out
    msgid = cli("browse", "EVIL.Q", "--json").json[0]["msgid"]
    r = cli("show", "EVIL.Q", msgid)
    assert "\x1b" not in r.out and "\x07" not in r.out
    assert "[bold red]boom[/]" in r.out  # markup shown literally
    doc = json.loads(cli("show", "EVIL.Q", msgid, "--json").out)
    assert doc["payload"]["text"] == evil  # JSON keeps the data exact (escaped)


def test_show_takes_the_msgid_end_that_browse_shows(cli):
    row = cli("browse", DLQ, "--json", "--limit", "1").json[0]
    text = cli("browse", DLQ, "--limit", "1").out
    end = row["msgid"][-16:]
    assert end in text  # the MSGID (end) column
    r = cli("show", DLQ, end, "--json")
    assert r.code == 0, r.err
    assert r.json["md"]["MsgId"] == row["msgid"]
    assert cli("show", DLQ, end.lower()).code == 0


def test_show_refuses_an_ambiguous_or_unknown_msgid_end(cli):
    cli("queue", "define", "T.Q")
    for head in ("01", "02"):
        assert cli("put", "T.Q", "--text", "x", "--msgid", head * 16 + "AB" * 8).code == 0
    r = cli("show", "T.Q", "AB" * 8)
    assert (r.code, r.out) == (2, "")
    assert r.err.strip() == (f"mqconsole: 2 MsgIds on T.Q end with {'AB' * 8} "
                             f"({'01' * 16 + 'AB' * 8}, {'02' * 16 + 'AB' * 8}): give more "
                             "of the MsgId")
    r = cli("show", "T.Q", "02" + "AB" * 8, "--json")
    assert r.code == 0 and r.json["md"]["MsgId"] == "02" * 16 + "AB" * 8
    r = cli("show", "T.Q", "CDEF")
    assert r.code == 2 and "no message with MsgId CDEF on T.Q (nor one ending" in r.err
    r = cli("show", "T.Q", "0" * 50)
    assert r.code == 2 and "not hexadecimal" in r.err


def test_browse_from_a_position_and_the_last_messages(cli):
    """The CLI's face of the console's PageDown and End (issue 16): --from N and --last N
    give what a browse from the start meets at those positions."""
    whole = cli("browse", DLQ, "--json").json
    assert len(whole) > 60
    tail = cli("browse", DLQ, "--json", "--last", "7").json
    assert tail == whole[-7:] and tail[-1]["position"] == len(whole)
    page = cli("browse", DLQ, "--json", "--from", "41", "--limit", "10").json
    assert page == whole[40:50] and page[0]["position"] == 41
    assert cli("browse", DLQ, "--json", "--from", str(len(whole) + 1)).json == []
    matching = cli("browse", DLQ, "--json", "--where", "reason = Q_FULL").json
    assert cli("browse", DLQ, "--json", "--where", "reason = Q_FULL",
               "--last", "3").json == matching[-3:]
    later = [r for r in matching if r["position"] >= 100]
    assert cli("browse", DLQ, "--json", "--where", "reason = Q_FULL",
               "--from", "100").json == later
    text = cli("browse", DLQ, "--from", "41", "--limit", "5")
    assert text.code == 0 and "showing from position 41, 5" in text.err + text.out
    bad = cli("browse", DLQ, "--last", "3", "--from", "2")
    assert bad.code == 2 and "--last N" in bad.err and "Traceback" not in bad.err


def test_browse_from_past_the_end_says_how_many_there_are(cli):
    for args in ((), ("--json",)):
        r = cli("browse", DLQ, "--from", "500", *args)
        assert r.code == 0, r.err
        assert f"nothing on {DLQ} from position 500: it holds 240 messages" in r.err
        assert "empty" not in r.err
    r = cli("browse", DLQ, "--from", "500", "--where", "reason = 2053")
    assert r.code == 0 and "from position 500 matched (it holds 240 messages)" in r.err
    cli("queue", "define", "EMPTY.Q")
    for args in (("--last", "5"), ("--from", "3")):
        r = cli("browse", "EMPTY.Q", *args)
        assert r.code == 0 and r.err.strip() == "EMPTY.Q is empty", r.err


def test_a_reason_mq_has_no_name_for_is_the_number_alone(cli, demo):
    """Issue 24 item 6: browse's REASON column and show's MQDLH say 65535, never
    UNKNOWN_65535; --json's reason_name is null for it (as summary's)."""
    from mqconsole.backends.base import Context
    from mqconsole.backends.open import open_embedded
    from mqconsole.mq.chain import add_dead_letter_header
    from mqconsole.mq.md import MQMD
    from mqconsole.mq.message import Message

    md, body = add_dead_letter_header(MQMD(format="MQSTR", ccsid=1208), b"odd", reason=65535,
                                      dest_q_name="APP.ORDERS", dest_qmgr_name="QM1")
    qm = open_embedded(demo)
    try:
        from mqconsole.mq.queue import QueueAttrs

        qm.define_queue(QueueAttrs(name="ODD.DLQ"))
        qm.put("ODD.DLQ", Message(md, body), context=Context.SET_ALL, syncpoint=False)
    finally:
        qm.close()
    text = cli("browse", "ODD.DLQ")
    assert text.code == 0 and "65535" in text.out and "UNKNOWN" not in text.out, text.out
    [row] = cli("browse", "ODD.DLQ", "--json").json
    assert row["dlh"]["reason"] == 65535 and row["dlh"]["reason_name"] is None
    shown = cli("show", "ODD.DLQ", row["msgid"])
    assert shown.code == 0 and "UNKNOWN" not in shown.out, shown.out
    assert "reason              65535" in shown.out
