"""Hypothesis strategies for audit events, shared by the audit tests."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from nucleo_core.guard.audit import (
    CALL_OUTCOMES,
    DECISIONS,
    AuditEvent,
    DeveloperDetails,
    Requester,
)

names = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=12)
maybe_names = st.none() | names
json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | names,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(names, inner, max_size=3),
    max_leaves=8,
)
arguments = st.dictionaries(names, json_values, max_size=4)
requesters = st.builds(
    Requester,
    thinker_class=names,
    thinker_id=maybe_names,
    conversation_id=maybe_names,
    parents=st.lists(names, max_size=2).map(tuple),
)
developers = st.none() | st.builds(
    DeveloperDetails, exception_type=names, message=names, traceback=st.text(max_size=30)
)


@st.composite
def events(draw: st.DrawFn) -> AuditEvent:
    """Any valid event: a kind with a decision and an outcome that fit it."""
    kind = draw(
        st.sampled_from(
            [
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
        )
    )
    fields: dict[str, Any] = {}
    if kind == "permission":
        fields["decision"] = draw(st.sampled_from(DECISIONS))
    elif kind in ("call_start", "call_finish", "notification"):
        fields["decision"] = draw(st.none() | st.sampled_from(DECISIONS))
    if kind == "call_finish":
        fields["outcome"] = draw(st.sampled_from(CALL_OUTCOMES))
        fields["duration"] = draw(st.none() | st.floats(min_value=0, max_value=1e6))
    elif kind == "approval_decision":
        fields["outcome"] = draw(st.sampled_from(["approved", "rejected", "expired"]))
    elif kind == "notification":
        fields["outcome"] = draw(st.none() | st.sampled_from(["delivered", "failed"]))
    if kind in ("grant", "refusal", "revocation"):
        fields["admission"] = draw(st.none() | st.dictionaries(names, json_values, max_size=3))
    return AuditEvent(
        kind=kind,  # type: ignore[arg-type]  # drawn from the kinds above
        requester=draw(st.none() | requesters),
        tool=draw(maybe_names),
        skill=draw(maybe_names),
        source=draw(maybe_names),
        risk=draw(st.none() | st.sampled_from(["low", "medium", "high"])),
        rule=draw(maybe_names),
        reason=draw(maybe_names),
        call_id=draw(maybe_names),
        approval_id=draw(maybe_names),
        arguments=draw(st.none() | arguments),
        developer=draw(developers),
        **fields,
    )


def event_fields(event: AuditEvent) -> dict[str, Any]:
    """What a record must keep of ``event`` (its arguments aside), to compare with a record."""
    return {
        "kind": event.kind,
        "requester": event.requester,
        "tool": event.tool,
        "skill": event.skill,
        "source": event.source,
        "risk": event.risk,
        "rule": event.rule,
        "decision": event.decision,
        "outcome": event.outcome,
        "reason": event.reason,
        "call_id": event.call_id,
        "approval_id": event.approval_id,
        "duration": event.duration,
        "developer": event.developer,
        "admission": event.admission,
    }
