"""ops.words: '1 message', never '1 messages' or 'message(s)' (issue 15 item 14)."""

from __future__ import annotations

from mqconsole.ops.words import agree, counted, note


def test_counts_agree() -> None:
    assert counted(1) == "1 message" and counted(0) == "0 messages"
    assert counted(2, "selected message") == "2 selected messages"
    assert counted(1234, grouped=True) == "1,234 messages"
    assert counted(1, "byte") == "1 byte" and counted(3, "query", plural="queries") == \
        "3 queries"
    assert agree(1, "was", "were") == "was" and agree(2, "was", "were") == "were"
    template = "{messages} had no dead-letter header and {were} moved unchanged"
    assert note(template, 1) == "1 message had no dead-letter header and was moved unchanged"
    assert note(template, 2) == "2 messages had no dead-letter header and were moved unchanged"

