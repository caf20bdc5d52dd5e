"""A conversation keeps each attached skill's record: durably, across restarts and migration.

Schema version 3 stores an attached skill's fields beside its name, so a thinker resuming the
conversation rebuilds the same instructions and ``allowed-tools``; a file of version 2, whose
skills were names only, is migrated with its names kept and no record invented.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from types import MappingProxyType

import pytest

from nucleo_core import Skill
from nucleo_core.conversations import (
    ConversationContext,
    ConversationService,
    ConversationStoreError,
)
from nucleo_core.conversations.sqlite_store import SCHEMA_VERSION

FULL = Skill(
    name="bookkeeping",
    description="Keep the books.",
    instructions="Write every record twice.\n\n- then check",
    bundle="acme.skills",
    allowed_tools=("write_record", "native:summarize"),
    license="MIT",
    compatibility="python>=3.12",
    metadata=MappingProxyType({"owner": "finance"}),
    location="/skills/bookkeeping/SKILL.md",
)
BARE = Skill(name="style", description="Write plainly.", instructions="Be brief.")


@pytest.fixture
def store_path(tmp_path: Path) -> Path:
    return tmp_path / "conversations.sqlite3"


def test_an_attached_skill_s_record_survives_a_restart(store_path: Path) -> None:
    """Every field of a skill attached to a durable conversation is loaded back equal."""
    with ConversationService(store_path) as service:
        context = service.open("c", durable=True)
        assert context.attach_skill(FULL)
        assert context.attach_skill(BARE)
        assert context.attach_skill("by-name")
    with ConversationService(store_path) as service:
        context = service.open("c", durable=True)
        assert context.skills == ("bookkeeping", "style", "by-name")
        assert context.skill_record("bookkeeping") == FULL
        assert context.skill_record("style") == BARE
        assert context.skill_record("style").allowed_tools is None  # type: ignore[union-attr]
        assert context.skill_record("by-name") is None


def test_a_skill_of_an_attached_name_is_not_attached_again() -> None:
    """Attaching a name twice, as a record or a name, keeps the first attachment only."""
    context = ConversationContext()
    assert context.attach_skill("style")
    assert not context.attach_skill(BARE)
    assert context.skills == ("style",)
    assert context.skill_record("style") is None


def test_a_temporary_conversation_made_durable_keeps_its_skill_records(store_path: Path) -> None:
    """make_durable stores the records a temporary conversation held."""
    with ConversationService(store_path) as service:
        context = service.open("t")
        context.attach_skill(FULL)
        service.make_durable(context)
    with ConversationService(store_path) as service:
        assert service.open("t", durable=True).skill_record("bookkeeping") == FULL


def test_attach_skill_refuses_what_is_neither_a_skill_nor_a_name() -> None:
    """A wrong type is a TypeError naming the type, not a corrupt record."""
    with pytest.raises(TypeError, match="Skill or a name, not int"):
        ConversationContext().attach_skill(7)  # type: ignore[arg-type]


def test_a_store_of_schema_version_2_is_migrated_with_its_skill_names(store_path: Path) -> None:
    """A version 2 file keeps its skills' names (by name only) and takes records afterwards."""
    with ConversationService(store_path) as service:
        service.open("c", durable=True).attach_skill("reports")
    connection = sqlite3.connect(store_path)
    connection.execute("ALTER TABLE skills DROP COLUMN record")
    connection.execute("PRAGMA user_version = 2")
    connection.commit()
    connection.close()

    with ConversationService(store_path) as service:
        context = service.open("c", durable=True)
        assert context.skills == ("reports",)
        assert context.skill_record("reports") is None
        context.attach_skill(FULL)
    with ConversationService(store_path) as service:
        assert service.open("c", durable=True).skill_record("bookkeeping") == FULL
    connection = sqlite3.connect(store_path)
    (version,) = connection.execute("PRAGMA user_version").fetchone()
    columns = [row[1] for row in connection.execute("PRAGMA table_info(skills)")]
    connection.close()
    assert version == SCHEMA_VERSION == 3
    assert "record" in columns


@pytest.mark.parametrize(
    ("record", "problem"),
    [
        ("not json", "not JSON"),
        ("[1]", "not a JSON object"),
        ('{"name": "bookkeeping"}', "field 'description' is not text"),
        (None, None),  # by name only: not corrupt
    ],
)
def test_a_corrupt_skill_record_is_refused_naming_the_skill(
    store_path: Path, record: str | None, problem: str | None
) -> None:
    """A record that does not decode to a skill is a store error naming conversation and skill."""
    with ConversationService(store_path) as service:
        service.open("c", durable=True).attach_skill(FULL)
    connection = sqlite3.connect(store_path)
    connection.execute("UPDATE skills SET record = ?", (record,))
    connection.commit()
    connection.close()

    with ConversationService(store_path) as service:
        if problem is None:
            assert service.open("c", durable=True).skill_record("bookkeeping") is None
            return
        with pytest.raises(ConversationStoreError, match=f"conversation c, skill 0: .*{problem}"):
            service.open("c", durable=True)


def test_a_record_of_another_skill_is_refused(store_path: Path) -> None:
    """A record whose name is not the row's is corrupt, not silently another skill."""
    with ConversationService(store_path) as service:
        service.open("c", durable=True).attach_skill(FULL)
    connection = sqlite3.connect(store_path)
    connection.execute("UPDATE skills SET name = 'other'")
    connection.commit()
    connection.close()

    with (
        ConversationService(store_path) as service,
        pytest.raises(ConversationStoreError, match="record is of another skill"),
    ):
        service.open("c", durable=True)
