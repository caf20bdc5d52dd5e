"""The conversation store contract, run against SQLite and a real PostgreSQL server.

Every durable conversation behaviour a user relies on holds on both backends: what is written
reads back, a rollback and a compaction are kept, one writer holds a conversation and a
refused opener is told who; on PostgreSQL a killed holder's lock dies with its session.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import psycopg
import pytest
from _store_kinds import BACKENDS, store_url

from nucleo_core.conversations import (
    ConversationBusy,
    ConversationService,
    ConversationStoreError,
)
from nucleo_core.conversations.postgres_store import PostgresConversationStore
from nucleo_core.conversations.sqlite_store import SQLiteConversationStore
from nucleo_core.models.messages import Message
from nucleo_core.stores import parse_store_url


@pytest.fixture(params=BACKENDS)
def target(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """What a `ConversationService` is opened on: a SQLite file or a PostgreSQL URL."""
    url = parse_store_url(store_url(request, tmp_path, request.param))
    if url.backend == "sqlite":
        return str(url.sqlite_file("conversations"))
    return url.url


@pytest.fixture
def service(target: str) -> Iterator[ConversationService]:
    with ConversationService(target) as opened:
        yield opened


def test_what_a_durable_conversation_holds_reads_back_in_another_service(
    target: str, service: ConversationService
) -> None:
    """Messages, skills, markers, metadata and artifacts written are what the next opener reads."""
    context = service.open("c1", durable=True)
    context.extend([Message.user("hello"), Message.assistant("hi")])
    context.attach_skill("greeting")
    context.record_marker("note", "checked")
    context.set_metadata("tenant", {"id": 7})
    ref = context.artifacts.keep('{"rows": [1, 2]}', "application/json")
    service.close(context)
    with ConversationService(target) as other:
        again = other.open("c1", durable=True)
        assert [m.text for m in again.messages] == ["hello", "hi"]
        assert again.skills == ("greeting",)
        assert [(m.kind, m.reason) for m in again.markers] == [("note", "checked")]
        assert again.metadata == {"tenant": {"id": 7}}
        assert again.artifacts.get(ref.id).content == '{"rows": [1, 2]}'


def test_a_rollback_is_kept_with_its_marker(target: str, service: ConversationService) -> None:
    """The partial answer a rollback drops stays dropped, with its marker, after a reopen."""
    context = service.open("c2", durable=True)
    context.extend([Message.user("one"), Message.assistant("two"), Message.user("three")])
    context.append(Message.assistant("partial"))
    context.rollback_to_last_user_utterance("worker died")
    service.close(context)
    with ConversationService(target) as other:
        again = other.open("c2", durable=True)
        assert [m.text for m in again.messages] == ["one", "two", "three"]
        assert again.markers[-1].reason == "worker died"


def test_ids_exists_and_delete_agree(service: ConversationService) -> None:
    """Stored ids are listed oldest first, and a deleted one is gone everywhere."""
    for cid in ("a", "b", "c"):
        service.close(service.open(cid, durable=True))
    assert service.list_ids()[:3] == ["a", "b", "c"]
    assert service.delete("b") is True
    assert not service.exists("b")
    assert service.list_ids() == ["a", "c"]
    assert service.delete("b") is False


def test_a_held_conversation_is_refused_to_a_second_service_naming_the_holder(
    target: str, service: ConversationService
) -> None:
    """A second writer gets ConversationBusy with the holder's pid; after close it may open."""
    held = service.open("busy", durable=True)
    with ConversationService(target) as other:
        with pytest.raises(ConversationBusy) as refused:
            other.open("busy", durable=True)
        assert refused.value.pid == os.getpid()
        service.close(held)
        assert other.open("busy", durable=True).id == "busy"


def test_a_metadata_value_that_is_not_json_is_refused(service: ConversationService) -> None:
    """A value the store cannot keep raises ConversationStoreError and changes nothing."""
    context = service.open("m", durable=True)
    with pytest.raises(ConversationStoreError):
        context.set_metadata("bad", object())
    assert "bad" not in context.metadata


_HOLDER = textwrap.dedent(
    """
    import sys
    from nucleo_core.conversations import ConversationService
    service = ConversationService(sys.argv[1])
    service.open("victim", durable=True).append(__import__(
        "nucleo_core.models.messages", fromlist=["Message"]).Message.user("before the kill"))
    print("held", flush=True)
    sys.stdin.read()
    """
)


def test_a_killed_holder_releases_its_conversation_through_its_lock(target: str) -> None:
    """SIGKILL of the holder frees the conversation; its committed message is still there."""
    with subprocess.Popen(
        [sys.executable, "-c", _HOLDER, target],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    ) as holder:
        try:
            assert holder.stdout is not None
            assert holder.stdout.readline().strip() == "held"
            with ConversationService(target) as other, pytest.raises(ConversationBusy) as refused:
                other.open("victim", durable=True)
            assert refused.value.pid == holder.pid
        finally:
            holder.send_signal(signal.SIGKILL)
            holder.wait()
    # The server ends the killed client's session when it reads the closed socket: wait for
    # that (the lock is the only signal), up to a generous bound, not a fixed time.
    with ConversationService(target, wait=30.0) as other:
        again = other.open("victim", durable=True)
        assert [m.text for m in again.messages] == ["before the kill"]


def test_a_store_created_now_records_its_creation_time(service: ConversationService) -> None:
    """A new durable conversation's creation time is now (UTC), on either backend."""
    before = datetime.now(UTC)
    context = service.open("t", durable=True)
    assert before <= context.created <= datetime.now(UTC)


def _store(target: str) -> SQLiteConversationStore | PostgresConversationStore:
    if target.startswith("postgresql://"):
        return PostgresConversationStore(target)
    return SQLiteConversationStore(target)


def test_opening_for_writing_creates_once_and_a_failed_write_keeps_nothing_of_itself(
    target: str,
) -> None:
    """open_for_writing creates an empty conversation once, then reads it back as stored.

    A write that fails (a position taken) keeps none of its rows; the next write commits.
    """
    store = _store(target)
    try:
        created = datetime.now(UTC)
        hold, snapshot = store.open_for_writing("w", created=created)
        assert (snapshot.id, snapshot.created, tuple(snapshot.messages)) == ("w", created, ())
        store.append_messages("w", 0, [Message.user("one")])
        with pytest.raises(ConversationStoreError):
            store.append_messages("w", 0, [Message.user("again"), Message.user("lost")])
        store.append_messages("w", 1, [Message.assistant("two")])
        if hold is not None:
            store.release(hold)  # type: ignore[arg-type]  # the store's own kind
        hold, again = store.open_for_writing("w", created=datetime.now(UTC))
        assert [m.text for m in again.messages] == ["one", "two"]
        assert again.created == created
        if hold is not None:
            store.release(hold)  # type: ignore[arg-type]
    finally:
        store.close()


def test_postgres_a_write_after_the_holding_session_ended_is_refused(pg_url: str) -> None:
    """A writer whose session (and so its lock) ended cannot commit another change.

    The next holder finds what was committed under the lock, and nothing after.
    """
    with ConversationService(pg_url) as service:
        context = service.open("fenced", durable=True)
        context.append(Message.user("kept"))
        with psycopg.connect(pg_url, autocommit=True) as admin:
            ended = admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' "
                "AND granted AND database = (SELECT oid FROM pg_database "
                "WHERE datname = current_database())"
            ).fetchall()
        assert ended == [(True,)]
        with pytest.raises(ConversationStoreError):
            context.append(Message.assistant("written without the lock"))
        assert [m.text for m in context.messages] == ["kept"]
        with ConversationService(pg_url, wait=30.0) as other:
            again = other.open("fenced", durable=True)
            assert [m.text for m in again.messages] == ["kept"]


def test_postgres_a_version_1_store_migrates_its_writers_table_to_unlogged(
    pg_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Schema 1 to 2 keeps every row and makes the writers' records unlogged.

    They name live sessions only; a record left by a dead writer is still reported.
    """
    from nucleo_core.conversations.postgres_store import MIGRATIONS
    from nucleo_core.stores.postgres import database

    assert len(MIGRATIONS) == 2
    database(pg_url).migrate("conversations", MIGRATIONS[:1], ConversationStoreError)
    with psycopg.connect(pg_url, autocommit=True) as admin:
        admin.execute(
            "INSERT INTO nucleo_conversations (id, created, carried) "
            """VALUES ('old', %s, '{"v": 1, "states": []}')""",
            (datetime.now(UTC).isoformat(),),
        )
        admin.execute(
            "INSERT INTO nucleo_writers (conversation_id, token, pid, host, since) "
            "VALUES ('old', 'gone', 4242, 'elsewhere', %s)",
            (datetime.now(UTC).isoformat(),),
        )
    with ConversationService(pg_url) as service:
        context = service.open("old", durable=True)
        assert context.messages == ()
        service.close(context)
    assert "pid 4242 on host elsewhere" in caplog.text
    with psycopg.connect(pg_url, autocommit=True) as admin:
        row = admin.execute(
            "SELECT relpersistence FROM pg_class WHERE relname = 'nucleo_writers'"
        ).fetchone()
        version = admin.execute(
            "SELECT version FROM nucleo_schema WHERE component = 'conversations'"
        ).fetchone()
    assert row == ("u",)
    assert version == (2,)
