"""dmpmqmsg/qload files and amqsbcg output: layout, every reader variant, errors, round trips."""

from __future__ import annotations

import io
import os
import random
import re
import struct
import tracemalloc
from datetime import datetime
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mqconsole.mq.dlh import MQDLH
from mqconsole.mq.md import LAYOUT, MQMD
from mqconsole.mq.message import Message
from mqconsole.ops.dmpfile import (
    DmpFileError,
    DmpReader,
    DmpWriteError,
    DmpWriter,
    check_dmp_file,
    check_dmp_text,
    dump_messages,
    format_ctime,
    header_text,
    load_file,
    read_file_info,
    read_messages,
    read_text,
    write_header,
    write_message,
)
from tests.support.examples import examples

_REAL_NAME = Path("shared/testdata/dmpmqmsg/dmpmqmsg-10.0-real.txt")
# the shared folder sits next to the repository (/work/shared beside /work/main)
REAL = next((p / _REAL_NAME for p in Path(__file__).resolve().parents
             if (p / _REAL_NAME).exists()), Path("/work") / _REAL_NAME)

WHEN = datetime(2026, 9, 22, 2, 34, 33)


def text_of(messages, *, body_style="X", qmgr="QM1", queue="APP.DLQ", style="dmpmqmsg",
            index=False) -> str:
    buf = io.StringIO(newline="\n")
    write_header(buf, qmgr=qmgr, queue=queue, style=style, created=WHEN)
    for n, m in enumerate(messages, 1):
        write_message(buf, m, body_style=body_style, index=n if index else None)
    return buf.getvalue()


def sample_md(**kw) -> MQMD:
    base = dict(format="MQSTR", ccsid=1208, msg_id=bytes(range(24)), correl_id=b"\xc1" * 24,
                reply_to_q="REPLY.Q", reply_to_qmgr="QM1", user_identifier="mqm",
                put_appl_name="amqsput", put_date="20260922", put_time="02342828",
                priority=4, persistence=1)
    base.update(kw)
    return MQMD(**base)


def mini(body_lines: str, extra_desc: str = "") -> str:
    """A small file: header, one message with VER and FMT, then ``body_lines``."""
    return ("* DMPMQMSG Version:9.4.0.0 Created:Tue Sep 22 02:34:33 2026\n\n"
            "A VER 2\nA FMT MQSTR   \n" + extra_desc + body_lines + "\n")


# -- the real file -------------------------------------------------------------------------


def test_real_file_loads_with_its_header():
    with DmpReader(REAL) as reader:
        info = reader.info
        messages = list(reader)
    assert (info.tool, info.version, info.qmgr, info.queue) == ("dmpmqmsg", "10.0.0.0", "QM1",
                                                                "APP.DLQ")
    assert info.created == WHEN and info.created_text == "Tue Sep 22 02:34:33 2026"
    [m] = messages
    md = m.md
    assert md.version == 2 and md.ccsid == 1208 and md.format == "MQSTR   "
    assert md.msg_id.hex().upper() == "414D5120514D31202020202020202020DAA1AD6A02AE0640"
    assert md.reply_to_q == " " * 48 and md.reply_to_qmgr == "QM1".ljust(48)
    assert md.user_identifier == "mqm         " and md.put_appl_name == "amqsput".ljust(28)
    assert md.appl_identity_data == " " * 32 and md.appl_origin_data == "    "
    assert md.accounting_token[:5] == b"\x041001" and md.original_length == -1
    assert m.body.startswith(b'{"original":{"orderId":"13"') and m.body.endswith(b'"}}')
    assert len(m.body) == 9 * 25 + 13


def test_real_file_written_back_is_identical():
    info = read_file_info(REAL)
    [m] = load_file(REAL)
    buf = io.StringIO(newline="\n")
    write_header(buf, qmgr=info.qmgr, queue=info.queue, created=info.created,
                 version=info.version)
    write_message(buf, m)
    assert buf.getvalue().encode("latin-1") == REAL.read_bytes()


def test_real_file_passes_the_checker():
    assert check_dmp_file(REAL) == []


def test_dmpwriter_reproduces_real_file(tmp_path):
    [m] = load_file(REAL)
    out = tmp_path / "again.txt"
    with DmpWriter(out, qmgr="QM1", queue="APP.DLQ", created=WHEN, version="10.0.0.0") as w:
        w.write(m)
    assert w.count == 1 and w.closed
    assert out.read_bytes() == REAL.read_bytes()


# -- writing --------------------------------------------------------------------------------


def test_header_styles_and_ctime():
    assert header_text(qmgr="QM1", queue="Q", created=WHEN, version="9.4.0.0") == (
        "* DMPMQMSG Version:9.4.0.0 Created:Tue Sep 22 02:34:33 2026\n"
        "* Qmgr  = QM1\n* Queue = Q\n\n")
    text = header_text(qmgr=None, queue=None, style="qload",
                       created=datetime(2026, 3, 1, 7, 5, 9), version="V1.9")
    assert text == "* QLOAD Version:V1.9 Created:Sun Mar  1 07:05:09 2026\n\n"
    assert format_ctime(datetime(2026, 11, 2, 0, 0, 0)) == "Mon Nov  2 00:00:00 2026"
    assert header_text(qmgr="QM1" + " " * 45, queue="", created=WHEN).count("\n") == 3
    with pytest.raises(ValueError):
        header_text(qmgr=None, queue=None, style="xml")


def test_descriptor_layout_exact():
    text = text_of([Message(sample_md(), b"hi")])
    lines = text.split("\n")
    a = [ln for ln in lines if ln.startswith("A ")]
    assert [ln[2:5] for ln in a] == ["VER", "RPT", "MST", "EXP", "FDB", "ENC", "CCS", "FMT",
                                     "PRI", "PER", "MSI", "COI", "BOC", "RTQ", "RTM", "USR",
                                     "ACC", "AIX", "PAT", "PAN", "PTD", "PTT", "AOX", "GRP",
                                     "MSQ", "OFF", "MSF", "ORL"]
    assert "A FMT MQSTR   " in a and "A RTQ " + "REPLY.Q".ljust(48) in a
    assert "A MSI " + bytes(range(24)).hex().upper() in a
    assert "A COI " + "C1" * 24 in a
    assert "A AIX " + "20" * 32 in a and "A AOX 20202020" in a
    assert "A EXP -1" in a and "A PRI 4" in a
    assert lines[-3:] == ["X 6869", "", ""]


def test_version_1_descriptor_has_no_group_fields():
    text = text_of([Message(sample_md(version=1), b"")])
    assert "A GRP" not in text and "A ORL" not in text and "A AOX 20202020\nX \n\n" in text
    assert check_dmp_text(text) == []
    [back] = read_text(text)
    assert back.md.version == 1 and back.body == b""


def test_x_lines_are_25_bytes_and_empty_body_is_lone_x():
    body = bytes(range(256)) * 3
    text = text_of([Message(sample_md(), body), Message(sample_md(), b"")])
    xs = [ln for ln in text.split("\n") if ln.startswith("X")]
    assert all(len(x) == 52 for x in xs[:30]) and len(xs[30]) == 2 + 2 * (768 - 750)
    assert xs[31] == "X "
    assert check_dmp_text(text) == []


def test_s_style_layout_follows_dmpmqmsg():
    body = b'say "hi" ~ now' + b"\x00\x01" + b"A" * 60 + b"\xff"
    text = text_of([Message(sample_md(), body)], body_style="S")
    lines = text.split("\n")
    start = lines.index("A ORL -1") + 1
    assert lines[start:start + 6] == [
        'S "say ~"hi~" ~~ now"', "X 0001", 'S "' + "A" * 48 + '"', 'S "' + "A" * 12 + '"',
        "X FF", ""]
    assert check_dmp_text(text) == []
    assert read_text(text)[0].body == body


def test_s_style_body_starting_unprintable_or_empty_starts_with_lone_s():
    text = text_of([Message(sample_md(), b"\x00abc"), Message(sample_md(), b"")],
                   body_style="S")
    assert "A ORL -1\nS \nX 00\nS \"abc\"\n\n" in text
    assert text.endswith("A ORL -1\nS \n\n")
    assert check_dmp_text(text) == []
    assert [m.body for m in read_text(text)] == [b"\x00abc", b""]


def test_index_comments_and_binary_target(tmp_path):
    msgs = [Message(sample_md(), b"one"), Message(sample_md(), b"two")]
    raw = io.BytesIO()
    with DmpWriter(raw, qmgr="QM1", queue="Q", created=WHEN, index=True) as w:
        w.write_all(msgs)
    text = raw.getvalue().decode("latin-1")
    assert "\n* Index 1\nA VER 2\n" in text and "\n* Index 2\nA VER 2\n" in text
    assert check_dmp_text(text) == []
    assert [m.body for m in read_text(text)] == [b"one", b"two"]
    assert not raw.closed  # a file we were given stays open


def test_dump_messages_counts_and_exclusive(tmp_path):
    path = tmp_path / "backup.txt"
    msgs = [Message(sample_md(msg_id=bytes([i]) * 24), bytes([i]) * i) for i in range(5)]
    assert dump_messages(path, msgs, qmgr="QM1", queue="APP.DLQ") == 5
    assert [m.body for m in load_file(path)] == [m.body for m in msgs]
    assert check_dmp_file(path) == []
    with pytest.raises(FileExistsError):
        dump_messages(path, msgs, exclusive=True)


def test_writer_refuses_what_the_format_cannot_carry():
    buf = io.StringIO(newline="\n")
    for md in (sample_md(reply_to_q="BAD\nQ"), sample_md(put_appl_name="r\r"),
               sample_md(user_identifier="ü€"), sample_md(priority=2**31)):
        with pytest.raises(DmpWriteError):
            write_message(buf, Message(md, b"x"))
    assert buf.getvalue() == ""  # nothing half-written
    # a line break is fine in ApplIdentityData: it is written as hex (AIX)
    write_message(buf, Message(sample_md(appl_identity_data="a\nb\r"), b"x"))
    assert read_text("* QLOAD\n" + buf.getvalue())[0].md.appl_identity_data.startswith("a\nb\r")


def test_large_body_is_written_in_chunks(tmp_path):
    body = os.urandom(25 * 4096 * 2 + 7)
    path = tmp_path / "big.txt"
    dump_messages(path, [Message(sample_md(), body)])
    assert check_dmp_file(path) == []
    assert load_file(path)[0].body == body


# -- reading every variant -------------------------------------------------------------------


def test_s_t_lines_and_escapes():
    text = mini('S "ab~"c~~d"\nS plain text   \nT a line\nT\nX 00FF\nS ""\nS \n\n')
    [m] = read_text(text)
    assert m.body == b'ab"c~dplain texta line\n\n\x00\xff'


def test_s_line_text_after_closing_quote_is_ignored_like_dmpmqmsg():
    assert read_text(mini('S "abc" trailing\n'))[0].body == b"abc"


def test_n_message_has_default_descriptor():
    text = "* QLOAD Version:V1.9 Created:x\nN\nX 41\n\nN\nS \"B\"\n\n"
    a, b = read_text(text)
    assert a.md == MQMD() and a.body == b"A" and b.body == b"B"


def test_aid_aod_text_and_aix_aox_hex():
    text = mini("X 41\n", "A AID hello\nA AOD ab\n")
    assert read_text(text)[0].md.appl_identity_data == "hello".ljust(32)
    assert read_text(text)[0].md.appl_origin_data == "ab  "
    text = mini("X 41\n", "A AIX 41424344\nA AOX 00010203\n")
    md = read_text(text)[0].md
    assert md.appl_identity_data == "ABCD" + " " * 28  # short hex fills a prefix
    assert md.appl_origin_data == "\x00\x01\x02\x03"


def test_ascii_columns_after_hex_are_ignored():
    text = mini("X 48656C6C6F                                        <Hello>\n"
                "X 20776F726C64  <world> 4142\n")
    assert read_text(text)[0].body == b"Hello world"


def test_crlf_line_ends():
    text = text_of([Message(sample_md(), b"abc\r\n\x00")]).replace("\n", "\r\n")
    [m] = read_text(text)
    assert m.body == b"abc\r\n\x00" and m.md.format == "MQSTR   "
    assert m.md.reply_to_q == "REPLY.Q".ljust(48)
    assert read_messages(io.BytesIO(text.encode())).__next__().md == m.md


def test_comments_and_empty_lines_anywhere():
    text = ("\n\n* DMPMQMSG Version:1 Created:?\n* Qmgr  = QM9\n* Queue = IN.Q\n* extra\n\n"
            "* Index 1\nA VER 2\n* a comment between descriptor lines\n\nA PRI 7\n"
            "X 41\n* comment in the body\n\nX 42\n\n\n* Index 2\nA PRI 3\nX 43\n\n")
    with DmpReader(io.StringIO(text, newline="\n")) as r:
        msgs = list(r)
        assert (r.info.qmgr, r.info.queue, r.info.created) == ("QM9", "IN.Q", None)
    assert [(m.md.priority, m.body) for m in msgs] == [(7, b"AB"), (3, b"C")]


def test_text_fields_cut_padded_and_valueless_lines():
    text = mini("X 41\n", "A RTQ " + "Q" * 60 + "\nA USR ab\nA PAN\nA PTD \nA PRI\n"
                "A MSI 0102\nA ACC " + "AB" * 40 + "\nA CCS  850 \n")
    md = read_text(text)[0].md
    assert md.reply_to_q == "Q" * 48 and md.user_identifier == "ab".ljust(12)
    assert md.put_appl_name == " " * 28 and md.priority == MQMD().priority
    assert md.msg_id == b"\x01\x02" + b"\x00" * 22
    assert md.accounting_token == b"\xab" * 32 and md.ccsid == 850


def test_text_fields_are_latin1_characters():
    text = "* QLOAD\n\nA VER 1\nA USR caf\xe9\x00\x85 \nX 41\n\n"
    md = load_bytes(text.encode("latin-1"))[0].md
    assert md.user_identifier == "caf\xe9\x00\x85".ljust(12)
    assert md.pack(ccsid=819)[196:208] == b"caf\xe9\x00\x85      "


def load_bytes(data: bytes):
    return list(read_messages(io.BytesIO(data)))


def test_empty_file_holds_no_messages(tmp_path):
    (tmp_path / "empty.txt").write_text("\n  \n")
    assert load_file(tmp_path / "empty.txt") == []
    assert read_file_info(tmp_path / "empty.txt").tool is None


@pytest.mark.slow
def test_reading_is_lazy_and_constant_memory(tmp_path):
    path = tmp_path / "many.txt"
    body = bytes(range(256)) * 80  # 20 KiB
    count = 600
    dump_messages(path, (Message(sample_md(), body) for _ in range(count)), fsync=False)
    assert path.stat().st_size > count * len(body) * 2
    tracemalloc.start()
    seen = 0
    for m in read_messages(path):
        assert m.body == body
        seen += 1
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert seen == count
    # a few of the reader's blocks (fastread.BLOCK), not the 24 MB file
    assert peak < 8_000_000, peak


def test_first_messages_come_before_a_later_error():
    text = text_of([Message(sample_md(), b"ok")]) + "A XYZ 1\nX 00\n"
    it = read_messages(io.StringIO(text, newline="\n"))
    assert next(it).body == b"ok"
    with pytest.raises(DmpFileError, match="unknown descriptor field 'XYZ'"):
        next(it)


# -- errors ----------------------------------------------------------------------------------


def test_error_names_file_and_line(tmp_path, monkeypatch):
    path = tmp_path / "file.txt"
    text = "* DMPMQMSG Version:9.4.0.0 Created:x\n\n" + "A PRI 1\n" * 14 + "A ABC 1\nX 41\n"
    path.write_text(text)
    with pytest.raises(DmpFileError) as err:
        load_file(path)
    assert str(err.value) == f"{path} line 17: unknown descriptor field 'ABC'"
    assert err.value.line_number == 17 and err.value.problem == "unknown descriptor field 'ABC'"
    assert isinstance(err.value, ValueError)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(DmpFileError) as err:
        load_file("file.txt")
    assert str(err.value) == "file.txt line 17: unknown descriptor field 'ABC'"


@pytest.mark.parametrize(("text", "line", "words"), [
    ("hello\n", 1, "not a dmpmqmsg file"),
    ("{\"json\": 1}\n", 1, "not a dmpmqmsg file"),
    ("* QLOAD\nX 41\n", 2, "before any descriptor"),
    ("* QLOAD\nA VER 2\nA PRI 1\n", 2, "no data lines"),
    ("* QLOAD\nA VER 2\n\nA PRI 1\n* c\n", 2, "no data lines"),
    ("* QLOAD\nA VER two\nX 41\n", 2, "not a whole number"),
    ("* QLOAD\nA VER 99999999999\nX 41\n", 2, "32-bit"),
    ("* QLOAD\nA VE\nX 41\n", 2, "is not 'A <ID> <value>'"),
    ("* QLOAD\nAVER 2\nX 41\n", 2, "is not 'A <ID> <value>'"),
    ("* QLOAD\nA VER=2\nX 41\n", 2, "followed by a blank"),
    ("* QLOAD\nA MSI 0G\nX 41\n", 2, "badly formed hex"),
    ("* QLOAD\nA VER 2\nX 414\n", 3, "badly formed hex"),
    ("* QLOAD\nA VER 2\nS \"abc\n", 3, "no closing"),
    ("* QLOAD\nA VER 2\nS \"a~bc\"\n", 3, "unexpected escape"),
    ("* QLOAD\nA VER 2\nXX 41\n", 3, "blank after"),
    ("* QLOAD\nA VER 2\nX 41\nZ 41\n", 4, "unexpected line"),
    ("* QLOAD\nA VER 2\nN\nX 41\n", 3, "cannot follow"),
    ("* QLOAD\nN x\nX 41\n", 2, "is not 'N'"),
])
def test_malformed_files(text, line, words):
    with pytest.raises(DmpFileError) as err:
        read_text(text, name="f.txt")
    assert err.value.line_number == line, str(err.value)
    assert words in str(err.value)
    assert str(err.value).startswith(f"f.txt line {line}: ")
    assert "\n" not in str(err.value)


def test_text_stream_with_wide_characters_is_an_error():
    with pytest.raises(DmpFileError, match="not a single byte"):
        read_text("* QLOAD\nA VER 2\nT caf\u20ac\n")


# -- the checker -----------------------------------------------------------------------------


def test_checker_accepts_files_we_write():
    rng = random.Random(7)
    msgs = [Message(random_md(rng), rng.randbytes(rng.choice([0, 1, 24, 25, 26, 50, 51, 999])))
            for _ in range(40)]
    msgs.append(Message(sample_md(), b"printable text " * 9 + b"\x00\x01" * 40 + b"~\"~"))
    for style in ("X", "S"):
        for header in ("dmpmqmsg", "qload"):
            assert check_dmp_text(text_of(msgs, body_style=style, style=header)) == []
    assert check_dmp_text(text_of(msgs, index=True, qmgr=None, queue=None)) == []
    assert check_dmp_text(text_of([])) == []


def random_md(rng: random.Random) -> MQMD:
    kw = {}
    for attr, _, kind, n in LAYOUT:
        if attr == "struc_id":
            continue
        if kind == "l":
            kw[attr] = rng.randint(-(2**31), 2**31 - 1)
        elif kind == "b":
            kw[attr] = rng.randbytes(n)
        else:
            kw[attr] = "".join(chr(rng.choice([*range(0x20, 0x7F), 0x00, 0xC1, 0x40, 0xFF]))
                               for _ in range(n))
    kw["version"] = rng.choice([1, 2])
    return MQMD(**kw)


@pytest.mark.parametrize(("change", "words"), [
    (lambda t: t.replace("\n", "\r\n"), "carriage return"),
    (lambda t: t.replace("* DMPMQMSG", "* DUMP"), "header must be"),
    (lambda t: t.replace("Created:Tue Sep 22", "Created:Sep 22"), "header must be"),
    (lambda t: t.replace("* Qmgr  = QM1", "* Qmgr = QM1"), "Qmgr"),
    (lambda t: t.replace("A FMT MQSTR   ", "A FMT MQSTR"), "8 characters"),
    (lambda t: t.replace("A MSI 0001", "A MSI 01"), "48 hex digits"),
    (lambda t: t.replace("A COI C1C1", "A COI c1c1"), "upper-case"),
    (lambda t: t.replace("A PRI 4", "A PRI +4"), "signed decimal"),
    (lambda t: t.replace("A PRI 4\nA PER 1", "A PER 1\nA PRI 4"), "expected descriptor field"),
    (lambda t: t.replace("A ORL -1\n", ""), "missing"),
    (lambda t: t.replace("A VER 2", "A VER 1"), "only when VER is 2"),
    (lambda t: t.replace("\n\n* Index 2", "\n\n\n* Index 2"), "extra empty line"),
    (lambda t: t[:-1], "not followed by an empty line"),
    (lambda t: t[:-2], "does not end with a line end"),
    (lambda t: re.sub(r"(X [0-9A-F]{50})\n", lambda m: m.group(1)[:-2] + "\n", t, count=1),
     "25 bytes"),
    (lambda t: t.replace("X 6869", "X 6869\nX "), "lone 'X '"),
    (lambda t: t.replace("* Index 1", "* note"), "'* Index <n>'"),
    (lambda t: t.replace("X 6869", 'S "hi"'), None),  # a valid S form
])
def test_checker_finds_each_broken_rule(change, words):
    msgs = [Message(sample_md(), b"\x01" * 60), Message(sample_md(), b"hi")]
    good = text_of(msgs, index=True)
    assert check_dmp_text(good) == []
    problems = check_dmp_text(change(good))
    if words is None:
        assert problems == []
    else:
        assert problems and any(words in p for p in problems), problems


def test_checker_s_line_rules():
    msgs = [Message(sample_md(), b"a" * 50 + b"\x00" + b'q"')]
    good = text_of(msgs, body_style="S")
    assert check_dmp_text(good) == []
    for bad, words in ((good.replace('S "q~""', 'S "q""'), '~"'),
                       (good.replace('S "q~""', 'S "q~x"'), "'~~'"),
                       (good.replace('"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"',
                                     '"aaaa"'), "48 characters"),
                       (good.replace("X 00", "X 0041"), "printable bytes go on S lines")):
        assert any(words in p for p in check_dmp_text(bad)), (words, check_dmp_text(bad))


# -- round trips (hypothesis) ----------------------------------------------------------------

LATIN1_NO_BREAK = st.characters(min_codepoint=0, max_codepoint=255,
                                blacklist_characters="\n\r")


@st.composite
def mqmds(draw):
    kw = {}
    for attr, _, kind, n in LAYOUT:
        if attr == "struc_id":
            continue
        if kind == "l":
            kw[attr] = draw(st.integers(-(2**31), 2**31 - 1))
        elif kind == "b":
            kw[attr] = draw(st.binary(min_size=n, max_size=n))
        elif attr in ("appl_identity_data", "appl_origin_data"):
            kw[attr] = draw(st.text(st.characters(min_codepoint=0, max_codepoint=255),
                                    min_size=n, max_size=n))
        else:
            kw[attr] = draw(st.text(LATIN1_NO_BREAK, min_size=0, max_size=n))
    kw["version"] = draw(st.sampled_from([1, 2]))
    return MQMD(**kw)


ebcdic_ids = st.sampled_from([
    "C1D4D840D8D4F140404040404040404040404040404040".ljust(48, "0"),  # 'AMQ QM1' in EBCDIC
    "00" * 24, "FF" * 24, "40" * 24]).map(bytes.fromhex)


@examples(150)
@given(md=mqmds(), body=st.binary(max_size=300), style=st.sampled_from(["X", "S"]),
       msg_id=st.one_of(st.none(), ebcdic_ids))
def test_round_trip_is_byte_exact(md, body, style, msg_id):
    if msg_id is not None:
        md = md.copy(msg_id=msg_id, correl_id=msg_id[::-1])
    original = Message(md, body)
    text = text_of([original, original], body_style=style)
    a, b = read_text(text)
    for got in (a, b):
        assert got.body == body
        if md.version >= 2:
            assert got.md == md
        else:  # a version-1 descriptor carries no GroupId…OriginalLength
            assert got.md.pack(version=1) == md.pack(version=1)
        assert got.md.pack(ccsid=819) == md.pack(ccsid=819)
    assert check_dmp_text(text) == []


def test_round_trip_every_byte_value_in_both_styles():
    body = bytes(range(256)) * 2 + b'"~' * 30 + bytes(range(255, -1, -1))
    for style in ("X", "S"):
        [m] = read_text(text_of([Message(sample_md(), body)], body_style=style))
        assert m.body == body


# -- fuzzing the reader: nothing but DmpFileError --------------------------------------------

def _read_any(data: bytes):
    try:
        return load_bytes(data)
    except DmpFileError as exc:
        assert str(exc) and "\n" not in str(exc)
        return None


@examples(300)
@given(st.binary(max_size=400))
def test_random_bytes_raise_only_dmpfileerror(data):
    _read_any(data)
    _read_any(b"* QLOAD\n" + data)
    _read_any(b"AMQSBCG0 - starts here\n" + data)


LINE_STARTS = st.sampled_from(["A VER ", "A MSI ", "A FMT ", "A AIX ", "A GRP ", "A ", "N",
                               "X ", "S \"", "S ", "T ", "* ", "", "A ABC ", "X", "S \"~",
                               "  StrucId  : '", "  MsgId : X'", "00000000:  41", " length - ",
                               "****Message descriptor****", "****   Message      ****",
                               "****Dead Letter Header****", "  Reason   : ", " MQGET of "
                               "message number 1", "  AccountingToken :"])


@given(st.lists(st.tuples(LINE_STARTS, st.text(max_size=60)), max_size=40),
       st.sampled_from(["* DMPMQMSG Version:1 Created:x\n", "AMQSBCG0 - starts here\n"]))
def test_random_lines_raise_only_dmpfileerror(lines, header):
    text = header + "\n".join(a + b for a, b in lines)
    _read_any(text.encode("utf-8"))


def _mutations(text: str, rng: random.Random) -> str:
    chars = list(text)
    for _ in range(rng.randint(1, 6)):
        op = rng.randrange(5)
        pos = rng.randrange(len(chars) + 1)
        if op == 0 and chars:
            del chars[min(pos, len(chars) - 1)]
        elif op == 1:
            chars.insert(pos, rng.choice("AXSTN*\n\r \"~'0F:gz\x00\xff"))
        elif op == 2 and chars:
            chars[min(pos, len(chars) - 1)] = rng.choice("0123456789ABCDEF\n \"'~")
        elif op == 3:
            lines = "".join(chars).split("\n")
            rng.shuffle(lines)
            chars = list("\n".join(lines))
        else:
            chars = chars[:pos]
    return "".join(chars)


@given(st.randoms(use_true_random=False))
def test_mutated_valid_files_raise_only_dmpfileerror(rng):
    msgs = [Message(sample_md(), b"hello \x00\x01 world"), Message(sample_md(version=1), b"")]
    for base in (text_of(msgs), text_of(msgs, body_style="S"), amqsbcg_output(msgs),
                 amqsbcg_output(msgs, old=True)):
        _read_any(_mutations(base, rng).encode("latin-1"))


# -- amqsbcg ---------------------------------------------------------------------------------
#
# amqsbcg_output() follows amqsbcg0.c's printf calls (IBM MQ samples/c/amqsbcg0.c): the
# current one (9.4: CompCode on the MQGET line, "length - N of M bytes", a Dead Letter
# Header section, a summary) and an older one (7.x–9.3: "MQGET of message number N",
# "length - N bytes"). The dump loop, including the MBCS overrun handling of a UTF-8
# locale (MB_CUR_MAX 6), is transcribed as written.


def _cstr(text: str, n: int) -> str:
    """printf("%.*s", n, field): up to n characters, stopping at a NUL."""
    return text[:n].split("\x00")[0]


def _print_md(md: MQMD) -> str:
    out = ["\n****Message descriptor****\n"]
    p = out.append
    p(f"\n  StrucId  : '{_cstr(md.struc_id, 4)}'")
    p(f"  Version : {md.version}")
    p(f"\n  Report   : {md.report}")
    p(f"  MsgType : {md.msg_type}")
    p(f"\n  Expiry   : {md.expiry}")
    p(f"  Feedback : {md.feedback}")
    p(f"\n  Encoding : {md.encoding}")
    p(f"  CodedCharSetId : {md.ccsid}")
    p(f"\n  Format : '{_cstr(md.format, 8)}'")
    p(f"\n  Priority : {md.priority}")
    p(f"  Persistence : {md.persistence}")
    p(f"\n  MsgId : X'{md.msg_id.hex().upper()}'")
    p(f"\n  CorrelId : X'{md.correl_id.hex().upper()}'")
    p(f"\n  BackoutCount : {md.backout_count}")
    p(f"\n  ReplyToQ       : '{_cstr(md.reply_to_q, 48)}'")
    p(f"\n  ReplyToQMgr    : '{_cstr(md.reply_to_qmgr, 48)}'")
    p("\n  ** Identity Context")
    p(f"\n  UserIdentifier : '{_cstr(md.user_identifier, 12)}'")
    p(f"\n  AccountingToken : \n   X'{md.accounting_token.hex().upper()}'")
    p(f"\n  ApplIdentityData : '{_cstr(md.appl_identity_data, 32)}'")
    p("\n  ** Origin Context")
    p(f"\n  PutApplType    : '{md.put_appl_type}'")
    p(f"\n  PutApplName    : '{_cstr(md.put_appl_name, 28)}'")
    p(f"\n  PutDate  : '{_cstr(md.put_date, 8)}'")
    p(f"    PutTime  : '{_cstr(md.put_time, 8)}'")
    p(f"\n  ApplOriginData : '{_cstr(md.appl_origin_data, 4)}'\n")
    p(f"\n  GroupId : X'{md.group_id.hex().upper()}'")
    p(f"\n  MsgSeqNumber   : '{md.msg_seq_number}'")
    p(f"\n  Offset         : '{md.offset}'")
    p(f"\n  MsgFlags       : '{md.msg_flags}'")
    p(f"\n  OriginalLength : '{md.original_length}'")
    return "".join(out)


def _print_dlh(buf: bytes, native_big: bool) -> tuple[str, int]:
    if len(buf) < 172 or buf[:4] != b"DLH ":
        return "", 0
    order = ">" if native_big else "<"
    (_, version, reason, dq, dqm, enc, ccsid, fmt, pat, pan, pd, pt) = struct.unpack(
        order + "4s i i 48s 48s i i 8s i 28s 8s 8s", buf[:172])

    def s(b: bytes) -> str:
        return _cstr(b.decode("latin-1"), len(b))

    out = ["\n", "\n****Dead Letter Header****\n", "\n  StrucId  : 'DLH '",
           f"  Version : {version}", f"\n  Reason   : {reason} [MQRC_SOMETHING]",
           f"\n  DestQName      : '{s(dq)}'", f"\n  DestQMgrName   : '{s(dqm)}'",
           f"\n  Encoding : {enc}", f"  CodedCharSetId : {ccsid}", f"\n  Format : '{s(fmt)}'",
           f"\n  PutApplType    : '{pat}'", f"\n  PutApplName    : '{s(pan)}'",
           f"\n  PutDate  : '{s(pd)}'", f"    PutTime  : '{s(pt)}'"]
    return "".join(out), 172


def _mblen_utf8(buf: bytes, pos: int) -> int:
    if buf[pos] == 0:
        return 0
    for n in range(1, 5):
        try:
            if len(buf[pos:pos + n].decode("utf-8")) == 1:
                return n
        except UnicodeDecodeError:
            continue
    return -1


def _dump(buf: bytes, hdr: int, length: int, mbcsmax: int, lines_printed: int) -> str:
    out: list[str] = []
    ch = overrun = 0
    while True:  # do { … } while (ch < LengthToPrint)
        chars = 0
        text: list[str] = []
        out.append(f"\n{ch:08X}: ")
        while overrun > 0:
            out.append("  ")
            text.append(" ")
            chars += 1
            if overrun % 2:
                out.append(" ")
            overrun -= 1
        while chars < 16 and ch < length:
            n = _mblen_utf8(buf, ch + hdr) if mbcsmax > 1 else 1
            n = max(n, 1)
            if n > 1:
                for _ in range(n):
                    if chars % 2 == 0 and chars < 16:
                        out.append(" ")
                    out.append(f"{buf[ch + hdr]:02X}")
                    text.append(chr(buf[ch + hdr]))
                    chars += 1
                    ch += 1
            else:
                if chars % 2 == 0:
                    out.append(" ")
                b = buf[ch + hdr]
                out.append(f"{b:02X}")
                text.append(chr(b) if 0x20 <= b <= 0x7E else ".")
                chars += 1
                ch += 1
        if chars > 16:
            overrun = chars - 16
        while chars < 16:
            if chars % 2 == 0:
                out.append(" ")
            out.append("  ")
            text.append(" ")
            chars += 1
        out.append(" " * ((mbcsmax - overrun - 1) * 2))
        out.append(" '" + "".join(text) + "'")
        lines_printed += 1
        if lines_printed >= 60:
            lines_printed = 0
            out.append("\n ")
        if ch >= length:
            return "".join(out)


def amqsbcg_output(messages, *, queue="APP.DLQ", old=False, mbcsmax=1, native_big=False,
                   properties=None, truncate_at=65536) -> str:
    """What amqsbcg prints for ``messages`` (raw bytes of the output as latin-1 text)."""
    out = ["\nAMQSBCG0 - starts here\n", "**********************\n "]
    out.append(f"\n MQOPEN - '{queue}'" if not old else f"\n MQOPEN - '{queue:<48}'")
    out.append("\n ")
    page = 1
    for j, m in enumerate(messages, 1):
        if page == 1:
            lines_printed, page = 29, -1
        else:
            out.append("\n ")
            lines_printed = 22
        out.append("\n ")
        data_length = len(m.body)
        if old:
            out.append(f"\n MQGET of message number {j} ")
        else:
            cc, rc = (1, 2079) if data_length > truncate_at else (0, 0)
            out.append(f"\n MQGET of message number {j}, CompCode:{cc} Reason:{rc}")
        out.append(_print_md(m.md))
        if properties is not None:
            out.append("\n \n****Message properties****\n")
            out.append("".join(f"\n  {k} : {v}" for k, v in properties) or "\n  None\n")
        hdr = 0
        if not old and m.md.format == "MQDEAD  ":
            text, hdr = _print_dlh(m.body, native_big)
            out.append(text)
            data_length -= hdr
        out.append("\n \n****   Message      ****\n ")
        if old:
            to_print = data_length
            out.append(f"\n length - {data_length} bytes\n ")
        else:
            to_print = min(data_length, truncate_at - hdr)
            out.append(f"\n length - {to_print} of {data_length} bytes\n ")
        out.append(_dump(m.body, hdr, to_print, mbcsmax, lines_printed))
    if old:
        out.append("\n \n \n No more messages \n MQCLOSE\n MQDISC")
        return "".join(out)
    out.append("\n \n \n No more messages ")
    if messages:
        sizes = [len(m.body) for m in messages]
        out.append(f"\n\n****   Summary      ****\n {len(sizes)} messages browsed.\n "
                   f"Smallest message {min(sizes)} bytes.\n Largest message {max(sizes)} "
                   f"bytes.\n Average message {sum(sizes) // len(sizes)} bytes.\n")
    out.append("\n MQCLOSE\n MQDISC\n")
    return "".join(out)


def bcg_md(**kw) -> MQMD:
    base = dict(format="MQSTR", encoding=546, ccsid=1208, priority=0, persistence=1,
                msg_id=bytes.fromhex("414D5120514D312020202020202020203F8EA85D1EA66A20"),
                reply_to_qmgr="QM1", user_identifier="app",
                accounting_token=bytes.fromhex("0431303031" + "00" * 26 + "06"),
                put_appl_type=28, put_appl_name="cli.ConnectDistributed", put_date="20191017",
                put_time="16024736")
    base.update(kw)
    return MQMD(**base)


# A listing laid out like amqsbcg 9.x prints it (an RFH2 message with a JMS text body),
# written for this test from amqsbcg0.c's format strings.
BCG_LISTING = """
AMQSBCG0 - starts here
**********************

 MQOPEN - 'DEV.QUEUE.1'


 MQGET of message number 1, CompCode:0 Reason:0
****Message descriptor****

  StrucId  : 'MD  '  Version : 2
  Report   : 0  MsgType : 8
  Expiry   : -1  Feedback : 0
  Encoding : 273  CodedCharSetId : 1208
  Format : 'MQHRF2  '
  Priority : 4  Persistence : 1
  MsgId : X'414D5120514D312020202020202020203F8EA85D1EA66A20'
  CorrelId : X'000000000000000000000000000000000000000000000000'
  BackoutCount : 0
  ReplyToQ       : '                                                '
  ReplyToQMgr    : 'QM1                                             '
  ** Identity Context
  UserIdentifier : 'app         '
  AccountingToken :␠
   X'0000000000000000000000000000000000000000000000000000000000000000'
  ApplIdentityData : '                                '
  ** Origin Context
  PutApplType    : '28'
  PutApplName    : 'kafka.ConnectWorker         '
  PutDate  : '20260105'    PutTime  : '10150312'
  ApplOriginData : '    '

  GroupId : X'000000000000000000000000000000000000000000000000'
  MsgSeqNumber   : '1'
  Offset         : '0'
  MsgFlags       : '0'
  OriginalLength : '-1'
␠
****   Message      ****
␠
 length - 112 of 112 bytes
␠
00000000:  5246 4820 0000 0002 0000 0060 0000 0111           'RFH .......`....'
00000010:  0000 04B8 4D51 5354 5220 2020 0000 0000           '....MQSTR   ....'
00000020:  0000 04B8 0000 0020 3C6D 6364 3E3C 4D73           '....... <mcd><Ms'
00000030:  643E 6A6D 735F 7465 7874 3C2F 4D73 643E           'd>jms_text</Msd>'
00000040:  3C2F 6D63 643E 2020 0000 0014 3C6A 6D73           '</mcd>  ....<jms'
00000050:  3E3C 2F6A 6D73 3E20 4F72 6465 7220 3432           '></jms> Order 42'
00000060:  2073 6869 7070 6564 2074 6F20 4C69 7362           ' shipped to Lisb'
␠
␠
␠
 No more messages
 MQCLOSE
 MQDISC
""".replace("\u2420", " ")  # ␠ marks the blanks amqsbcg leaves at line ends


def test_amqsbcg_listing_in_the_real_layout():
    with DmpReader(io.StringIO(BCG_LISTING, newline="\n")) as r:
        msgs = list(r)
        assert (r.info.tool, r.info.queue, r.info.qmgr) == ("amqsbcg", "DEV.QUEUE.1", None)
    [m] = msgs
    md = m.md
    assert (md.version, md.encoding, md.ccsid, md.format, md.priority) == (2, 273, 1208,
                                                                          "MQHRF2  ", 4)
    assert md.msg_id.hex().upper() == "414D5120514D312020202020202020203F8EA85D1EA66A20"
    assert md.reply_to_q == " " * 48 and md.reply_to_qmgr == "QM1".ljust(48)
    assert md.user_identifier == "app".ljust(12) and md.accounting_token == b"\x00" * 32
    assert (md.put_appl_type, md.put_appl_name) == (28, "kafka.ConnectWorker".ljust(28))
    assert (md.put_date, md.put_time, md.original_length) == ("20260105", "10150312", -1)
    assert len(m.body) == 112 and m.body.startswith(b"RFH \x00\x00\x00\x02\x00\x00\x00\x60")
    assert m.body.endswith(b" Order 42 shipped to Lisb")


def test_amqsbcg_listing_with_crlf_and_trailing_blanks_stripped():
    text = "\r\n".join(ln.rstrip() for ln in BCG_LISTING.split("\n"))
    [m] = read_text(text)
    assert len(m.body) == 112 and m.md.accounting_token == b"\x00" * 32


@pytest.mark.parametrize("old", [False, True])
@pytest.mark.parametrize("mbcsmax", [1, 6])
def test_amqsbcg_emulated_output_round_trips(old, mbcsmax):
    rng = random.Random(3)
    bodies = [b"", b"Hello MQ world!", bytes(range(256)),
              "Olá, mundo — ação €😀 and more text".encode() * 5, rng.randbytes(2000),
              b"'quoted' 0000000A: not an offset"]
    msgs = [Message(bcg_md(msg_id=bytes([i]) * 24, appl_identity_data="id' Quote: x"),
                    b) for i, b in enumerate(bodies)]
    text = amqsbcg_output(msgs, old=old, mbcsmax=mbcsmax)
    got = read_text(text)
    assert [m.body for m in got] == bodies
    assert [m.md for m in got] == [m.md for m in msgs]


def test_amqsbcg_nul_cut_text_fields_come_back_nul_padded():
    md = bcg_md(appl_identity_data="abc" + "\x00" * 29, put_date="\x00" * 8,
                appl_origin_data="\x00\x00\x00\x00", format="MQSTR\x00\x00\x00")
    [m] = read_text(amqsbcg_output([Message(md, b"x")]))
    assert m.md == md


@pytest.mark.parametrize("native_big", [False, True])
@pytest.mark.parametrize("encoding", [546, 273])
def test_amqsbcg_dead_letter_header_is_rebuilt(native_big, encoding):
    """amqsbcg 9.4 prints the DLH as fields and dumps only what follows it."""
    big = encoding == 273
    dlh = MQDLH(reason=2085, dest_q_name="APP.IN", dest_qmgr_name="QM1", encoding=546,
                ccsid=1208, format="MQSTR", put_appl_type=6, put_appl_name="runmqchi",
                put_date="20260922", put_time="0234283")  # a 7-character time, blank-padded
    body = dlh.pack(big_endian=big, ccsid=819) + b'{"order": 13}'
    md = bcg_md(format="MQDEAD", encoding=encoding)
    text = amqsbcg_output([Message(md, body)], native_big=native_big)
    assert "****Dead Letter Header****" in text and "length - 13 of 13 bytes" in text
    if native_big != big:
        assert "Version : 16777216" in text
    [m] = read_text(text)
    assert m.body == body and m.md == md


def test_amqsbcg_properties_are_warned_about():
    msgs = [Message(bcg_md(), b"payload")]
    with DmpReader(io.StringIO(amqsbcg_output(msgs, properties=[("usr.colour", "'blue'")]),
                               newline="\n")) as r:
        [m] = list(r)
        assert m.body == b"payload"
        assert len(r.warnings) == 1 and "properties" in r.warnings[0]
    with DmpReader(io.StringIO(amqsbcg_output(msgs, properties=[]), newline="\n")) as r:
        assert [x.body for x in r] == [b"payload"] and r.warnings == []


def test_amqsbcg_truncated_message_is_an_error():
    msgs = [Message(bcg_md(), b"x" * 70000)]
    with pytest.raises(DmpFileError, match="printed only 65536 of the message's 70000 bytes"):
        read_text(amqsbcg_output(msgs))


def test_amqsbcg_page_breaks_inside_long_dumps():
    body = os.urandom(16 * 200)
    text = amqsbcg_output([Message(bcg_md(), body)] * 2)
    assert "'\n \n0000" in text  # the page break amqsbcg prints every 60 lines
    assert [m.body for m in read_text(text)] == [body, body]


@pytest.mark.parametrize(("edit", "words"), [
    (lambda t: t.replace("00000010:", "00000020:", 1), "does not follow"),
    (lambda t: t.replace(" length - 112 of 112", " length - 113 of 113"), "holds 112 bytes"),
    (lambda t: t.replace("  BackoutCount : 0", "  Backout : 0"), "unknown amqsbcg field"),
    (lambda t: t.replace("  Priority : 4", "  Priority : four"), "not a whole number"),
    (lambda t: t.replace("MsgId : X'414D", "MsgId : X'14D"), "not X'<hex>'"),
    (lambda t: t.replace("'MQHRF2  '", "'MQHRF2  "), "no closing quote"),
    (lambda t: t.replace(" length - 112 of 112 bytes", " size 112"), "'length - N bytes'"),
    (lambda t: t.replace("5246 4820", "5246 482"), "badly formed hex"),
    (lambda t: t.split("****   Message")[0], "ends inside"),
    (lambda t: t.replace("****Message descriptor****", "****Descriptor****"), "outside"),
    (lambda t: t + "\n 3 messages browsed.\n", "3 messages were browsed"),
])
def test_amqsbcg_errors(edit, words):
    with pytest.raises(DmpFileError) as err:
        read_text(edit(BCG_LISTING), name="bcg.txt")
    assert words in str(err.value) and str(err.value).startswith("bcg.txt line ")


def test_amqsbcg_failed_get_is_a_warning_and_summary_is_checked():
    text = amqsbcg_output([Message(bcg_md(), b"a"), Message(bcg_md(), b"b")])
    assert "2 messages browsed." in text
    assert [m.body for m in read_text(text)] == [b"a", b"b"]
    text = BCG_LISTING.replace(" No more messages", " MQGET 2, failed with CompCode:2 "
                                                    "Reason:2080")
    with DmpReader(io.StringIO(text, newline="\n")) as r:
        assert len(list(r)) == 1 and "reason 2080" in r.warnings[0]


def test_amqsbcg_from_a_binary_file(tmp_path):
    md = bcg_md(user_identifier="caf\xe9")
    path = tmp_path / "bcg.out"
    path.write_bytes(amqsbcg_output([Message(md, "é€".encode())], mbcsmax=6)
                     .encode("latin-1"))
    [m] = load_file(path)
    assert m.md.user_identifier == "caf\xe9".ljust(12) and m.body == "é€".encode()


BCG_TEXT = st.characters(min_codepoint=0x20, max_codepoint=0xFF,
                         blacklist_characters="\x7f\x85\xa0")


@st.composite
def bcg_mds(draw):
    """Descriptors as amqsbcg can show them: text without line breaks, NULs only as padding."""
    kw = {}
    for attr, _, kind, n in LAYOUT:
        if attr == "struc_id":
            continue
        if kind == "l":
            kw[attr] = draw(st.integers(-(2**31), 2**31 - 1))
        elif kind == "b":
            kw[attr] = draw(st.binary(min_size=n, max_size=n))
        else:
            text = draw(st.one_of(st.text(BCG_TEXT, max_size=n),
                                  st.sampled_from(["a' B:", "x'", "'", "' Version : 2", "::"])))
            pad = draw(st.sampled_from([" ", "\x00"]))
            kw[attr] = text[:n].ljust(n, pad)
    kw["version"] = 2
    return MQMD(**kw)


@examples(120)
@given(mds=st.lists(bcg_mds(), min_size=1, max_size=3), data=st.data(),
       old=st.booleans(), mbcsmax=st.sampled_from([1, 6]))
def test_amqsbcg_round_trip_property(mds, data, old, mbcsmax):
    msgs = [Message(md, data.draw(st.binary(max_size=200))) for md in mds]
    text = amqsbcg_output(msgs, old=old, mbcsmax=mbcsmax)
    got = read_text(text)
    assert [m.body for m in got] == [m.body for m in msgs]
    assert [m.md for m in got] == [m.md for m in msgs]
