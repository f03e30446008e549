"""save --all and load of many messages (issue 16): streamed in flat memory, with progress,
byte-exact through save → load with hostile descriptors, and the fast routes (the embedded
cursor's packed pages, the regex reader) giving exactly what the general ones give."""

from __future__ import annotations

import io
import random
import tracemalloc

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mqconsole.backends.base import Context, packed_browse
from mqconsole.backends.open import open_embedded
from mqconsole.mq.md import MQMD
from mqconsole.mq.message import Message
from mqconsole.mq.queue import QueueAttrs
from mqconsole.ops.dmpfile import DmpFileError, DmpReader, DmpWriteError, check_dmp_file
from mqconsole.ops.journal import Journal
from mqconsole.ops.operation import Operation
from mqconsole.ops.operation.kinds import Load
from mqconsole.ops.result import Control, MsgIdLog
from mqconsole.ops.savefile import load_to_queue, save_queue, write_messages_file
from mqconsole.ops.selection import Selection
from tests.support.examples import examples
from tests.support.templates import filled_template

SRC, DST = "APP.SRC", "APP.DST"

# -- hostile descriptors ---------------------------------------------------------------------

# every latin-1 character but the line breaks a dmpmqmsg text field cannot carry
_CHARS = st.characters(min_codepoint=0, max_codepoint=255, blacklist_characters="\r\n")
_LONG = st.integers(min_value=-(2**31), max_value=2**31 - 1)


def _text(n: int) -> st.SearchStrategy[str]:
    return st.text(_CHARS, max_size=n)


MDS = st.builds(
    MQMD, version=st.sampled_from([1, 2]), report=_LONG, msg_type=_LONG, feedback=_LONG,
    encoding=st.sampled_from([273, 546, 785, 0, 1, 2**31 - 1]) | _LONG, ccsid=_LONG,
    format=st.sampled_from(["MQSTR", "MQDEAD", "MQHRF2", ""]) | _text(8),
    priority=st.integers(0, 9), persistence=st.integers(0, 1),
    msg_id=st.binary(min_size=1, max_size=24).filter(any),
    correl_id=st.binary(max_size=24), reply_to_q=_text(48), reply_to_qmgr=_text(48),
    user_identifier=_text(12), accounting_token=st.binary(max_size=32),
    appl_identity_data=_text(32), put_appl_type=_LONG, put_appl_name=_text(28),
    put_date=_text(8), put_time=_text(8), appl_origin_data=_text(4),
    group_id=st.binary(max_size=24), msg_seq_number=_LONG, offset=_LONG, msg_flags=_LONG,
    original_length=_LONG)
BODIES = st.binary(max_size=120) | st.sampled_from([b"", b"\n\nA VER 2\n", b"X " * 30])


_TEXT_CODES = [c for c in range(256) if c not in (10, 13)]
"""The latin-1 characters a text field may hold (built once: it was built per character)."""


def random_md(rnd: random.Random) -> MQMD:
    def text(n: int) -> str:
        return "".join(chr(rnd.choice(_TEXT_CODES)) for _ in range(rnd.randint(0, n)))

    def long() -> int:
        return rnd.choice([0, -1, 1, 2**31 - 1, -(2**31), rnd.randint(-(2**31), 2**31 - 1)])

    return MQMD(version=rnd.choice([1, 2]), report=long(), msg_type=long(),
                feedback=long(), encoding=rnd.choice([273, 546, long()]), ccsid=long(),
                format=rnd.choice(["MQSTR", "MQDEAD", text(8)]), priority=rnd.randint(0, 9),
                persistence=rnd.randint(0, 1), msg_id=rnd.randbytes(24),
                correl_id=rnd.randbytes(rnd.randint(0, 24)), reply_to_q=text(48),
                reply_to_qmgr=text(48), user_identifier=text(12),
                accounting_token=rnd.randbytes(32), appl_identity_data=text(32),
                put_appl_type=long(), put_appl_name=text(28), put_date=text(8),
                put_time=text(8), appl_origin_data=text(4), group_id=rnd.randbytes(24),
                msg_seq_number=long(), offset=long(), msg_flags=long(),
                original_length=long())


def new_qm():
    qm = open_embedded(":memory:")
    for q in (SRC, DST):
        qm.define_queue(QueueAttrs(q, max_depth=1_000_000))
    return qm


def put_all(qm, queue: str, messages) -> None:
    for i, m in enumerate(messages, 1):
        qm.put(queue, m, context=Context.SET_ALL, syncpoint=True)
        if i % 500 == 0:
            qm.commit()
    qm.commit()


def browse(qm, queue: str) -> list[Message]:
    with qm.browse(queue) as c:
        return c.next_batch(1_000_000)


def messages_part(path) -> bytes:
    """The file after its header (the header says when and from which queue)."""
    data = path.read_bytes()
    return data[data.index(b"\n\n") + 2:]


def round_trip(qm, tmp_path, name: str) -> None:
    """save SRC → load onto DST → save DST: the two files' messages are the same bytes,
    and DST holds what SRC holds (BackoutCount aside: a put starts it at 0)."""
    first, second = tmp_path / f"{name}-1.dmp", tmp_path / f"{name}-2.dmp"
    saved = save_queue(qm, SRC, first, Selection(all=True), force=True)
    loaded = load_to_queue(qm, first, DST)
    assert loaded.all_done and loaded.done == saved.done
    save_queue(qm, DST, second, Selection(all=True), force=True)
    assert messages_part(first) == messages_part(second)
    source, copies = browse(qm, SRC), browse(qm, DST)
    assert [(m.md.copy(backout_count=0), m.body) for m in source] == [
        (m.md, m.body) for m in copies]


@examples(25)
@given(st.lists(st.tuples(MDS, BODIES), min_size=1, max_size=25))
def test_save_then_load_is_byte_exact_with_hostile_descriptors(tmp_path_factory, items):
    tmp_path = tmp_path_factory.mktemp("rt")
    qm = new_qm()
    try:
        put_all(qm, SRC, [Message(md, body) for md, body in items])
        round_trip(qm, tmp_path, "h")
    finally:
        qm.close()


@pytest.mark.slow
def test_a_few_thousand_hostile_messages_round_trip(tmp_path):
    rnd = random.Random(16)
    qm = new_qm()
    try:
        put_all(qm, SRC, [Message(random_md(rnd), rnd.randbytes(rnd.randint(0, 300)))
                          for _ in range(3000)])
        round_trip(qm, tmp_path, "k")
    finally:
        qm.close()


@pytest.mark.slow
def test_the_fast_save_writes_what_the_general_writer_writes(tmp_path):
    rnd = random.Random(7)
    qm = new_qm()
    try:
        put_all(qm, SRC, [Message(random_md(rnd), rnd.randbytes(rnd.randint(0, 200)))
                          for _ in range(400)])
        fast, general = tmp_path / "fast.dmp", tmp_path / "general.dmp"
        save_queue(qm, SRC, fast, Selection(all=True))
        write_messages_file(general, browse(qm, SRC), qmgr=qm.name, queue=SRC)
        assert messages_part(fast) == messages_part(general)
        assert check_dmp_file(fast) == []
    finally:
        qm.close()


def test_a_line_break_in_a_text_field_still_refuses_the_save(qm_pair, tmp_path):
    qm = qm_pair
    put_all(qm, SRC, [Message(MQMD(format="MQSTR", msg_id=b"a"), b"1"),
                      Message(MQMD(reply_to_q="A\nB", msg_id=b"b"), b"2")])
    with pytest.raises(DmpWriteError, match="RTQ"):
        save_queue(qm, SRC, tmp_path / "x.dmp", Selection(all=True))
    assert not list(tmp_path.iterdir())  # nothing published, no partial file left


@pytest.fixture
def qm_pair(make_qm):
    return make_qm(SRC, DST, max_depth=1_000_000)


# -- the fast reader against the general one -----------------------------------------------------

def sample_file() -> bytes:
    rnd = random.Random(3)
    out = io.StringIO()
    from mqconsole.ops.dmpfile import write_header, write_message
    write_header(out, qmgr="QM1", queue=SRC)
    for i in range(3):
        write_message(out, Message(random_md(rnd), rnd.randbytes(30 + i * 20)))
    return out.getvalue().encode("latin-1")


SAMPLE = sample_file()


def read_both(data: bytes):
    """What the fast reader (a binary file) and the general one (text) make of ``data``:
    the messages, or the error's sentence."""
    def run(fast: bool):
        try:
            with DmpReader(io.BytesIO(data), name="f.dmp", fast=fast) as r:
                return [(m.md, m.body) for m in r]
        except DmpFileError as exc:
            return str(exc)
    return run(True), run(False)


@examples(300)
@given(st.data())
def test_the_fast_reader_reads_and_refuses_as_the_general_one(data):
    raw = bytearray(SAMPLE)
    for _ in range(data.draw(st.integers(1, 3))):
        at = data.draw(st.integers(0, len(raw) - 1))
        what = data.draw(st.sampled_from(["set", "insert", "delete"]))
        byte = data.draw(st.sampled_from([b"\n", b"\r", b" ", b"9", b"-", b"X", b"A", b"*",
                                          b"G", b"\x00", b"\xff", b"Z"]))
        if what == "set":
            raw[at:at + 1] = byte
        elif what == "insert":
            raw[at:at] = byte
        else:
            del raw[at]
    fast, general = read_both(bytes(raw))
    assert fast == general


def test_a_data_line_after_a_message_s_empty_line_is_read_alike_by_both_readers():
    """Empty lines may stand anywhere (the general reader's rule, tests/ops/test_dmpfile.py),
    so an 'X' line after a message's empty line (here a damaged 'A VER' line) is more of
    that message. The fast reader, which reads a message at a time, had given that message
    out already and refused the 'X' line as starting no message (found by the property
    test above): it now holds each message until what follows cannot continue it."""
    last = SAMPLE.rindex(b"\nA VER ") + 1
    damaged = SAMPLE[:last] + b"X" + SAMPLE[last + 1:]
    fast, general = read_both(damaged)
    assert fast == general
    assert isinstance(general, list) and len(general) == 3
    assert general[:2] == read_both(SAMPLE)[1][:2]  # the 'X' line held no hex pair


def test_count_messages_checks_what_reading_checks():
    big = SAMPLE.replace(b"A PRI ", b"A PRI 9999999999", 1)
    for data in (SAMPLE, big, SAMPLE + b"A VER 2\n"):
        with DmpReader(io.BytesIO(data), name="f.dmp") as r:
            try:
                counted: int | str = r.count_messages()
            except DmpFileError as exc:
                counted = str(exc)
        fast, _ = read_both(data)
        assert counted == (fast if isinstance(fast, str) else len(fast))


# -- streaming: flat memory, no object per message, progress -------------------------------------

N = 4000
BODY = bytes(range(256)) * 12  # 3 KiB: a list of every message would be > 12 MB


@pytest.fixture(scope="module")
def filled(tmp_path_factory):
    """SRC holding the N messages, DST empty: put once for the module (each test that reads
    or empties it gets a private copy, ``make_qm(copy_of=...)``, not N puts of its own)."""
    return filled_template(
        tmp_path_factory.mktemp("streaming"), (SRC, DST), 1_000_000,
        lambda qm: put_all(qm, SRC, (Message(MQMD(format="MQSTR", msg_id=i.to_bytes(24, "big")),
                                             BODY) for i in range(1, N + 1))))


@pytest.fixture
def full(make_qm, filled):
    return make_qm(copy_of=filled)


def peak_of(work) -> int:
    tracemalloc.start()
    try:
        work()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.slow
def test_save_all_streams_packed_pages_in_flat_memory(full, tmp_path, monkeypatch):
    import mqconsole.backends.embedded.cursor as cursor_module
    made = []
    real = cursor_module.message_from_row
    monkeypatch.setattr(cursor_module, "message_from_row",
                        lambda *a, **k: made.append(1) or real(*a, **k))
    with full.browse(SRC) as c:
        assert packed_browse(c) is not None  # the embedded cursor reads packed pages
    seen: list[tuple[int, int | None]] = []
    path = tmp_path / "all.dmp"
    peak = peak_of(lambda: save_queue(full, SRC, path, Selection(all=True),
                                      control=Control(progress=lambda d, t: seen.append((d, t)))))
    assert made == []  # not one Message built
    assert peak < 6_000_000, peak  # about 4 MB; a list of every message: > 12 MB
    assert path.stat().st_size > N * len(BODY) * 2
    assert seen[-1] == (N, N) and [d for d, _ in seen] == sorted(d for d, _ in seen)


@pytest.mark.slow
def test_load_streams_in_flat_memory_and_reports_progress_to_the_end(full, tmp_path):
    path = tmp_path / "all.dmp"
    save_queue(full, SRC, path, Selection(all=True))
    seen: list[tuple[int, int | None]] = []
    results = []
    peak = peak_of(lambda: results.append(load_to_queue(
        full, path, DST, control=Control(progress=lambda d, t: seen.append((d, t))))))
    assert results[0].done == N and results[0].all_done
    assert peak < 6_000_000, peak  # about 4 MB; a list of every message: > 12 MB
    assert seen[-1] == (N, N)
    assert isinstance(results[0].done_msgids, MsgIdLog) and len(results[0].done_msgids) == N


@pytest.mark.slow
def test_delete_keeps_what_it_saved_on_disk(full, tmp_path):
    from mqconsole.ops.delete import delete_messages
    results = []
    peak = peak_of(lambda: results.append(delete_messages(
        full, SRC, Selection(all=True), backup=tmp_path / "b.dmp")))
    assert results[0].done == N and results[0].all_done
    assert browse(full, SRC) == [] and len(list(DmpReader(tmp_path / "b.dmp"))) == N
    assert peak < 6_000_000, peak  # about 4 MB; with every saved key in a list: ~10 MB


@pytest.mark.slow
def test_a_journaled_load_of_many_keeps_its_end_record_small(full, tmp_path):
    path = tmp_path / "all.dmp"
    save_queue(full, SRC, path, Selection(all=True))
    journal = Journal(tmp_path / "journal.jsonl")
    summary = Operation(Load(str(path), DST), journal=journal).run(full)
    assert summary.result.done == N
    last = (tmp_path / "journal.jsonl").read_text().splitlines()[-1]
    assert '"record":"end"' in last and len(last) < 4000
    entry = journal.read_operation(last.split('"op":"')[1].split('"')[0])
    assert entry is not None and len(entry.msgids) == N  # every id, from the unit records
    assert entry.msgids[:2] == [(1).to_bytes(24, "big").hex().upper(),
                                (2).to_bytes(24, "big").hex().upper()]


def test_msgid_log_spills_past_what_it_keeps_and_gives_every_id_in_order():
    ids = [f"{i:048X}" for i in range(57)] + ['not "hex"\n']
    log = MsgIdLog(keep=10)
    for i in ids[:13]:
        log.append(i)
    log.extend(ids[13:])
    assert len(log) == len(ids) and list(log) == ids and log == ids
    assert list(log.after(40)) == ids[40:]


# -- the packed puts of a load against put --------------------------------------------------------

@pytest.mark.slow
def test_a_packed_load_stores_the_rows_a_load_message_by_message_stores(tmp_path):
    """``put_packed`` (what load uses on the embedded backend) against ``put`` of each
    message (the route a plugin's check takes): the same rows, column for column, and the
    same refusals, for descriptors a queue resolves ("as queue" priority and persistence,
    a blank MsgId, a BackoutCount in the file, an expiry) and ones it refuses."""
    import sqlite3

    rnd = random.Random(11)
    messages = []
    for i in range(400):
        md = random_md(rnd)
        md.backout_count = rnd.choice([0, 3])
        md.priority = rnd.choice([-1, 0, 5, 9, -2 if i % 97 == 0 else 4])
        md.persistence = rnd.choice([0, 1, 2, 7 if i % 89 == 0 else 1])
        md.expiry = rnd.choice([-1, -1, 600_000, 0 if i % 83 == 0 else -1])
        if i % 7 == 0:
            md.msg_id = b""
        messages.append(Message(md, rnd.randbytes(rnd.randint(0, 150))))
    path = tmp_path / "mixed.dmp"
    write_messages_file(path, messages, qmgr="QM1", queue=SRC)
    db = tmp_path / "qm.sqlite"
    qm = open_embedded(db, create=True)
    try:
        for q in ("FAST", "SLOW"):
            qm.define_queue(QueueAttrs(q, max_depth=10_000, default_priority=3,
                                       default_persistence=1))
        fast = load_to_queue(qm, path, "FAST")
        slow = load_to_queue(qm, path, "SLOW", check=lambda message, queue: None)
    finally:
        qm.close()
    refusals = [(f.position, f.reason) for f in fast.failed]
    assert refusals and refusals == [(f.position, f.reason) for f in slow.failed]
    assert fast.done == slow.done == 400 - len(refusals)
    cols = ("npri, priority, backout_count, expires_at IS NULL, length, body, f_reason, "
            "f_dest, f_format, f_put")
    with sqlite3.connect(db) as conn:
        def rows(queue: str, what: str) -> list:
            return conn.execute(f"SELECT {what} FROM messages WHERE queue = ? ORDER BY id",
                                (queue,)).fetchall()
        assert rows("FAST", cols) == rows("SLOW", cols)
        # the MDs alike but for the new MsgIds given for blank ones (``AMQ QM1 …``)
        def without_new_ids(queue: str) -> list:
            return [md[:48] + (b"?" * 24 if md[48:52] == b"AMQ " else md[48:72]) + md[72:]
                    for (md,) in rows(queue, "md")]
        assert without_new_ids("FAST") == without_new_ids("SLOW")
