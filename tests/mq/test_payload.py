"""Payload text (CCSID-aware, EBCDIC included), hex dumps, previews and terminal safety."""

from __future__ import annotations

import sys
import unicodedata

import pytest

from mqconsole.mq.payload import (
    TEXT_FORMATS,
    DecodedText,
    decode_text,
    hex_dump,
    is_unsafe_char,
    kind_of,
    preview,
    safe_text,
)

TEXT = "Grüße, order A-17 {ok}"
CODECS = {1208: "utf-8", 819: "latin-1", 1252: "cp1252", 37: "cp037", 500: "cp500",
          1047: "cp1047"}


@pytest.mark.parametrize("ccsid", sorted(CODECS))
def test_mqstr_in_each_ccsid(ccsid):
    d = decode_text(TEXT.encode(CODECS[ccsid]), ccsid, "MQSTR   ")
    assert d == DecodedText(TEXT, CODECS[ccsid], None)


@pytest.mark.parametrize("ccsid", sorted(CODECS))
def test_printable_text_without_a_text_format(ccsid):
    d = decode_text(TEXT.encode(CODECS[ccsid]), ccsid, "        ")
    assert d.text == TEXT


def test_ebcdic_is_not_mistaken_for_ascii():
    data = "HELLO".encode("cp500")
    assert decode_text(data, 500, "MQSTR").text == "HELLO"
    assert decode_text(data, 37, "MQSTR").text == "HELLO"
    assert decode_text(data, 1047, "MQSTR").text == "HELLO"


def test_unknown_ccsid_is_hex_with_a_note():
    d = decode_text(b"hello", 4711, "MQSTR   ")
    assert d == DecodedText(None, None, "CCSID 4711 has no codec here: shown as hex")


def test_ccsid_zero_is_read_as_utf8_with_a_note():
    d = decode_text("café".encode(), 0, "MQSTR")
    assert d.text == "café" and d.codec == "utf-8"
    assert "CCSID 0" in d.note


def test_binary_is_hex():
    data = bytes(range(256))
    for ccsid in (819, 1208, 500):
        d = decode_text(data, ccsid, "        ")
        assert d.text is None and "shown as hex" in d.note
    assert decode_text(b"\x00\x01\x02\x03ABCD", 819, "MQSTR").text is None


def test_binary_formats_are_hex_even_when_printable():
    d = decode_text(b"AAAA", 819, "MQADMIN ")
    assert d.text is None and "MQADMIN" in d.note
    assert decode_text(b"AAAA", 819, "MQHRF2").text is None


def test_mqstr_with_invalid_bytes_keeps_text_and_says_so():
    d = decode_text(b"price: 10\xff EUR", 1208, "MQSTR")
    assert d.text == "price: 10\ufffd EUR"
    assert "\ufffd" in d.note
    assert decode_text(b"price: 10\xff EUR", 1208, "").text is None


def test_cp1252_undefined_byte():
    assert decode_text(b"price 10\x81 EUR", 1252, "").text is None
    assert decode_text(b"price 10\x81 EUR", 1252, "MQSTR").text == "price 10\ufffd EUR"


@pytest.mark.parametrize("ccsid", [1200, 13488, 17584])
def test_utf16(ccsid):
    assert decode_text("Zoë".encode("utf-16-be"), ccsid, "MQSTR").text == "Zoë"
    assert decode_text("Zoë".encode("utf-16-le"), ccsid, "MQSTR").text == "Zoë"  # guessed
    assert decode_text("\ufeffZoë".encode("utf-16-le"), ccsid, "MQSTR").text == "Zoë"
    assert decode_text("\ufeffZoë".encode("utf-16-be"), ccsid, "MQSTR").text == "Zoë"
    assert decode_text("ab".encode("utf-16-le"), ccsid, "MQSTR", encoding=546).text == "ab"
    assert decode_text("ab".encode("utf-16-be"), ccsid, "MQSTR", encoding=273).text == "ab"


def test_empty_and_odd_inputs():
    assert decode_text(b"", 1208, "MQSTR").text == ""
    assert decode_text(bytearray(b"ok"), 819, "MQSTR").text == "ok"
    assert decode_text(memoryview(b"ok"), 819, "MQSTR").text == "ok"
    assert decode_text(b"ok", -1, "MQSTR").text == "ok"
    assert "MQSTR" in TEXT_FORMATS


def test_kind_of():
    assert kind_of(b"", "MQSTR", '{"a": [1, 2]}') == "json"
    assert kind_of(b"", "MQSTR", ' \n[1, 2]\n') == "json"
    assert kind_of(b"", "MQSTR", "{not json") == "text"
    assert kind_of(b"", "MQSTR", "[" * 100000) == "text"
    assert kind_of(b"", "MQSTR", "<?xml version='1.0'?><a>1</a>\n") == "xml"
    assert kind_of(b"", "MQSTR", "<a>1</a> tail") == "text"
    assert kind_of(b"", "MQSTR", "hello") == "text"
    assert kind_of(b"", "MQSTR", "") == "text"
    assert kind_of(b"\x00\x01", "", None) == "binary"


# -- hex ----------------------------------------------------------------------------------


def test_hex_dump():
    assert hex_dump(b"") == ""
    lines = hex_dump(b"Hello, MQ!\x00\x01\x7f\xffABCDEFG").splitlines()
    assert lines == [
        "00000000  48 65 6c 6c 6f 2c 20 4d 51 21 00 01 7f ff 41 42  |Hello, MQ!....AB|",
        "00000010  43 44 45 46 47                                   |CDEFG|",
    ]
    assert hex_dump(b"abc", width=2).splitlines() == ["00000000  61 62  |ab|",
                                                       "00000002  63     |c|"]


def test_hex_dump_ebcdic_column():
    data = "HELLO".encode("cp500")
    assert hex_dump(data, ccsid=500) == "00000000  c8 c5 d3 d3 d6" + " " * 33 + "  |HELLO|"
    assert hex_dump(data).endswith("|.....|")
    assert hex_dump(data, ccsid=1208).endswith("|.....|")


def test_hex_dump_column_never_carries_control_characters():
    out = hex_dump(bytes(range(256)), ccsid=1047)
    assert all(ch == "\n" or 0x20 <= ord(ch) < 0x7F for ch in out)
    out = hex_dump(bytes(range(256)))
    assert all(ch == "\n" or 0x20 <= ord(ch) < 0x7F for ch in out)


# -- terminal safety -------------------------------------------------------------------------


def test_safe_text_neutralises_escape_sequences():
    evil = "ok\x1b[2J\x1b]0;pwned\x07\x1b[31mred\x9b31m\x1bPdcs\x1b\\"
    out = safe_text(evil)
    assert "\x1b" not in out and "\x07" not in out and "\x9b" not in out
    assert out == ("ok\\x1b[2J\\x1b]0;pwned\\x07\\x1b[31mred\\x9b31m\\x1bPdcs\\x1b\\")


def test_safe_text_keeps_newline_tab_markup_and_backslashes():
    text = "line1\n\tline2 [bold red]not markup[/] C:\\path \\x1b"
    assert safe_text(text) == text
    assert safe_text("plain") == "plain"
    assert safe_text("") == ""


@pytest.mark.parametrize(("ch", "shown"), [
    ("\x00", "\\x00"), ("\r", "\\r"), ("\x7f", "\\x7f"), ("\x85", "\\x85"),
    ("\u202e", "\\u202e"), ("\u202d", "\\u202d"), ("\u2066", "\\u2066"),
    ("\u200b", "\\u200b"), ("\u200d", "\\u200d"), ("\ufeff", "\\ufeff"),
    ("\u2028", "\\u2028"), ("\u00ad", "\\xad"), ("\U000e0041", "\\U000e0041"),
    ("\udcff", "\\udcff"),
])
def test_safe_text_escapes(ch, shown):
    assert safe_text(f"a{ch}b") == f"a{shown}b"
    assert is_unsafe_char(ch)


def test_safe_text_keeps_ordinary_unicode():
    text = "Zürich 日本 emoji 🙂 ünïcödé"
    assert safe_text(text) == text


def test_every_format_and_control_character_is_escaped():
    missing = [hex(cp) for cp in range(sys.maxunicode + 1)
               if unicodedata.category(chr(cp)) in ("Cc", "Cf", "Zl", "Zp", "Cs")
               and chr(cp) not in "\n\t" and not is_unsafe_char(chr(cp))]
    assert missing == []


def test_preview():
    assert preview(b"one\r\ntwo\nthree\tfour", 819, "MQSTR") == "one⏎two⏎three four"
    long = preview(b"x" * 500, 819, "MQSTR", width=20)
    assert long == "x" * 19 + "…" and len(long) == 20
    p = preview(b"\x1b[2Jhi\xe2\x80\xae", 1208, "MQSTR", width=60)
    assert p == "\\x1b[2Jhi\\u202e"
    assert preview(b"", 1208, "MQSTR") == ""


def test_preview_binary_and_unknown():
    p = preview(bytes(range(40)), 819, "", width=60)
    assert p.startswith("‹binary, 40 bytes› 00 01 02") and len(p) <= 60
    assert preview(b"hi", 4711, "MQSTR").startswith("‹binary, 2 bytes›")


def test_preview_wide_characters_fit_the_width():
    p = preview("日本語のテキスト".encode() * 10, 1208, "MQSTR", width=11)
    assert p.endswith("…")
    cells = sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in p)
    assert cells <= 11


def test_preview_of_a_big_payload_cut_inside_a_character():
    data = ("é" * 10000).encode()  # the preview reads only the head: cut mid-character
    assert preview(data, 1208, "MQSTR", width=10) == "é" * 9 + "…"
    data = b"a" + ("é" * 10000).encode()
    assert preview(data, 1208, "MQSTR", width=10) == "a" + "é" * 8 + "…"


def test_located_names_where_and_escapes() -> None:
    from mqconsole.mq.payload import located

    assert located("not a number", file="c.yaml", line=3, subject="profiles.a.port") == (
        "c.yaml line 3: profiles.a.port: not a number")
    assert located("bad", line=7) == "line 7: bad"
    assert located("bad\nline", subject="x\x1b[31m") == "x\\x1b[31m: bad\\nline"
    assert located("only this") == "only this"
    assert located("expected ')'", file="r.tbl", line=2, column=14) == (
        "r.tbl line 2 column 14: expected ')'")


def test_first_of_counts_the_rest() -> None:
    from mqconsole.mq.payload import first_of

    assert first_of(["a"]) == "a"
    assert first_of(["a", "b"]) == "a (and 1 more problem)"
    assert first_of(["a", "b", "c"]) == "a (and 2 more problems)"
