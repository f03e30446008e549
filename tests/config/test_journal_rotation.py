"""The journal's rotation settings: sizes and ages read, bad values one sentence with the
file, the line and the setting."""

from __future__ import annotations

from datetime import timedelta

import pytest

from mqconsole.config import parse_config

from .conftest import fails


def test_sizes_ages_and_keep_are_read() -> None:
    cfg = parse_config("journal:\n  rotate:\n    max_size: 50MB\n    max_age: 2w\n    keep: 3\n",
                       filename="config.yaml")
    r = cfg.journal.rotate
    assert (r.max_size, r.max_age_delta, r.keep) == (50 * 1024**2, timedelta(days=14), 3)
    assert parse_config("journal: {rotate: {max_size: 70000}}\n").journal.rotate.max_size == 70000
    default = parse_config("theme: x\n").journal.rotate
    assert (default.max_size, default.max_age_delta, default.keep) == (None, None, None)


@pytest.mark.parametrize(("line", "setting", "words"), [
    ("max_size: lots", "journal.rotate.max_size", "'lots' is not a size: use 50MB"),
    ("max_size: 10KB", "journal.rotate.max_size", "smaller than 64KB"),
    ("max_age: 3 fortnights", "journal.rotate.max_age", "is not an age"),
    ("max_age: 0h", "journal.rotate.max_age", "out of range"),
    ("max_age: 99999999999d", "journal.rotate.max_age", "out of range"),
    ("keep: 0", "journal.rotate.keep", "greater than or equal to 1"),
    ("every: 3d", "journal.rotate.every", "unknown setting"),
])
def test_bad_rotation_settings_name_the_line(line: str, setting: str, words: str) -> None:
    err = fails(f"theme: x\njournal:\n  rotate:\n    {line}\n")
    assert (err.line, err.setting) == (4, setting)
    assert words in str(err) and str(err).startswith("config.yaml line 4: ")
