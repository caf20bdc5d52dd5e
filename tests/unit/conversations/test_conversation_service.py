"""`ConversationService`: temporary and durable conversations, the store file, open semantics."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from _conversation_strategies import messages
from hypothesis import given, settings
from hypothesis import strategies as st

from nucleo_core.conversations import (
    CONVERSATIONS_ENVIRONMENT_VARIABLE,
    ConversationClosedError,
    ConversationConflict,
    ConversationContext,
    ConversationService,
    ConversationStoreError,
    default_store_path,
)
from nucleo_core.models.messages import Message
from nucleo_core.tools import ToolProvider, ToolRegistry
from nucleo_core.tools.provider import RawInput
from nucleo_core.tools.state import CarriedState
from nucleo_core.tools.tool import Tool


@pytest.fixture
def store_path(tmp_path: Path) -> Path:
    return tmp_path / "store" / "conversations.sqlite3"


@pytest.fixture
def service(store_path: Path) -> Iterator[ConversationService]:
    with ConversationService(store_path) as opened:
        yield opened


def _fill(service: ConversationService, conversation_id: str) -> None:
    context = service.open(conversation_id, durable=True)
    context.append(Message.user("What is in the report?"))
    context.extend([Message.assistant("Reading it."), Message.user("And the summary?")])
    context.attach_skill("reports")
    context.attach_skill("summaries")
    context.record_marker("note", "the user switched topics")
    context.set_metadata("owner", {"name": "ada", "tags": ["a", "b"]})
    context.artifacts.keep('{"pages": 12}', "application/json")
    context.artifacts.keep("plain text")
    context.rollback_to_last_user_utterance("the model timed out")


def test_a_durable_conversation_survives_a_restart(store_path: Path) -> None:
    """Everything a durable conversation holds is loaded again by a new service on the file."""
    with ConversationService(store_path) as first:
        _fill(first, "chat-1")
        before = first.open("chat-1", durable=True).snapshot()
    with ConversationService(store_path) as second:
        after = second.open("chat-1", durable=True)
        assert after.snapshot() == before
        assert after.durable
        assert len(after.messages) == 3
        assert after.skills == ("reports", "summaries")
        assert [marker.kind for marker in after.markers] == ["note", "abnormal_end"]
        assert after.metadata["owner"] == {"name": "ada", "tags": ["a", "b"]}
        assert [artifact.content for artifact in after.artifacts] == ['{"pages": 12}', "plain text"]


@settings(max_examples=25)
@given(st.lists(messages, max_size=6))
def test_any_messages_are_loaded_equal_after_a_restart(given_messages: list[Message]) -> None:
    """Whatever messages were appended, a restarted service loads them equal and in order."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "c.sqlite3"
        with ConversationService(path) as first:
            context = first.open("c", durable=True)
            for message in given_messages:
                context.append(message)
        with ConversationService(path) as second:
            assert second.open("c", durable=True).messages == tuple(given_messages)


def test_a_compaction_survives_a_restart(store_path: Path) -> None:
    """The summary, the carried states and the replaced messages are stored together."""
    with ConversationService(store_path) as first:
        context = first.open("c", durable=True)
        old = [Message.user("one"), Message.assistant("two")]
        context.extend([*old, Message.user("three")])
        carried = [CarriedState(tool="todo", text="1 open item", data={"open": [1]})]
        summary = Message.user("[Summary of earlier conversation]\none, two")
        context.apply_compaction(old, summary, summary="one, two", carried=carried)
        before = context.snapshot()
    with ConversationService(store_path) as second:
        after = second.open("c", durable=True)
        assert after.snapshot() == before
        assert after.summary == "one, two"
        assert after.carried == tuple(carried)


def test_a_temporary_conversation_vanishes_when_closed(service: ConversationService) -> None:
    """A closed temporary conversation is gone: not listed, not existing, reopened empty."""
    context = service.open("scratch")
    context.append(Message.user("hi"))
    assert service.exists("scratch")
    assert service.list_ids() == ["scratch"]
    service.close(context)
    assert not service.exists("scratch")
    assert service.list_ids() == []
    assert service.open("scratch").messages == ()


def test_temporary_conversations_touch_no_disk(store_path: Path) -> None:
    """A service running only temporary conversations never creates its store file."""
    with ConversationService(store_path) as service:
        context = service.open()
        context.append(Message.user("hi"))
        context.artifacts.keep("x" * 10)
        service.close(context)
        assert not service.exists(context.id)
    assert not store_path.exists()
    assert not store_path.parent.exists()


def test_the_store_file_is_created_with_its_folder_on_first_durable_use(
    store_path: Path,
) -> None:
    """The first durable open creates the folder and the SQLite file, in WAL mode."""
    with ConversationService(store_path) as service:
        service.open("d", durable=True)
        assert store_path.exists()
    with sqlite3.connect(store_path) as connection:
        (mode,) = connection.execute("PRAGMA journal_mode").fetchone()
    connection.close()
    assert mode == "wal"


def test_opening_without_an_id_makes_a_fresh_uuid(service: ConversationService) -> None:
    """A conversation opened without an id gets a new uuid4 hex id each time."""
    first, second = service.open(), service.open(durable=True)
    assert len(first.id) == 32
    assert int(first.id, 16) >= 0
    assert first.id != second.id


def test_an_open_conversation_is_one_object(service: ConversationService) -> None:
    """Opening an id that is open returns the same context."""
    assert service.open("a") is service.open("a")
    assert service.open("b", durable=True) is service.open("b", durable=True)


def test_a_conversation_keeps_its_mode(service: ConversationService) -> None:
    """A durable id cannot be opened temporary, nor an open temporary one durable."""
    service.close(service.open("kept", durable=True))
    with pytest.raises(ConversationConflict, match="durable=True"):
        service.open("kept")
    service.open("scratch")
    with pytest.raises(ConversationConflict, match="make_durable"):
        service.open("scratch", durable=True)


def test_a_temporary_conversation_can_be_made_durable(store_path: Path) -> None:
    """make_durable stores everything the context holds and writes every later change."""
    with ConversationService(store_path) as service:
        context = service.open("promoted")
        context.append(Message.user("first"))
        context.artifacts.keep("kept before")
        service.make_durable(context)
        assert context.durable
        context.append(Message.assistant("second"))
        context.artifacts.keep("kept after")
        before = context.snapshot()
        service.make_durable(context)  # idempotent
    with ConversationService(store_path) as service:
        assert service.open("promoted", durable=True).snapshot() == before


def test_make_durable_refuses_an_id_already_stored(service: ConversationService) -> None:
    """A temporary context cannot be stored over a different stored conversation."""
    service.close(service.open("taken", durable=True))
    stray = service.open("other")
    service.close(stray)
    twin = ConversationContext("taken")
    with pytest.raises(ConversationConflict, match="stored already"):
        service.make_durable(twin)


def test_a_closed_context_can_be_read_but_not_changed(service: ConversationService) -> None:
    """Changing a closed context raises ConversationClosedError; reading it still works."""
    context = service.open("c", durable=True)
    context.append(Message.user("hi"))
    service.close(context)
    service.close(context)  # closing twice is harmless
    assert context.closed
    assert context.messages == (Message.user("hi"),)
    for change in (
        lambda: context.append(Message.user("again")),
        lambda: context.attach_skill("s"),
        lambda: context.record_marker("k", "r"),
        lambda: context.rollback_to_last_user_utterance("r"),
        lambda: context.set_metadata("k", 1),
        lambda: context.artifacts.keep("x"),
    ):
        with pytest.raises(ConversationClosedError):
            change()
    assert service.open("c", durable=True) is not context


def test_delete_removes_stored_and_open_conversations(service: ConversationService) -> None:
    """Delete removes a stored conversation with everything it holds, and closes an open one."""
    _fill(service, "gone")
    context = service.open("gone", durable=True)
    assert service.delete("gone")
    assert context.closed
    assert not service.exists("gone")
    assert not service.delete("gone")
    assert service.open("gone", durable=True).messages == ()
    temporary = service.open("t")
    assert service.delete("t")
    assert temporary.closed


def test_list_ids_lists_stored_then_open_temporary_ones(service: ConversationService) -> None:
    """list_ids names the stored conversations oldest first, then the open temporary ones."""
    service.close(service.open("d1", durable=True))
    service.open("t1")
    service.open("d2", durable=True)
    assert service.list_ids() == ["d1", "d2", "t1"]
    assert service.exists("d1")
    assert not service.exists("missing")


def test_the_default_path_comes_from_the_environment(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """NUCLEO_CONVERSATIONS names the file; else XDG_DATA_HOME or ~/.local/share holds it."""
    monkeypatch.setenv(CONVERSATIONS_ENVIRONMENT_VARIABLE, str(tmp_path / "env.sqlite3"))
    assert ConversationService().path == str(tmp_path / "env.sqlite3")
    monkeypatch.delenv(CONVERSATIONS_ENVIRONMENT_VARIABLE)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert default_store_path() == tmp_path / "data" / "nucleo" / "conversations.sqlite3"
    monkeypatch.delenv("XDG_DATA_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    expected = tmp_path / "home" / ".local" / "share" / "nucleo" / "conversations.sqlite3"
    assert default_store_path() == expected


def test_an_in_memory_store_keeps_durable_conversations_while_the_service_runs() -> None:
    """With ":memory:", durable conversations are kept until shutdown and no file is made."""
    with ConversationService(":memory:") as service:
        context = service.open("m", durable=True)
        context.append(Message.user("hi"))
        service.close(context)
        assert service.open("m", durable=True).messages == (Message.user("hi"),)
        service.shutdown()
        assert not service.exists("m")


def test_a_corrupt_message_row_is_reported_with_its_conversation(store_path: Path) -> None:
    """A damaged record fails the load with a ConversationStoreError naming where it is."""
    with ConversationService(store_path) as service:
        service.open("c", durable=True).extend([Message.user("a"), Message.user("b")])
    with sqlite3.connect(store_path) as connection:
        connection.execute("UPDATE messages SET record = '{\"v\": 1}' WHERE position = 1")
    connection.close()
    with (
        ConversationService(store_path) as service,
        pytest.raises(ConversationStoreError, match="conversation c, message 1"),
    ):
        service.open("c", durable=True)


def test_a_store_of_a_later_schema_is_refused(store_path: Path) -> None:
    """A file written by a later schema version is refused rather than misread."""
    with ConversationService(store_path) as service:
        service.open("c", durable=True)
    with sqlite3.connect(store_path) as connection:
        connection.execute("PRAGMA user_version = 99")
    connection.close()
    with (
        ConversationService(store_path) as service,
        pytest.raises(ConversationStoreError, match="schema version 99"),
    ):
        service.open("c", durable=True)


def test_metadata_must_be_json(service: ConversationService) -> None:
    """set_metadata refuses a value JSON cannot hold and keeps values as JSON reads them."""
    context = service.open()
    with pytest.raises(ConversationStoreError, match="JSON value"):
        context.set_metadata("bad", {1, 2})
    context.set_metadata("pair", (1, 2))
    assert context.metadata == {"pair": [1, 2]}
    assert json.dumps(dict(context.metadata))


def test_importing_nucleo_does_not_import_sqlite3() -> None:
    """Import nucleo_core and nucleo_core.conversations leave sqlite3 unimported."""
    code = (
        "import sys, nucleo_core, nucleo_core.conversations as c\n"
        "s = c.ConversationService('/nonexistent/never/created.sqlite3')\n"
        "s.close(s.open())\n"
        "assert 'sqlite3' not in sys.modules, 'sqlite3 imported'\n"
        "assert 'pydantic' not in sys.modules, 'pydantic imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


class _Forgetful(ToolProvider):
    """A provider that records being told the conversation ended, and may fail at it."""

    def __init__(self, name: str, told: list[str], *, fails: bool = False) -> None:
        self._name, self._told, self._fails = name, told, fails

    @property
    def name(self) -> str:
        return self._name

    @property
    def description(self) -> str:
        return "forgets"

    @property
    def input_schema(self) -> Mapping[str, Any]:
        return {"type": "object"}

    def parse_input(self, raw: RawInput) -> Any:
        return raw

    def create(self, parent: object | None = None) -> Tool[Any, Any]:
        raise NotImplementedError

    def forget_conversation_state(self, conversation_id: str | None = None) -> None:
        self._told.append(self._name)
        if self._fails:
            raise RuntimeError(f"{self._name} failed to forget")


def test_closing_with_a_registry_tells_every_tool(service: ConversationService) -> None:
    """close(context, registry=...) reaches every tool, even past one that fails, and closes."""
    told: list[str] = []
    registry = ToolRegistry(
        [_Forgetful("a", told), _Forgetful("b", told, fails=True), _Forgetful("c", told)]
    )
    context = service.open("c", durable=True)
    with pytest.raises(ExceptionGroup) as caught:
        service.close(context, registry=registry)
    assert told == ["a", "b", "c"]
    assert [str(e) for e in caught.value.exceptions] == ["b failed to forget"]
    assert context.closed
