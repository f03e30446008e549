"""A message file cut short (issue 17 item 9): never read as a shorter last message."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mqconsole.mq.message import Message
from mqconsole.ops.dmpfile import DmpFileError, read_text
from tests.support.examples import examples

from .test_dmpfile import REAL, sample_md, text_of

MESSAGES = [Message(sample_md(msg_id=bytes([n]) * 24), bytes(range(n, n + 90)) * 2)
            for n in range(1, 4)]


def test_a_file_cut_inside_the_last_messages_data_is_refused():
    text = text_of(MESSAGES)
    assert [m.body for m in read_text(text)] == [m.body for m in MESSAGES]
    last_x = text.rindex("\nX ") + 1
    cut_in_line = text[:last_x + 12]  # inside the last data line
    cut_at_line = text[:text.index("\n", last_x) + 1]  # a whole data line, then nothing
    for cut in (cut_in_line, cut_at_line, text.rstrip("\n")):
        with pytest.raises(DmpFileError, match=r"the last message \(from line \d+\) has no "
                                               "empty line after its data: the file looks "
                                               "cut short"):
            read_text(cut)


def test_the_real_file_ends_its_last_message_with_an_empty_line():
    text = REAL.read_bytes().decode("latin-1")
    assert len(read_text(text)) > 0
    with pytest.raises(DmpFileError, match="cut short"):
        read_text(text.rstrip("\n") + "\n")


@examples(300)
@given(st.data(), st.sampled_from(["X", "S"]))
def test_every_cut_reads_whole_messages_or_is_refused(data, style):
    text = text_of(MESSAGES, body_style=style)
    cut = data.draw(st.integers(min_value=0, max_value=len(text)))
    try:
        got = read_text(text[:cut])
    except DmpFileError:
        return
    assert got == MESSAGES[:len(got)]  # a prefix of whole messages, never a short one
