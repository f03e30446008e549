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



def test_a_count_fits_its_column_and_is_never_cut() -> None:
    from mqconsole.ops.words import fit_count

    assert fit_count(180_000, 6) == "180000"
    assert fit_count(180_000, 5) == "180k"  # never "1800…"
    assert fit_count(1_234_567, 5) == "1.2M" and fit_count(1_234_567, 3) == "1M"
    assert fit_count(12_345, 4) == "12k" and fit_count(15, 4) == "15"
    for n in (0, 7, 999, 1000, 54_321, 180_000, 2_000_000, 999_999_999):
        for width in (4, 5, 7):
            assert len(fit_count(n, width)) <= width
