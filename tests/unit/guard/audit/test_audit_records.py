"""Audit events and records: canonical JSON, argument digests, contents and the chain."""

from __future__ import annotations

import dataclasses
import enum
import hashlib
import json
import time
import uuid
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import PurePosixPath
from typing import Any

import pytest
from _audit_strategies import arguments, events
from hypothesis import given

from nucleo_core.guard.audit import (
    GENESIS_DIGEST,
    AuditEvent,
    AuditValueError,
    DeveloperDetails,
    MemoryAuditStore,
    Requester,
    arguments_digest,
    canonical_json,
)
from nucleo_core.guard.audit.records import (
    chain_digest,
    content_object,
    make_content,
    record_from_row,
)


def test_canonical_json_sorts_keys_drops_whitespace_and_keeps_non_ascii() -> None:
    """Canonical JSON has sorted keys, no spaces, and non-ASCII characters as themselves."""
    assert canonical_json({"b": 1, "a": [1, 2], "é": "ü"}) == '{"a":[1,2],"b":1,"é":"ü"}'


@given(arguments)
def test_canonical_json_does_not_depend_on_key_order(value: dict[str, Any]) -> None:
    """The same arguments in any key order give the same text and digest."""
    reordered = dict(reversed(list(value.items())))
    assert canonical_json(reordered) == canonical_json(value)
    assert arguments_digest(reordered) == arguments_digest(value)
    assert json.loads(canonical_json(value)) == value


def test_the_arguments_digest_is_the_sha256_of_the_canonical_utf8_text() -> None:
    """arguments_digest is sha256 (lowercase hex) of the canonical JSON in UTF-8."""
    text = '{"city":"Zürich","days":3}'
    assert (
        arguments_digest({"days": 3, "city": "Zürich"}) == hashlib.sha256(text.encode()).hexdigest()
    )


class Colour(enum.Enum):
    RED = "red"


@dataclasses.dataclass
class Point:
    x: int
    y: int


def test_values_that_are_not_json_have_one_documented_form() -> None:
    """Each non-JSON value (tuple, set, bytes, time, enum, dataclass, NaN...) has one form."""
    value = {
        "tuple": (1, 2),
        "set": {"b", "a"},
        "bytes": b"\x00\xff",
        "when": datetime(2025, 1, 31, 9, 15, tzinfo=UTC),
        "price": Decimal("1.10"),
        "id": uuid.UUID(int=1),
        "path": PurePosixPath("/tmp/x"),
        "colour": Colour.RED,
        "point": Point(1, 2),
        "nan": float("nan"),
        "inf": float("-inf"),
        1: "one",
    }
    assert json.loads(canonical_json(value)) == {
        "tuple": [1, 2],
        "set": ["a", "b"],
        "bytes": {"$bytes": "AP8="},
        "when": "2025-01-31T09:15:00+00:00",
        "price": "1.10",
        "id": "00000000-0000-0000-0000-000000000001",
        "path": "/tmp/x",
        "colour": "red",
        "point": {"x": 1, "y": 2},
        "nan": "NaN",
        "inf": "-Infinity",
        "1": "one",
    }


def test_a_value_with_no_canonical_form_is_refused_by_type_never_by_value() -> None:
    """An object JSON cannot write is refused naming its type and path, not its contents."""

    class Secret:
        def __repr__(self) -> str:
            return "hunter2"

    with pytest.raises(AuditValueError) as caught:
        canonical_json({"token": Secret()})
    assert "Secret" in str(caught.value)
    assert "arguments.token" in str(caught.value)
    assert "hunter2" not in str(caught.value)


def test_keys_that_collide_once_written_as_strings_are_refused() -> None:
    """{1: ..., "1": ...} has no canonical form: two keys would become one."""
    with pytest.raises(AuditValueError, match="same JSON string"):
        canonical_json({1: "a", "1": "b"})


@pytest.mark.parametrize(
    ("fields", "problem"),
    [
        ({"kind": "granted"}, "kind"),
        ({"kind": "permission"}, "decision"),
        ({"kind": "permission", "decision": "maybe"}, "decision"),
        ({"kind": "grant", "decision": "auto"}, "decision"),
        ({"kind": "call_finish"}, "outcome"),
        ({"kind": "call_finish", "outcome": "fine"}, "outcome"),
        ({"kind": "grant", "outcome": "ok"}, "outcome"),
        ({"kind": "call_finish", "outcome": "ok", "duration": -1.0}, "duration"),
        ({"kind": "call_finish", "outcome": "ok", "duration": float("inf")}, "duration"),
    ],
)
def test_an_event_whose_fields_do_not_fit_its_kind_is_refused(
    fields: dict[str, Any], problem: str
) -> None:
    """Each kind takes only the decisions and outcomes of the module's table."""
    with pytest.raises(AuditValueError, match=f"^{problem}:"):
        AuditEvent(**fields)


def test_a_requester_must_be_strings_and_a_tuple_of_parents() -> None:
    """A requester's names are strings and its parent chain a tuple of strings."""
    with pytest.raises(AuditValueError, match="parents"):
        Requester(thinker_class="app.Planner", parents=["app.Root#1"])  # type: ignore[arg-type]
    with pytest.raises(AuditValueError, match="thinker_id"):
        Requester(thinker_class="app.Planner", thinker_id=7)  # type: ignore[arg-type]


def test_developer_details_keep_the_exception_class_message_and_traceback() -> None:
    """from_exception records the qualified class, the message and the formatted traceback."""
    try:
        raise ConnectionError("password=hunter2")
    except ConnectionError as exc:
        details = DeveloperDetails.from_exception(exc)
    assert details.exception_type == "ConnectionError"
    assert details.message == "password=hunter2"
    assert "Traceback (most recent call last)" in details.traceback
    assert "test_developer_details_keep" in details.traceback


@given(events())
def test_a_record_s_content_is_the_canonical_json_of_its_fields(event: AuditEvent) -> None:
    """The content written field by field is exactly canonical_json of the record's object."""
    digest = None if event.arguments is None else arguments_digest(event.arguments)
    kept = None if event.arguments is None else canonical_json(event.arguments)
    content = make_content(event, time.time_ns(), digest, kept)
    at = json.loads(content)["at"]
    assert content == canonical_json(content_object(event, at, digest, kept))


@given(events())
def test_a_record_read_back_holds_every_field_of_its_event(event: AuditEvent) -> None:
    """Content decoded into an AuditRecord gives back the event's fields."""
    content = make_content(event, time.time_ns(), None, None)
    record = record_from_row(1, content, GENESIS_DIGEST, chain_digest(1, GENESIS_DIGEST, content))
    for name in ("kind", "requester", "tool", "skill", "source", "risk", "rule", "decision"):
        assert getattr(record, name) == getattr(event, name)
    for name in ("outcome", "reason", "call_id", "approval_id", "duration", "developer"):
        assert getattr(record, name) == getattr(event, name)


def test_the_digest_chains_sequence_previous_digest_and_content() -> None:
    """A digest is sha256 of sequence, previous digest and content; the first follows zeros."""
    store = MemoryAuditStore()
    store.append(['{"at":"2025-01-31T09:15:02.000001Z","kind":"grant"}'] * 2)
    first, second = store.read()
    assert first.prev_digest == GENESIS_DIGEST == "0" * 64
    expected = hashlib.sha256(f"1\n{GENESIS_DIGEST}\n{first.content}".encode()).hexdigest()
    assert first.digest == expected
    assert second.prev_digest == first.digest
    assert second.digest == chain_digest(2, first.digest, second.content)


def test_a_record_s_json_has_every_field() -> None:
    """to_json names every field, empty ones as null, the requester's fields flattened."""
    store = MemoryAuditStore()
    who = Requester(thinker_class="app.Planner", thinker_id="p1", parents=("app.Root#r1",))
    event = AuditEvent(kind="call_finish", requester=who, tool="forecast", outcome="ok")
    store.append([make_content(event, time.time_ns(), None, None)])
    (record,) = store.read()
    printed = record.to_json()
    assert printed["thinker_class"] == "app.Planner"
    assert printed["parents"] == ["app.Root#r1"]
    assert printed["outcome"] == "ok"
    assert printed["conversation_id"] is None
    assert printed["digest"] == record.digest
