"""Edit: one unit of work (put the edited message, then get the original), MsgId and context
kept, settable fields, validation checks, and faults that leave the original untouched."""

from __future__ import annotations

import pytest

from mqconsole.backends.base import Context
from mqconsole.mq.chain import add_dead_letter_header, parse_body
from mqconsole.mq.md import MQMD
from mqconsole.mq.message import Message
from mqconsole.mq.queue import QueueAttrs
from mqconsole.ops.edit import (
    EditError,
    Problem,
    build_edited,
    edit_message,
    parse_assignments,
    validate,
)
from tests.support.faulty import Faults, FaultyQueueManager

Q, OTHER = "APP.Q", "APP.OTHER"


@pytest.fixture
def qm(make_qm):
    return make_qm(Q, QueueAttrs(OTHER, max_msg_length=100))


def put(qm, body: bytes, *, queue: str = Q, msg_id: bytes = b"", **md) -> Message:
    base = dict(format="MQSTR", ccsid=1208, persistence=1, priority=0, msg_id=msg_id,
                user_identifier="alice", put_appl_name="orders", put_date="20260101",
                put_time="12000000")
    base.update(md)
    return qm.put(queue, Message(MQMD(**base), body), context=Context.SET_ALL,
                  syncpoint=False)


def browse(qm, queue: str = Q) -> list[Message]:
    with qm.browse(queue) as c:
        return c.next_batch(1000)


def test_edit_replaces_body_keeps_msgid_and_context(qm):
    put(qm, b"before 1")
    orig = put(qm, b'{"a": 1}')
    put(qm, b"after 1")
    out = edit_message(qm, Q, orig.md.msg_id, text='{"a": 2}',
                       changes=parse_assignments(["Persistence=NOT_PERSISTENT",
                                                  "Priority=5", "CorrelId=ABCD"]))
    assert out.result.all_done and out.result.done == 1 and out.position == 2
    msgs = browse(qm)
    assert [m.body for m in msgs] == [b'{"a": 2}', b"before 1", b"after 1"]  # priority 5 first
    new = msgs[0]
    assert new.md.msg_id == orig.md.msg_id and out.new_msgid == orig.msg_id_hex
    assert new.md.persistence == 0 and new.md.priority == 5
    assert new.md.correl_id == bytes.fromhex("ABCD").ljust(24, b"\x00")
    for f in ("user_identifier", "put_appl_name", "put_date", "put_time"):
        assert getattr(new.md, f) == getattr(orig.md, f)


def test_edit_to_another_queue_and_new_context(qm):
    orig = put(qm, b"hello")
    out = edit_message(qm, Q, orig.md.msg_id, text="hello there", to=OTHER, new_context=True)
    assert out.result.done == 1 and out.result.moved_to == {OTHER: 1}
    assert browse(qm) == []
    [m] = browse(qm, OTHER)
    assert m.body == b"hello there" and m.md.msg_id == orig.md.msg_id
    assert m.md.put_appl_name != orig.md.put_appl_name


def test_text_is_encoded_in_the_new_ccsid(qm):
    orig = put(qm, b"x")
    edit_message(qm, Q, orig.md.msg_id, text="Grüße",
                 changes=parse_assignments(["CodedCharSetId=500"]))
    [m] = browse(qm)
    assert m.md.ccsid == 500 and m.body == "Grüße".encode("cp500")


def test_keep_headers_replaces_only_the_payload(qm):
    md = MQMD(format="MQSTR", ccsid=1208, encoding=546)
    dmd, body = add_dead_letter_header(md, b"old payload", reason=2053, dest_q_name="APP.X",
                                       dest_qmgr_name="QM1")
    orig = qm.put(Q, Message(dmd, body), context=Context.SET_ALL, syncpoint=False)
    edit_message(qm, Q, orig.md.msg_id, text="new payload", keep_headers=True)
    [m] = browse(qm)
    parsed = parse_body(m.md, m.body)
    assert parsed.payload == b"new payload" and parsed.dlh.dest_q_name.strip() == "APP.X"


def test_replacing_a_dead_letter_body_without_its_header_is_refused(qm):
    dmd, body = add_dead_letter_header(MQMD(format="MQSTR", ccsid=1208), b"old", reason=2053,
                                       dest_q_name="APP.X")
    orig = qm.put(Q, Message(dmd, body), context=Context.SET_ALL, syncpoint=False)
    with pytest.raises(EditError, match="--keep-headers") as err:
        edit_message(qm, Q, orig.md.msg_id, text="new")
    assert [p.check for p in err.value.problems] == ["headers"]
    edit_message(qm, Q, orig.md.msg_id, text="new", changes={"format": "MQSTR   "})
    assert browse(qm)[0].body == b"new"


def test_duplicate_msgids_need_a_position(qm):
    same = b"DUP".ljust(24, b"\x00")
    put(qm, b"one", msg_id=same)
    put(qm, b"two", msg_id=same)
    with pytest.raises(EditError) as err:
        edit_message(qm, Q, same, text="x")
    assert err.value.positions == [1, 2] and "--position" in str(err.value)
    with pytest.raises(EditError):
        edit_message(qm, Q, same, text="x", position=3)
    edit_message(qm, Q, same, text="TWO", position=2)
    assert [m.body for m in browse(qm)] == [b"one", b"TWO"]


def test_unknown_msgid(qm):
    with pytest.raises(EditError, match="no message"):
        edit_message(qm, Q, b"NOPE", text="x")


@pytest.mark.parametrize("item,attr,value", [
    ("Persistence=PERSISTENT", "persistence", 1),
    ("persistence=MQPER_NOT_PERSISTENT", "persistence", 0),
    ("Format=MQSTR", "format", "MQSTR   "),
    ("Format=MQFMT_STRING", "format", "MQSTR   "),
    ("Format=NONE", "format", "        "),
    ("MsgType=REQUEST", "msg_type", 1),
    ("Feedback=EXPIRATION", "feedback", 258),
    ("Expiry=UNLIMITED", "expiry", -1),
    ("Encoding=NATIVE", "encoding", 546),
    ("Encoding=0x111", "encoding", 273),
    ("CCSID=819", "ccsid", 819),
    ("Priority=AS_Q_DEF", "priority", -1),
    ("ReplyToQ=REPLY.Q", "reply_to_q", "REPLY.Q"),
    ("CorrelId=NONE", "correl_id", b"\x00" * 24),
])
def test_set_accepts_names_and_numbers(item, attr, value):
    assert parse_assignments([item]) == {attr: value}


@pytest.mark.parametrize("item,words", [
    ("PutApplName=x", ["PutApplName", "Format", "Feedback"]),
    ("Persistence=MAYBE", ["Persistence", "PERSISTENT"]),
    ("Priority=12", ["Priority", "0-9"]),
    ("Format=TOOLONGNAME", ["8"]),
    ("Expiry=0", ["Expiry"]),
    ("nothing", ["FIELD=VALUE"]),
])
def test_set_refuses_bad_fields_and_values(item, words):
    with pytest.raises(EditError) as err:
        parse_assignments([item])
    assert all(w in str(err.value) for w in words)


def test_validation_checks():
    json_orig = Message(MQMD(format="MQSTR", ccsid=1208), b'{"a": 1}')
    xml_orig = Message(MQMD(format="MQSTR", ccsid=1208), b"<a><b/></a>")
    bad_json = build_edited(json_orig, text='{"a": ')
    assert [p.check for p in validate(json_orig, bad_json)] == ["json"]
    assert validate(json_orig, build_edited(json_orig, text='{"a": 2}')) == []
    assert [p.check for p in validate(xml_orig, build_edited(xml_orig, text="<a><b></a>"))] \
        == ["xml"]
    undecodable = build_edited(json_orig, body=b"\xff\xfe\xfd")
    assert "text" in [p.check for p in validate(json_orig, undecodable)]
    big = build_edited(json_orig, text='{"a": "' + "x" * 200 + '"}')
    [p] = validate(json_orig, big, target=QueueAttrs(name="T", max_msg_length=100))
    assert p.level == "error" and "MAXMSGL" in p.text
    plain = Message(MQMD(format="MQSTR", ccsid=1208), b"just text")
    assert validate(plain, build_edited(plain, text="{not json")) == []


def test_checks_are_a_list_plugins_can_extend(qm):
    orig = put(qm, b"text")

    def no_secrets(original, edited, target):
        if b"secret" in edited.body:
            yield Problem("error", "secrets", "the payload holds a secret")

    def broken(original, edited, target):
        raise RuntimeError("boom")

    with pytest.raises(EditError) as err:
        edit_message(qm, Q, orig.md.msg_id, text="a secret", checks=[no_secrets])
    assert err.value.problems[0].check == "secrets"
    problems = validate(orig, orig, checks=[broken])
    assert problems[0].level == "error" and "boom" in problems[0].text
    out = edit_message(qm, Q, orig.md.msg_id, text="a secret", checks=[no_secrets],
                       force=True)
    assert out.result.done == 1 and browse(qm)[0].body == b"a secret"


def test_validation_error_refuses_and_changes_nothing(qm):
    orig = put(qm, b'{"a": 1}')
    with pytest.raises(EditError, match="JSON"):
        edit_message(qm, Q, orig.md.msg_id, text="{broken")
    assert [m.body for m in browse(qm)] == [b'{"a": 1}']


def test_dry_run_changes_nothing(qm):
    orig = put(qm, b"x")
    out = edit_message(qm, Q, orig.md.msg_id, text="y", dry_run=True)
    assert out.result.dry_run and out.result.plan and browse(qm)[0].body == b"x"


def test_put_refused_leaves_the_original_untouched(qm):
    orig = put(qm, b"x")
    out = edit_message(qm, Q, orig.md.msg_id, text="y" * 150, to=OTHER, force=True)
    [f] = out.result.failed
    assert f.reason_name == "MQRC_MSG_TOO_BIG_FOR_Q" and out.result.done == 0
    assert [m.body for m in browse(qm)] == [b"x"] and browse(qm, OTHER) == []
    assert browse(qm)[0].md.backout_count == 0


@pytest.mark.parametrize("faults", [Faults(put={1: 2053}), Faults(get={1: 2009}),
                                    Faults(wrong_get={1}), Faults(commit={1: 2003})])
def test_faults_leave_exactly_the_original(qm, faults):
    orig = put(qm, b"original")
    out = edit_message(FaultyQueueManager(qm, faults), Q, orig.md.msg_id, text="edited")
    assert out.result.done == 0 and len(out.result.failed) == 1 and faults.injected
    msgs = browse(qm)
    assert [m.body for m in msgs] == [b"original"]
    assert msgs[0].md.copy(backout_count=0) == orig.md.copy(backout_count=0)
    assert not qm.in_unit_of_work


def test_fault_on_another_queue_leaves_nothing_there(qm):
    orig = put(qm, b"original")
    edit_message(FaultyQueueManager(qm, Faults(get={1: 2009})), Q, orig.md.msg_id,
                 text="edited", to=OTHER)
    assert [m.body for m in browse(qm)] == [b"original"] and browse(qm, OTHER) == []


def test_unknown_commit_outcome_is_reported(qm):
    orig = put(qm, b"original")
    out = edit_message(FaultyQueueManager(qm, Faults(commit_after={1: 2549})), Q,
                       orig.md.msg_id, text="edited")
    assert out.result.outcome_unknown and not out.result.all_done
    assert [m.body for m in browse(qm)] == [b"edited"]  # in fact it committed
