"""The question before a change of --all says how many messages that is (issue 15 item
14), asked in a terminal (a pseudo-terminal here)."""

from __future__ import annotations


def test_the_all_question_gives_the_count(demo, tmp_path, answer_on_a_terminal):
    code, _, text = answer_on_a_terminal(["--embedded", str(demo), "move", "APP.ORDERS",
                                          "APP.AUDIT", "--all"], b"n\n", home=tmp_path / "home")
    assert code == 4, text
    assert "(40 messages on APP.ORDERS now)?" in text
