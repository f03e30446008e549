"""ops.outputs: which paths no output may be, and the private atomic write (issue 28 items
1, 4, 5, 17; issue 24 item 8)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from mqconsole.backends.embedded import create_queue_manager
from mqconsole.backends.embedded.schema import APPLICATION_ID
from mqconsole.ops.dlq.attempts import AttemptStore
from mqconsole.ops.outputs import (
    JOURNAL,
    SAVED,
    SNAPSHOT,
    SQLITE,
    STORE,
    STORE_APPLICATION_ID,
    OutputRefused,
    StateFiles,
    check_output,
    describe,
    refusal,
    write_private,
)

RECORD = '{"time": "2026-12-01T00:00:00Z", "operation": "move"}\n'


@pytest.fixture
def place(tmp_path: Path) -> dict[str, Path]:
    """A store (closed: no -wal/-shm), a journal with a record, a backup, an attempts
    file and a snapshot, and the StateFiles naming them."""
    store = tmp_path / "data" / "qm.sqlite"
    create_queue_manager(str(store)).close()
    state_dir = tmp_path / "state"
    (state_dir / "backups").mkdir(parents=True)
    journal = state_dir / "journal.jsonl"
    journal.write_text(RECORD)
    backup = state_dir / "backups" / "QM1-APP.ORDERS-20261201T000000.000Z.dmp"
    backup.write_text("* DMPMQMSG Version:9.4.0.0 Created:Tue Dec  1 00:00:00 2026\n")
    attempts = state_dir / "dlq-attempts.sqlite"
    AttemptStore(attempts, "QM1", "DLQ").close()
    snap = tmp_path / "snap"
    (snap / "messages").mkdir(parents=True)
    (snap / "manifest.json").write_text("{}")
    return {"store": store, "journal": journal, "backup": backup, "attempts": attempts,
            "snap": snap, "tmp": tmp_path}


def state_of(place: dict[str, Path]) -> StateFiles:
    return StateFiles(stores=(str(place["store"]),), journal=str(place["journal"]),
                      backups=str(place["journal"].parent / "backups"),
                      attempts=str(place["attempts"]))


def test_the_store_marker_is_the_backends(place):
    assert STORE_APPLICATION_ID == APPLICATION_ID


def test_each_of_mqconsoles_files_is_refused_directly(place):
    state = state_of(place)
    store = str(place["store"])
    said = {
        store: "is a queue manager database",
        store + "-wal": f"belongs to the queue manager database {store}",
        store + "-shm": f"belongs to the queue manager database {store}",
        store + "-mqlock": f"belongs to the queue manager database {store}",
        store + "-journal": f"belongs to the queue manager database {store}",
        str(place["journal"]): "is a change journal",
        str(place["backup"]): "is a delete's backup",
        str(place["attempts"]): "is the dead-letter handler's attempts file",
        str(place["snap"]): "is an audit snapshot",
        str(place["snap"] / "messages" / "x.html"): "is inside the audit snapshot",
    }
    for path, words in said.items():
        what = describe(path, state)
        assert what is not None and words in what, (path, what)
    # content alone (no StateFiles): any store, journal, saved messages, SQLite file
    copy = place["tmp"] / "elsewhere.sqlite"
    copy.write_bytes(place["store"].read_bytes())
    assert describe(copy, StateFiles()) == "is a queue manager database"
    assert describe(str(copy) + "-wal", StateFiles()) == \
        f"belongs to the queue manager database {copy}"
    assert describe(place["attempts"], StateFiles()) == "is an SQLite database"
    other_journal = place["tmp"] / "j.jsonl"
    other_journal.write_text(RECORD)
    assert describe(other_journal, StateFiles()) == "is a change journal"
    saved = place["tmp"] / "s.dmp"
    saved.write_text("* DMPMQMSG Version:9.4.0.0\n")
    assert describe(saved, StateFiles()) == "is a file of saved messages"
    assert describe(place["tmp"] / "report.html", state) is None


def test_links_of_every_kind_are_followed(place):
    state = state_of(place)
    store = str(place["store"])
    tmp = place["tmp"]
    (tmp / "to-store").symlink_to(store)
    (tmp / "to-wal").symlink_to(store + "-wal")  # dangling: writing would create the -wal
    (tmp / "to-link").symlink_to(tmp / "to-wal")  # a chain
    (tmp / "to-backup").symlink_to(place["backup"])
    os.link(place["journal"], tmp / "hard-journal")
    empty = place["journal"].parent / "empty.jsonl"  # a journal with no record yet
    empty.touch()
    os.link(empty, tmp / "hard-empty")
    assert describe(tmp / "to-store", state) == f"links to {store}, which is a queue manager " \
        "database"
    assert describe(tmp / "to-wal", state) == f"links to {store}-wal, which belongs to the " \
        f"queue manager database {store}"
    assert describe(tmp / "to-link", state).startswith(f"links to {store}-wal")
    assert "which is a delete's backup" in describe(tmp / "to-backup", state)
    assert describe(tmp / "hard-journal", state) == "is a change journal"  # by content
    state_empty = StateFiles(journal=str(empty))
    assert describe(tmp / "hard-empty", state_empty) == \
        f"is a hard link to {empty}, which is a change journal (the one mqconsole writes)"
    os.link(place["backup"], tmp / "hard-backup.dmp")
    assert describe(tmp / "hard-backup.dmp", state, allow=(SAVED,)) == \
        f"is a hard link to {place['backup']}, which is a delete's backup"


def test_rotated_journal_files_are_the_journal(place):
    state = state_of(place)
    rotated = place["journal"].with_name("journal.20261201T000000000000Z.jsonl")
    assert "rotated file of the change journal" in describe(rotated, state)


def test_each_writer_may_write_its_own_kind_only(place):
    state = state_of(place)
    assert describe(place["journal"], state, allow=(JOURNAL,)) is None
    assert describe(place["attempts"], state, allow=(SQLITE,)) is None
    assert describe(place["store"], state, allow=(SQLITE,)) == "is a queue manager database"
    assert describe(place["snap"], state, allow=(SNAPSHOT,)) is None
    assert describe(place["snap"] / "messages", state, allow=(SNAPSHOT,)) is not None
    assert describe(place["backup"], state, allow=(SAVED,)) == "is a delete's backup"
    new_store = place["tmp"] / "data" / "new.sqlite"
    assert describe(new_store, state, allow=(STORE,)) is None
    assert describe(str(place["store"]) + "-wal", state, allow=(STORE,)) is not None


def test_the_refusal_is_one_sentence_naming_the_option_and_the_file(place):
    sentence = refusal(place["store"], "--html", state_of(place))
    assert sentence == (f"--html {place['store']} is a queue manager database: mqconsole "
                        "never writes over its own files, choose another")
    with pytest.raises(OutputRefused) as info:
        check_output(place["backup"], "--out", state_of(place))
    assert info.value.code == 2 and "\n" not in str(info.value)


def test_write_private_replaces_a_link_never_its_target(place):
    tmp = place["tmp"]
    victim = tmp / "victim.txt"
    victim.write_text("keep me")
    link = tmp / "page.html"
    link.symlink_to(victim)
    old = os.umask(0o022)
    try:
        write_private(link, "<html>", option="--html", state=state_of(place))
    finally:
        os.umask(old)
    assert victim.read_text() == "keep me"
    assert not link.is_symlink() and link.read_text() == "<html>"
    assert stat.S_IMODE(link.stat().st_mode) == 0o600
    assert [p.name for p in tmp.iterdir() if p.name.startswith(".page")] == []


def test_write_private_refuses_before_writing(place):
    before = place["store"].read_bytes()
    with pytest.raises(OutputRefused, match=r"--html .* is a queue manager database"):
        write_private(place["store"], "<html>", option="--html", state=state_of(place))
    assert place["store"].read_bytes() == before
    with pytest.raises(OutputRefused, match="is a folder, not a regular file"):
        write_private(place["tmp"] / "data", "x", option="--html", state=StateFiles())


def test_the_attempts_file_refuses_a_store_and_is_private(place, tmp_path):
    before = place["store"].read_bytes()
    with pytest.raises(OutputRefused, match=r"--attempts-file .* is a queue manager database"):
        AttemptStore(place["store"], "QM1", "DLQ")
    assert place["store"].read_bytes() == before
    with pytest.raises(OutputRefused, match="belongs to the queue manager database"):
        AttemptStore(str(place["store"]) + "-wal", "QM1", "DLQ")
    assert not Path(str(place["store"]) + "-wal").exists()
    old = os.umask(0o022)
    try:
        fresh = tmp_path / "new-state" / "deeper" / "dlq-attempts.sqlite"
        store = AttemptStore(fresh, "QM1", "DLQ")
        store.failed(b"k", "full")
        modes = {p.name: stat.S_IMODE(p.stat().st_mode) for p in fresh.parent.iterdir()}
        store.close()
    finally:
        os.umask(old)
    assert modes["dlq-attempts.sqlite"] == 0o600 and set(modes.values()) == {0o600}
    for folder in (fresh.parent, fresh.parent.parent):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700
