"""fixed_width: records decoded by the shipped layout; every bad layout said in one sentence."""

from __future__ import annotations

from pathlib import Path

import pytest

from mqconsole.mq.md import MQMD
from mqconsole.mq.message import Message
from mqconsole.plugins.testing import import_plugin

fixed_width = import_plugin(Path(__file__).resolve().parents[1] / "fixed_width.py")

HERE = Path(__file__).resolve().parent.parent
ORDERS = HERE / "orders.yaml"


def order(amount: str = "000012550", qty: int = 3) -> bytes:
    text = ("ORD" + "0000012345" + amount + "20261124").encode("cp037")
    return text + qty.to_bytes(4, "big") + bytes.fromhex("0012345C") + b"\x80\x01"


@pytest.fixture
def host_for(tmp_path: Path, register_plugins):
    """A host with fixed_width registered and its layout setting pointing at a file."""
    def make(layout: str | Path | None = ORDERS, *, text: str | None = None):
        if text is not None:
            layout = tmp_path / "layout.yaml"
            layout.write_text(text)
        settings = {"fixed_width": {"layout": str(layout)}} if layout else {}
        return register_plugins(fixed_width, settings=settings)
    return make


def decode(host, payload: bytes):
    return host.decode(Message(md=MQMD(), body=payload), payload)


def test_the_shipped_layout_decodes_an_order(host_for) -> None:
    [result] = decode(host_for(), order())
    assert (result.plugin, result.title) == ("fixed_width", "Order record")
    rows = dict(line.split(None, 1) for line in result.text.splitlines())
    assert rows == {"record_type": "ORD", "order_id": "12345", "amount": "125.50",
                    "ordered_on": "2026-11-24", "quantity": "3", "unit_price": "123.45",
                    "flags": "8001"}


def test_another_record_is_left_to_other_decoders(host_for) -> None:
    host = host_for()
    assert decode(host, b"INV" + order()[3:]) == []          # the match text differs
    assert decode(host, order() + b"x") == []                # another record length
    assert decode(host, order()[:20]) == []
    assert host.problems == []


def test_a_bad_value_is_shown_as_such_not_raised(host_for) -> None:
    [result] = decode(host_for(), order(amount="00012X550".ljust(9)))
    assert "amount       ? not a number ('00012X550')" in result.text.splitlines()


LAYOUT = """\
title: T
fields:
  - {name: a, offset: 0, length: 3, type: text}
  - {name: b, offset: 3, length: 2, type: integer}
"""

BAD = [
    (LAYOUT.replace("type: integer", "type: int"),
     "line 4: fields[1].type: 'int' is not a type (one of text, integer, decimal, date, "
     "binary, packed, hex)"),
    (LAYOUT.replace("length: 2", "length: two"),
     "line 4: fields[1].length: must be a positive whole number, not 'two'"),
    (LAYOUT.replace("length: 2", "lenght: 2"),
     "line 4: fields[1].lenght: unknown key (did you mean length?)"),
    (LAYOUT.replace("name: b", "name: a"),
     "line 4: fields[1].name: 'a' is already the name of fields[0]"),
    (LAYOUT + "record_length: 4\n",
     "line 4: fields[1]: ends at byte 5, after the record's 4 bytes"),
    (LAYOUT + "encoding: klingon\n",
     "line 5: encoding: 'klingon' is not a known encoding (e.g. ascii, cp037, cp500, "
     "latin-1, utf-8)"),
    (LAYOUT.replace("type: text", "type: text, scale: 2"),
     "line 3: fields[0].scale: only decimal and packed fields have a scale"),
    ("title: T\nfields: []\n", "line 2: fields: must be a list of at least one field"),
    ("title: T\nfields:\n  - {name: a, offset: 0, type: text}\n",
     "line 3: fields[0]: has no length"),
    ("title: [T\n", "line 2: not valid YAML"),
]


@pytest.mark.parametrize(("text", "expected"), BAD)
def test_a_bad_layout_is_one_sentence_naming_file_line_and_field(tmp_path, text, expected
                                                                 ) -> None:
    path = tmp_path / "layout.yaml"
    path.write_text(text)
    with pytest.raises(fixed_width.LayoutError) as caught:
        fixed_width.load_layout(path)
    sentence = str(caught.value)
    assert sentence.startswith(f"layout {path} ")
    assert expected in sentence
    assert "\n" not in sentence


def test_a_bad_layout_is_reported_once_and_decodes_nothing(host_for) -> None:
    host = host_for(text=LAYOUT.replace("type: integer", "type: int"))
    assert decode(host, b"abc12") == [] and decode(host, b"abc12") == []
    [problem] = host.problems
    assert problem.startswith("plugin fixed_width failed in mqconsole_decode_payload: "
                              "LayoutError: layout ")
    assert "line 4: fields[1].type: 'int' is not a type" in problem


def test_no_layout_setting_is_said(host_for, tmp_path) -> None:
    host = host_for(None)
    assert decode(host, b"abc") == []
    assert "set plugins.settings.fixed_width.layout to a layout file" in host.problems[0]
    host = host_for(tmp_path / "missing.yaml")
    decode(host, b"abc")
    assert f"layout {tmp_path / 'missing.yaml'} cannot be read (No such file or directory)" \
        in host.problems[0]


def test_several_layouts_the_first_that_matches_decodes(tmp_path, register_plugins) -> None:
    other = tmp_path / "short.yaml"
    other.write_text(LAYOUT)
    host = register_plugins(fixed_width, settings={
        "fixed_width": {"layouts": [str(ORDERS), str(other)]}})
    assert [r.title for r in decode(host, order())] == ["Order record"]
    [short] = decode(host, b"abc12")
    assert short.title == "T" and short.text.splitlines() == ["a  abc", "b  12"]
