"""Artifact custody: large outputs kept aside with a preview; references convey them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nucleo_core.conversations import (
    ArtifactNotFound,
    ArtifactRef,
    ArtifactStore,
    ConversationService,
    ConversationStoreError,
)
from nucleo_core.errors import CorrectableError
from nucleo_core.models.messages import Message, ToolResultBlock


def test_text_up_to_the_threshold_goes_into_the_conversation_as_it_is() -> None:
    """An output of exactly threshold_chars is returned unchanged and nothing is kept."""
    store = ArtifactStore()
    text = "x" * 4000
    assert store.custody(text) == text
    assert store.custody("short", threshold_chars=5) == "short"
    assert len(store) == 0


def test_a_longer_text_becomes_an_artifact_and_a_preview() -> None:
    """Past the threshold the text is kept, and the preview names id, size and the two tools."""
    store = ArtifactStore()
    text = "line\n" * 1000
    preview = store.custody(text, threshold_chars=4000, preview_chars=100)
    (artifact,) = store
    assert artifact.content == text
    assert artifact.media_type == "text/plain"
    first = preview.splitlines()[0]
    assert artifact.id in first
    assert "5000 chars" in first
    assert "get_artifact_field" in first
    assert "search_artifact_content" in first
    assert f'artifact_id="{artifact.id}"' in first
    assert text[:100] in preview
    assert "4900 more chars" in preview
    assert len(preview) < 400


def test_custody_sniffs_json_and_honours_a_declared_media_type() -> None:
    """JSON text is kept as application/json; a declared media type wins over the sniff."""
    store = ArtifactStore()
    store.custody(json.dumps({"rows": list(range(2000))}))
    store.custody("[not json" + "x" * 5000)
    store.custody("a,b\n" * 2000, media_type="text/csv")
    assert [artifact.media_type for artifact in store] == [
        "application/json",
        "text/plain",
        "text/csv",
    ]


def test_keep_get_and_refs() -> None:
    """Keep returns a reference with id, size and media type; get and find read it back."""
    store = ArtifactStore()
    ref = store.keep("hello", "text/markdown")
    assert ref == ArtifactRef(id=ref.id, size=5, media_type="text/markdown")
    assert ref.id.startswith("art_")
    assert store.get(ref.id).content == "hello"
    assert store.find("art_missing") is None
    assert ref.id in store
    assert store.ids() == [ref.id]
    assert store.refs() == [ref]
    assert store.get(ref.id).ref == ref


def test_an_unknown_id_lists_the_known_ones_without_repeating_the_request() -> None:
    """ArtifactNotFound is correctable, lists known ids, and never echoes the asked id."""
    store = ArtifactStore()
    ref = store.keep("x")
    with pytest.raises(ArtifactNotFound) as caught:
        store.get("ZZ-REQUESTED-ZZ")
    assert isinstance(caught.value, CorrectableError)
    assert ref.id in str(caught.value)
    assert "ZZ-REQUESTED-ZZ" not in str(caught.value)
    with pytest.raises(ArtifactNotFound, match="keeps no artifact"):
        ArtifactStore().get("a")


def test_the_list_of_known_ids_is_bounded() -> None:
    """With many artifacts, the error lists the 20 most recent and says how many there are."""
    store = ArtifactStore()
    refs = [store.keep(str(i)) for i in range(25)]
    message = str(ArtifactNotFound(store.ids()))
    assert refs[0].id not in message
    assert refs[-1].id in message
    assert "20 most recent of 25" in message


def test_preview_shows_the_start_and_says_how_to_read_on() -> None:
    """preview(ref, limit) shows at most limit chars and no tail note when all of it is shown."""
    store = ArtifactStore()
    ref = store.keep("abcdef")
    assert store.preview(ref, 3).splitlines()[1] == "abc"
    assert "3 more chars" in store.preview(ref, 3)
    assert "more chars" not in store.preview(ref.id, 10)


def test_a_reference_conveys_an_artifact_to_another_store() -> None:
    """Link makes a parent's artifact readable in a sub-thinker's store under the same id."""
    parent, child = ArtifactStore(), ArtifactStore()
    ref = parent.keep("big output")
    child.link([ref], parent)
    assert child.get(ref.id) is parent.get(ref.id)
    child.link([ref.id], parent)  # linking again is harmless
    assert len(child) == 1
    with pytest.raises(ArtifactNotFound):
        child.link(["art_none"], parent)


def test_durable_artifacts_survive_a_restart(tmp_path: Path) -> None:
    """A durable conversation's artifacts, linked ones included, load again after a restart."""
    path = tmp_path / "c.sqlite3"
    source = ArtifactStore()
    linked = source.keep("from the parent")
    with ConversationService(path) as service:
        context = service.open("c", durable=True)
        preview = context.artifacts.custody("y" * 5000)
        context.artifacts.link([linked], source)
        kept = list(context.artifacts)
    with ConversationService(path) as service:
        context = service.open("c", durable=True)
        assert list(context.artifacts) == kept
        assert kept[0].id in preview
        assert context.artifacts.get(linked.id).content == "from the parent"


def test_text_that_cannot_be_stored_is_refused_clearly(tmp_path: Path) -> None:
    """A lone surrogate in a durable artifact is a ConversationStoreError, and nothing is kept."""
    with ConversationService(tmp_path / "c.sqlite3") as service:
        context = service.open("c", durable=True)
        with pytest.raises(ConversationStoreError, match="not valid Unicode"):
            context.artifacts.keep("bad \ud800")
        assert len(context.artifacts) == 0


def test_only_text_can_be_kept() -> None:
    """An artifact's content is text: bytes are refused with a TypeError."""
    with pytest.raises(TypeError, match="text"):
        ArtifactStore().keep(b"raw")  # type: ignore[arg-type]


def test_a_results_turn_keeps_long_results_as_artifacts() -> None:
    """custody_results previews each long tool result, keeping ids, order and error flags."""
    store = ArtifactStore()
    short = ToolResultBlock(tool_use_id="a", content="ok")
    long = ToolResultBlock(tool_use_id="b", content="z" * 5000, is_error=True)
    message = Message(role="user", content=(short, long))
    kept = store.custody_results(message)
    assert kept.content[0] is short
    (artifact,) = store
    assert kept.content[1] == ToolResultBlock(
        tool_use_id="b", content=store.preview(artifact.ref), is_error=True
    )
    untouched = Message(role="user", content=(short,))
    assert store.custody_results(untouched) is untouched
