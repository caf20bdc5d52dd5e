"""The admission record: each grant, refusal and revocation a hub decides, on its audit log.

Written as the audit log's ``grant``, ``refusal`` and ``revocation`` records (a crashed
guardrail as a ``failure`` besides), and read back from them as `AdmissionEvent` values
(`ToolHub.admission_record`).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal

from nucleo_core.hub._guardrail_asking import INTERNAL_ERROR
from nucleo_core.hub.admission import AdmissionEvent, GuardrailOutcome
from nucleo_core.plugins.verdict import Verdict

if TYPE_CHECKING:
    from nucleo_core.guard.audit.log import AuditLog
    from nucleo_core.guard.audit.records import AuditRecord

__all__ = ["ADMISSION_KINDS", "admissions_on_record", "record_admission"]

logger = logging.getLogger("nucleo.hub")

ADMISSION_KINDS = frozenset({"grant", "refusal", "revocation"})


def record_admission(
    log: AuditLog,
    hub: str,
    thinker: Any,
    event: AdmissionEvent,
    kind: Literal["grant", "refusal", "revocation"],
) -> None:
    """Put an admission of the hub ``hub`` on ``log``, whence `admissions_on_record` reads it.

    A guardrail that crashed is recorded as a ``failure`` as well, with what it raised
    (for the developer only). A log that cannot take the record is reported, never raised.
    """
    from nucleo_core.guard.audit.events import AuditEvent, DeveloperDetails
    from nucleo_core.hub._audit import requester_of

    requester = requester_of(thinker)
    tool = event.name if event.kind == "tool" else None
    skill = event.name if event.kind == "skill" else None
    try:
        for outcome in event.outcomes:
            if outcome.error is not None:
                log.record(
                    AuditEvent(
                        kind="failure",
                        requester=requester,
                        rule=outcome.guardrail,
                        reason=INTERNAL_ERROR,
                        developer=DeveloperDetails(
                            exception_type=outcome.error.partition(":")[0],
                            message=outcome.error,
                        ),
                        tool=tool,
                        skill=skill,
                    )
                )
        decided_by = [o.guardrail for o in event.outcomes if o.refuses]
        log.record(
            AuditEvent(
                kind=kind,
                requester=requester,
                rule=", ".join(decided_by) or None,
                reason=event.reason or None,
                tool=tool,
                skill=skill,
                admission=_admission_details(hub, event),
            )
        )
    except Exception:
        logger.exception("the audit log could not take the %s of %r", kind, event.name)


def admissions_on_record(log: AuditLog, hub: str) -> tuple[AdmissionEvent, ...]:
    """Every admission of the hub ``hub`` on ``log``, oldest first (the queued ones stored first).

    Raises:
        AuditStoreError: The log cannot be read.
    """
    from nucleo_core.guard.audit.store import AuditQuery

    query = AuditQuery(kinds=ADMISSION_KINDS)
    found: list[AdmissionEvent] = []
    for record in log.read(query):
        details = record.admission
        if details is not None and details.get("hub") == hub:
            found.append(_admission_event(record, details))
    return tuple(found)


def _admission_details(hub: str, event: AdmissionEvent) -> dict[str, object]:
    """What an admission's audit record keeps for `ToolHub.admission_record` to read back."""
    outcomes: list[dict[str, object]] = []
    for outcome in event.outcomes:
        said: dict[str, object] = {"guardrail": outcome.guardrail}
        if outcome.verdict is not None:
            said["granted"] = outcome.verdict.granted
            said["reason"] = outcome.verdict.reason
        if outcome.error is not None:
            said["error"] = outcome.error
        outcomes.append(said)
    return {
        "hub": hub,
        "thinker": event.thinker,
        "thinker_qualname": event.thinker_class,
        "outcomes": outcomes,
    }


def _admission_event(record: AuditRecord, details: Mapping[str, Any]) -> AdmissionEvent:
    """The `AdmissionEvent` an admission's audit record was written from."""
    outcomes = []
    for said in details.get("outcomes", ()):
        granted = said.get("granted")
        verdict = (
            None if granted is None else Verdict(granted=granted, reason=said.get("reason", ""))
        )
        outcomes.append(
            GuardrailOutcome(guardrail=said["guardrail"], verdict=verdict, error=said.get("error"))
        )
    return AdmissionEvent(
        thinker_class=details.get("thinker_qualname", ""),
        thinker=details.get("thinker", ""),
        kind="tool" if record.skill is None else "skill",
        name=record.tool if record.tool is not None else (record.skill or ""),
        granted=record.kind == "grant",
        reason=record.reason or "",
        outcomes=tuple(outcomes),
        at=record.at,
    )
