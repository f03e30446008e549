"""Files a save must never replace, --force or not (issue 17 item 8)."""

from __future__ import annotations

import os
import stat

import pytest

from mqconsole.backends.embedded import create_queue_manager
from mqconsole.ops.journal import Journal, JournalEntry
from mqconsole.ops.savefile import (
    TargetExistsError,
    UnsafeTargetError,
    check_new_target,
    new_target_problem,
    refuse_unsafe_target,
    write_messages_file,
    write_new_file,
)


@pytest.fixture
def database(tmp_path):
    path = tmp_path / "qm.sqlite"
    qm = create_queue_manager(str(path), name="QM1")
    yield path
    qm.close()


@pytest.mark.parametrize("suffix", ["", "-wal", "-shm", "-journal", "-mqlock"])
def test_the_database_and_its_side_files_are_refused(database, suffix):
    target = str(database) + suffix
    before = database.read_bytes()[:100]
    with pytest.raises(UnsafeTargetError, match="queue manager database") as info:
        write_messages_file(target, iter([]), qmgr="QM1", queue="Q", force=True)
    assert isinstance(info.value, TargetExistsError)  # every caller already reports these
    assert database.read_bytes()[:100] == before
    assert not [p for p in database.parent.iterdir() if p.name.endswith(".partial")]


def test_devices_fifos_and_folders_are_refused(tmp_path):
    with pytest.raises(UnsafeTargetError, match="/dev/null is a character device, not a "
                                                "regular file"):
        write_messages_file("/dev/null", iter([]), qmgr="QM1", queue="Q", force=True)
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(UnsafeTargetError, match="is a FIFO"):
        refuse_unsafe_target(fifo)
    with pytest.raises(UnsafeTargetError, match="is a folder"):
        refuse_unsafe_target(tmp_path)
    link = tmp_path / "to-null"
    link.symlink_to("/dev/null")
    with pytest.raises(UnsafeTargetError, match="character device"):
        refuse_unsafe_target(link)


def test_a_journal_is_refused_and_an_ordinary_file_is_overwritten(tmp_path):
    journal = tmp_path / "changes.jsonl"
    Journal(journal).append(JournalEntry(operation="move"))
    with pytest.raises(UnsafeTargetError, match="is a change journal"):
        write_messages_file(journal, iter([]), qmgr="QM1", queue="Q", force=True)
    assert journal.read_text().startswith('{"time":')
    plain = tmp_path / "old.dmp"
    plain.write_text("anything\n")
    assert write_messages_file(plain, iter([]), qmgr="QM1", queue="Q", force=True) == 0
    refuse_unsafe_target(tmp_path / "new.dmp")  # nothing there: fine


def test_check_new_target_says_what_is_wrong_with_a_new_file(tmp_path, monkeypatch):
    """What a delete's --backup is checked for before the question (as a save's write)."""
    check_new_target(tmp_path / "new.dmp")  # a new file in a folder that can be written
    (tmp_path / "old.dmp").write_text("precious")
    with pytest.raises(TargetExistsError, match=r"old.dmp exists \(name a new one\)"):
        check_new_target(tmp_path / "old.dmp", exists_hint="name a new one")
    check_new_target(tmp_path / "old.dmp", force=True)
    with pytest.raises(UnsafeTargetError):
        check_new_target("/dev/null", force=True)
    with pytest.raises(FileNotFoundError) as missing:
        check_new_target(tmp_path / "no" / "x.dmp")
    assert (missing.value.filename, missing.value.strerror) == (str(tmp_path / "no"),
                                                               "no such folder")
    # root may write anywhere, so the folder's answer is what os.access says
    monkeypatch.setattr(os, "access", lambda path, mode: str(path) != str(tmp_path))
    with pytest.raises(PermissionError) as locked:
        check_new_target(tmp_path / "x.dmp")
    assert locked.value.filename == str(tmp_path)


def test_new_target_problem_is_check_new_target_as_a_sentence(tmp_path):
    """The console checks names as they are typed with the rule the operations use."""
    taken = tmp_path / "taken.dmp"
    taken.write_text("x")
    assert new_target_problem(str(tmp_path / "new.dmp")) is None
    assert new_target_problem("") == "give a file name"
    assert new_target_problem(str(taken)) == \
        f"{taken} exists (choose another name: files are never overwritten)"
    assert new_target_problem(str(taken), force=True) is None
    assert new_target_problem(str(tmp_path / "no" / "x.dmp")) == \
        f"cannot use {tmp_path / 'no'}: no such folder"


def test_write_new_file_never_overwrites(tmp_path):
    target = write_new_file(tmp_path / "p.bin", b"\x00\xff")
    assert target.read_bytes() == b"\x00\xff" and stat.S_IMODE(target.stat().st_mode) == 0o600
    with pytest.raises(TargetExistsError, match=r"exists \(choose another name"):
        write_new_file(target, b"other")
    assert target.read_bytes() == b"\x00\xff"


@pytest.mark.parametrize("made", ["missing", "empty", "rotated"])
def test_the_sessions_own_journal_is_refused_even_before_it_has_records(tmp_path, made):
    """The content check sees only a journal with records; the operation also knows its own
    journal (a configured journal.path, not there yet or empty, or a rotated file of it)."""
    from mqconsole.backends.open import open_embedded
    from mqconsole.mq.queue import QueueAttrs
    from mqconsole.ops.operation import Delete, Operation, Save
    from mqconsole.ops.selection import Selection

    path = tmp_path / "audit" / "changes.jsonl"
    path.parent.mkdir()
    target = path
    if made == "empty":
        path.touch()
    if made == "rotated":
        target = path.with_name("changes.20261101T000000000000Z.jsonl")
        target.write_text("")
    qm = open_embedded(":memory:")
    qm.define_queue(QueueAttrs(name="Q"))
    for kind in (Save("Q", str(target), Selection(all=True), force=True),
                 Delete("Q", Selection(all=True), backup=str(tmp_path / "audit" / ".." / "audit"
                                                             / target.name), force=True)):
        op = Operation(kind, journal=Journal(path))
        with pytest.raises(TargetExistsError, match="journal"):
            op.validate(qm)
    assert not target.exists() or target.read_text() == ""
    qm.close()
