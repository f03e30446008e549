"""The one YAML reader of config/ and model/: plain data, lines, duplicates, merges on request."""

from __future__ import annotations

import datetime

import pytest

from mqconsole.yamlines import Duplicate, YamlProblem, dotted, read

MERGED = "x: &a {k: 1, j: 2}\ny:\n  <<: *a\n  j: 3\n"


def test_lines_of_keys_and_items() -> None:
    doc = read("queues:\n  - name: Q\n    bothresh: 3\n")
    assert doc.data == {"queues": [{"name": "Q", "bothresh": 3}]}
    assert doc.lines[("queues",)] == 1
    assert doc.lines[("queues", 0)] == 2
    assert doc.lines[("queues", 0, "bothresh")] == 3
    assert doc.line == 1 and doc.duplicates == []


def test_duplicates_are_listed_in_line_order_keeping_the_first_value() -> None:
    doc = read("a:\n  b: 1\n  b: 2\nc: 1\na: 3\n")
    assert doc.duplicates == [Duplicate(("a", "b"), 3, 2), Duplicate(("a",), 5, 1)]
    assert doc.data == {"a": {"b": 1}, "c": 1}


def test_merge_keys_only_when_asked() -> None:
    with pytest.raises(YamlProblem) as info:
        read(MERGED)
    assert info.value.line == 3 and "merge keys" in info.value.problem
    doc = read(MERGED, merge_keys=True)
    assert doc.data["y"] == {"k": 1, "j": 3}
    assert doc.lines[("y", "j")] == 4


def test_timestamps_only_when_asked() -> None:
    with pytest.raises(YamlProblem) as info:
        read("when: 2024-01-02\n")
    assert info.value.problem == "unsupported YAML tag !!timestamp" and info.value.line == 1
    assert read("when: 2024-01-02\n", timestamps=True).data == {"when": datetime.date(2024, 1, 2)}


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        ("a: [1\n", 2, "is not valid YAML"),
        ("a: 1\nb: !!python/object:os.system x\n", 2, "unsupported YAML tag !!python/object"),
        ("a: 1\nb: \x07\n", 2, "U+0007"),
        ("? [1]\n: x\n", 1, "a key must be a plain name"),
    ],
)
def test_problems_name_the_line(text: str, line: int, words: str) -> None:
    with pytest.raises(YamlProblem) as info:
        read(text)
    assert info.value.line == line and words in info.value.problem


def test_alias_bombs_are_refused() -> None:
    bomb = "a: &a [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, "
        f"*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}]\n"
        for i in range(8)
    )
    with pytest.raises(YamlProblem) as info:
        read(bomb, max_nodes=10_000)
    assert "too large" in info.value.problem


def test_empty_document_and_dotted() -> None:
    assert read("").data is None and read("---\n").data is None
    assert dotted(("profiles", 0, "backend")) == "profiles[0].backend"
