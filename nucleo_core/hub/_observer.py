"""What the hub reports its admissions to: the narrow side of a run's observer.

The hub calls its ``observer`` at one point only, each admission it decides; an observer of
whole runs (`nucleo_core.telemetry.RunObserver`, a layer above) is one of these too.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, Protocol

if TYPE_CHECKING:
    from nucleo_core.hub.admission import AdmissionEvent

__all__ = ["AdmissionKind", "AdmissionObserver"]

#: What an admission decided: a grant, a refusal, or the revocation of an earlier grant.
AdmissionKind = Literal["grant", "refusal", "revocation"]


class AdmissionObserver(Protocol):
    """What observes a hub's admissions (``hub.observer``)."""

    def admission(self, thinker: Any, event: AdmissionEvent, kind: AdmissionKind) -> None:
        """The hub decided an admission for ``thinker`` (``event`` is its record)."""
