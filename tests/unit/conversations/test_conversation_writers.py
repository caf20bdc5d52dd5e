"""One writer per durable conversation, within one process: services, the store file, schema.

Between processes (a live holder, a killed one, exit without closing) see
``tests/integration/test_conversation_writer.py``.
"""

from __future__ import annotations

import gc
import logging
import os
import socket
import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from nucleo_core import ConversationBusy as ExportedConversationBusy
from nucleo_core.conversations import (
    ConversationBusy,
    ConversationConflict,
    ConversationContext,
    ConversationError,
    ConversationService,
    ConversationStoreError,
)
from nucleo_core.conversations.sqlite_store import SCHEMA_VERSION, SQLiteConversationStore
from nucleo_core.conversations.writer_hold import lock_path
from nucleo_core.models.messages import Message


@pytest.fixture
def store_path(tmp_path: Path) -> Path:
    return tmp_path / "store" / "conversations.sqlite3"


@pytest.fixture
def first(store_path: Path) -> Iterator[ConversationService]:
    with ConversationService(store_path) as opened:
        yield opened


@pytest.fixture
def second(store_path: Path) -> Iterator[ConversationService]:
    with ConversationService(store_path) as opened:
        yield opened


def writer_records(path: Path) -> list[tuple[str, int, str]]:
    """The store's writer records, read with a plain SQLite connection."""
    connection = sqlite3.connect(path)
    try:
        rows = connection.execute("SELECT conversation_id, pid, host FROM writers").fetchall()
    finally:
        connection.close()
    return [tuple(row) for row in rows]


def test_conversation_busy_is_a_conversation_error_exported_from_the_package() -> None:
    """`ConversationBusy` is caught as a `ConversationError`, and is not a mode conflict."""
    assert ExportedConversationBusy is ConversationBusy
    assert issubclass(ConversationBusy, ConversationError)
    assert not issubclass(ConversationBusy, ConversationConflict)


def test_a_second_service_of_this_process_is_refused_naming_this_process(
    store_path: Path, first: ConversationService, second: ConversationService
) -> None:
    """Another service on the same file cannot open a held conversation, and is told why."""
    before = datetime.now(UTC)
    held = first.open("c", durable=True)
    with pytest.raises(ConversationBusy) as refused:
        second.open("c", durable=True)
    busy = refused.value
    assert (busy.conversation_id, busy.pid, busy.host) == ("c", os.getpid(), socket.gethostname())
    assert busy.since is not None
    assert before <= busy.since <= datetime.now(UTC)
    assert busy.this_process
    assert str(busy).startswith(
        f"conversation c is already open for writing in this process (pid {os.getpid()}, since "
    )
    assert "open it through that service, or close it there first" in str(busy)
    assert writer_records(store_path) == [("c", os.getpid(), socket.gethostname())]
    held.append(Message.user("Still writable."))  # the holder is untouched

    first.close(held)
    assert writer_records(store_path) == []
    reopened = second.open("c", durable=True)
    assert [message.text for message in reopened.messages] == ["Still writable."]


def test_opening_a_held_conversation_again_in_its_service_returns_it(
    first: ConversationService,
) -> None:
    """The same service opening the same id twice gets the one open object, not a refusal."""
    context = first.open("c", durable=True)
    assert first.open("c", durable=True) is context


def test_other_conversations_of_the_file_are_not_held(
    first: ConversationService, second: ConversationService
) -> None:
    """Holding one conversation leaves every other one of the file free to open elsewhere."""
    first.open("a", durable=True)
    second.open("b", durable=True).append(Message.user("Mine."))
    assert second.exists("a")


def test_shutdown_releases_every_conversation_its_service_held(
    store_path: Path, second: ConversationService
) -> None:
    """After `shutdown`, every conversation the service held opens elsewhere."""
    service = ConversationService(store_path)
    service.open("a", durable=True)
    service.open("b", durable=True)
    service.shutdown()
    assert writer_records(store_path) == []
    second.open("a", durable=True)
    second.open("b", durable=True)


def test_make_durable_is_refused_while_another_service_holds_the_id(
    first: ConversationService, second: ConversationService
) -> None:
    """A temporary conversation is not made durable under an id another writer holds."""
    scratch = second.open("c")
    first.open("c", durable=True)
    with pytest.raises(ConversationBusy):
        second.make_durable(scratch)
    assert not scratch.durable


def test_make_durable_holds_the_conversation_it_stores(
    first: ConversationService, second: ConversationService
) -> None:
    """A conversation made durable is held like one opened durable."""
    scratch = first.open("c")
    scratch.append(Message.user("Keep me."))
    first.make_durable(scratch)
    with pytest.raises(ConversationBusy):
        second.open("c", durable=True)
    first.close(scratch)
    assert [m.text for m in second.open("c", durable=True).messages] == ["Keep me."]


def test_a_held_conversation_is_not_deleted_from_elsewhere(
    store_path: Path, first: ConversationService, second: ConversationService
) -> None:
    """`delete` refuses a conversation another writer holds, and deletes it once released."""
    held = first.open("c", durable=True)
    held.append(Message.user("Not yet."))
    with pytest.raises(ConversationBusy):
        second.delete("c")
    assert second.exists("c")
    held.append(Message.user("Still here."))

    first.close(held)
    assert second.delete("c")
    assert not second.exists("c")
    assert not lock_path(os.fspath(store_path), "c").exists()
    assert writer_records(store_path) == []


def test_deleting_a_conversation_open_here_releases_it(
    first: ConversationService, second: ConversationService
) -> None:
    """Deleting a conversation its own service holds releases it for a new one of that id."""
    first.open("c", durable=True)
    assert first.delete("c")
    assert len(second.open("c", durable=True)) == 0


def test_a_service_dropped_without_shutdown_releases_its_conversations(
    store_path: Path, second: ConversationService, caplog: pytest.LogCaptureFixture
) -> None:
    """A service garbage-collected while holding a conversation frees it and its record."""
    dropped = ConversationService(store_path)
    dropped.open("c", durable=True)
    del dropped
    gc.collect()
    with caplog.at_level(logging.WARNING, logger="nucleo.conversations"):
        second.open("c", durable=True)
    assert not caplog.records


def test_a_record_left_by_a_writer_that_did_not_release_is_taken_over_with_a_warning(
    store_path: Path, first: ConversationService, caplog: pytest.LogCaptureFixture
) -> None:
    """A writer record whose lock is free (its writer died) is replaced, and the log says whose."""
    first.open("c", durable=True)
    connection = sqlite3.connect(store_path)
    connection.execute(
        "INSERT INTO writers (conversation_id, token, pid, host, since) VALUES (?, ?, ?, ?, ?)",
        ("d", "gone", 4_000_000, "elsewhere", "2025-01-02T03:04:05+00:00"),
    )
    connection.commit()
    connection.close()
    with caplog.at_level(logging.WARNING, logger="nucleo.conversations"):
        first.open("d", durable=True)
    [record] = caplog.records
    assert "previous writer (pid 4000000 on host elsewhere, since 2025-01-02T03:04:05" in (
        record.getMessage()
    )
    assert ("d", os.getpid(), socket.gethostname()) in writer_records(store_path)


def test_a_store_of_schema_version_1_is_migrated_and_held(
    store_path: Path, second: ConversationService
) -> None:
    """A file written before writers were recorded gains the record and the one-writer rule."""
    with ConversationService(store_path) as service:
        service.open("c", durable=True).append(Message.user("From version 1."))
    connection = sqlite3.connect(store_path)
    connection.execute("DROP TABLE writers")
    connection.execute("PRAGMA user_version = 1")
    connection.commit()
    connection.close()

    with ConversationService(store_path) as service:
        context = service.open("c", durable=True)
        assert [m.text for m in context.messages] == ["From version 1."]
        with pytest.raises(ConversationBusy):
            second.open("c", durable=True)
    connection = sqlite3.connect(store_path)
    (version,) = connection.execute("PRAGMA user_version").fetchone()
    connection.close()
    assert version == SCHEMA_VERSION


def test_an_in_memory_store_takes_no_lock(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``":memory:"`` conversations, seen by no other process, leave no lock file anywhere."""
    monkeypatch.chdir(tmp_path)
    with ConversationService(":memory:") as service:
        service.open("c", durable=True).append(Message.user("In memory."))
        assert service.open("c", durable=True).messages[0].text == "In memory."
    assert list(tmp_path.iterdir()) == []


def test_an_unusable_lock_folder_is_a_store_error_naming_it(store_path: Path) -> None:
    """A lock folder that cannot be created refuses the open with the path and the fix."""
    store_path.parent.mkdir(parents=True)
    Path(f"{store_path}-writers").write_text("a file where the folder should be")
    store = SQLiteConversationStore(store_path)
    try:
        with pytest.raises(ConversationStoreError, match="-writers' folder must be on a local"):
            store.hold("c")
    finally:
        store.close()


def test_make_durable_refuses_a_context_whose_id_another_open_context_has(
    first: ConversationService,
) -> None:
    """A free-standing context is not made durable under the id of another one open here."""
    first.open("c")
    twin = ConversationContext("c")
    with pytest.raises(ConversationConflict, match="another conversation c is open"):
        first.make_durable(twin)
    assert not twin.durable
