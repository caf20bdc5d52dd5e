"""`AuditEvent`: one thing the guard, the hub or the call door saw happen, before it is recorded.

An event says *what* happened and *who asked*; the `AuditLog` stamps it with the time, and its
store gives it a sequence number and its place in the hash chain, making it an `AuditRecord`.

The kinds, and what each one's ``decision`` and ``outcome`` may hold:

============================  ===================================  ==============================
kind                          decision                             outcome
============================  ===================================  ==============================
``grant``                     —                                    —
``refusal``                   —                                    —
``permission``                required: auto, notify, confirm, deny —
``approval_request``          —                                    —
``approval_decision``         —                                    required: approved, rejected,
                                                                   expired
``call_start``                optional (the decision it ran under) —
``call_finish``               optional                             required: ok, tool_error,
                                                                   timeout, cancelled, refused,
                                                                   internal_error
``notification``              optional                             optional: delivered, failed
``failure``                   —                                    —
``revocation``                —                                    —
============================  ===================================  ==============================

A ``grant`` or ``refusal`` names the ``tool`` or the ``skill`` asked for; a ``failure`` is a
plugin's hook or a guardrail that raised, hung or answered garbage, named in ``rule``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Literal, get_args

from nucleo_core.guard.audit.canonical import canonical_json
from nucleo_core.guard.audit.errors import AuditValueError

__all__ = [
    "AUDIT_KINDS",
    "CALL_OUTCOMES",
    "DECISIONS",
    "AuditEvent",
    "AuditKind",
    "CallOutcome",
    "Decision",
    "DeveloperDetails",
    "EventFields",
    "Requester",
]

AuditKind = Literal[
    "grant",
    "refusal",
    "permission",
    "approval_request",
    "approval_decision",
    "call_start",
    "call_finish",
    "notification",
    "failure",
    "revocation",
]
#: Every kind of record, in the order of a call's life.
AUDIT_KINDS: Final[tuple[AuditKind, ...]] = get_args(AuditKind)

Decision = Literal["auto", "notify", "confirm", "deny"]
#: The permission policy's answers, least restrictive first.
DECISIONS: Final[tuple[Decision, ...]] = get_args(Decision)

CallOutcome = Literal["ok", "tool_error", "timeout", "cancelled", "refused", "internal_error"]
#: How a call can end.
CALL_OUTCOMES: Final[tuple[CallOutcome, ...]] = get_args(CallOutcome)

_KINDS = frozenset(AUDIT_KINDS)
_DECISIONS = frozenset(DECISIONS)
# Per kind: the outcomes it may carry, and whether it must carry one.
_OUTCOMES: Mapping[str, tuple[frozenset[str], bool]] = {
    "approval_decision": (frozenset({"approved", "rejected", "expired"}), True),
    "call_finish": (frozenset(CALL_OUTCOMES), True),
    "notification": (frozenset({"delivered", "failed"}), False),
}
_NO_OUTCOME: tuple[frozenset[str], bool] = (frozenset(), False)
# The kinds that may carry a decision; ``permission`` must.
_DECIDED = frozenset({"permission", "call_start", "call_finish", "notification"})
# The kinds that may carry an admission's details.
_ADMISSIONS = frozenset({"grant", "refusal", "revocation"})


@dataclass(frozen=True, slots=True, kw_only=True)
class DeveloperDetails:
    """What failed, for the developer: **never shown to a model**.

    A tool's or a hook's exception can carry anything (a connection string, a token, the
    arguments themselves), so it is kept here, apart from the ``reason`` a model may be told,
    and only the log's readers (``nucleo audit``, `AuditLog.read`) see it.

    Attributes:
        exception_type: The exception's class, by qualified name (``module.Class``).
        message: ``str()`` of the exception.
        traceback: The formatted traceback, or ``""`` when there was none.
    """

    exception_type: str
    message: str
    traceback: str = ""

    @classmethod
    def from_exception(cls, exception: BaseException) -> DeveloperDetails:
        """The details of ``exception``: its class, message and traceback."""
        import traceback

        kind = type(exception)
        module = kind.__module__
        name = kind.__qualname__ if module == "builtins" else f"{module}.{kind.__qualname__}"
        trace = "".join(traceback.format_exception(exception))
        return cls(exception_type=name, message=str(exception), traceback=trace)


@dataclass(frozen=True, slots=True, kw_only=True)
class Requester:
    """Who asked: a thinker, the conversation it runs in, and the thinkers that launched it.

    Built once per thinker run and shared by all of its events: its canonical JSON is written
    once, here, not once per record.

    Attributes:
        thinker_class: The asking thinker's class, by qualified name (``module.Class``).
        thinker_id: The asking thinker instance's id.
        conversation_id: The conversation the thinker runs in.
        parents: The thinkers that launched this one (a sub-thinker's chain), root first, each
            as ``"module.Class#instance-id"``.
    """

    thinker_class: str
    thinker_id: str | None = None
    conversation_id: str | None = None
    parents: tuple[str, ...] = ()
    _json: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        for name in ("thinker_class", "thinker_id", "conversation_id"):
            value = getattr(self, name)
            if value is not None and type(value) is not str:
                raise AuditValueError(f"requester.{name}: a string")
        if type(self.parents) is not tuple or any(type(p) is not str for p in self.parents):
            raise AuditValueError("requester.parents: a tuple of strings, root first")
        object.__setattr__(self, "_json", canonical_json(self.to_json()))

    def to_json(self) -> dict[str, object]:
        """The requester as a JSON object, without its empty fields."""
        fields = {
            "thinker_class": self.thinker_class,
            "thinker_id": self.thinker_id,
            "conversation_id": self.conversation_id,
            "parents": list(self.parents) if self.parents else None,
        }
        return {name: value for name, value in fields.items() if value is not None}


@dataclass(frozen=True, slots=True, kw_only=True)
class EventFields:
    """What an event says and its record keeps: the fields `AuditEvent` and `AuditRecord` share.

    Every field but ``kind`` is optional, and an empty one is left out of the record (so a
    field added later never changes the digest of records written before it).

    Attributes:
        kind: What happened (see the module's table).
        requester: Who asked (``None`` for what no thinker asked: a plugin failing to load).
        tool: The tool's name, for a tool's grant, refusal, decision, approval or call.
        skill: The skill's name, for a skill's grant or refusal.
        source: The tool's source id (``native:<name>``, ``mcp:<server>:<tool>``).
        risk: The tool's declared risk (``low``, ``medium``, ``high``); ``None`` when it
            declared none (which counts as high).
        rule: What decided: the policy rule, the hook's plugin, the guardrail (for a
            ``failure``, the one that failed).
        decision: The permission policy's answer (see the module's table).
        outcome: How it ended (see the module's table).
        reason: The reason given (to the model, for a refusal), in words.
        call_id: The tool call's id (the model's ``tool_use`` id), tying a call's records.
        approval_id: The approval's id, tying a request to its decision and its call.
        duration: How long the call ran, in seconds (``call_finish``).
        arguments_digest: The digest of the call's arguments (`arguments_digest`).
        developer: What failed, for the developer only (never shown to a model).
        admission: For a ``grant``, ``refusal`` or ``revocation``: what the hub's admission
            record shows of it (the hub that decided, the thinker's ``repr`` and class, what
            each guardrail said), as a JSON object; `ToolHub.admission_record` is read back
            from it.
    """

    kind: AuditKind
    requester: Requester | None = None
    tool: str | None = None
    skill: str | None = None
    source: str | None = None
    risk: str | None = None
    rule: str | None = None
    decision: Decision | None = None
    outcome: str | None = None
    reason: str | None = None
    call_id: str | None = None
    approval_id: str | None = None
    duration: float | None = None
    arguments_digest: str | None = None
    developer: DeveloperDetails | None = None
    admission: Mapping[str, Any] | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class AuditEvent(EventFields):
    """One event for the audit record: what happened, to what, and who asked.

    Its fields are `EventFields`' (``kind``, ``requester``, ``tool``... ``admission``), and:

    Attributes:
        arguments: The call's arguments. Recorded as their digest; in full only when the log
            is configured with ``record_arguments=True`` (they may carry secrets). The caller
            passes ``arguments_digest`` when it has it already (an approval is bound to it);
            it is computed from ``arguments`` otherwise.
    """

    arguments: Mapping[str, object] | None = None

    def __post_init__(self) -> None:
        check_event_fields(self.kind, self.decision, self.outcome, self.duration)
        if self.admission is not None and (
            self.kind not in _ADMISSIONS or not isinstance(self.admission, Mapping)
        ):
            raise AuditValueError(
                "admission: a JSON object, on a grant, refusal or revocation record only"
            )


def check_event_fields(
    kind: str,
    decision: str | None,
    outcome: str | None,
    duration: float | None,
) -> None:
    """Raise `AuditValueError` unless the fields fit together (see the module's table)."""
    if kind not in _KINDS:
        raise AuditValueError(f"kind: not an audit kind; use one of {', '.join(AUDIT_KINDS)}")
    if decision is not None and (decision not in _DECISIONS or kind not in _DECIDED):
        if kind not in _DECIDED:
            raise AuditValueError(f"decision: a {kind} record carries no decision")
        raise AuditValueError(f"decision: use one of {', '.join(DECISIONS)}")
    if decision is None and kind == "permission":
        raise AuditValueError(f"decision: a permission record needs one of {', '.join(DECISIONS)}")
    allowed, required = _OUTCOMES.get(kind, _NO_OUTCOME)
    if outcome is None:
        if required:
            raise AuditValueError(
                f"outcome: a {kind} record needs one of {', '.join(sorted(allowed))}"
            )
    elif outcome not in allowed:
        if not allowed:
            raise AuditValueError(f"outcome: a {kind} record carries no outcome")
        raise AuditValueError(f"outcome: a {kind} record's is one of {', '.join(sorted(allowed))}")
    if duration is not None and not (
        type(duration) in (int, float) and math.isfinite(duration) and duration >= 0
    ):
        raise AuditValueError("duration: a finite number of seconds, zero or more")
