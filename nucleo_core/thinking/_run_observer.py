"""The observer of a hub's runs, as the thinkers, the HTTP API and the gateway read it.

The hub knows its observer (``ToolHub.observer``) only as far as it calls it itself, an
`AdmissionObserver`; what is set there is a whole `RunObserver` (`nucleo_core.telemetry`
sets one). Read through this, the tracing package is imported only by who turns tracing on.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, cast

if TYPE_CHECKING:
    from nucleo_core.hub._observer import AdmissionObserver
    from nucleo_core.telemetry.observer import RunObserver

__all__ = ["run_observer"]


class _Observed(Protocol):
    @property
    def observer(self) -> AdmissionObserver | None:
        """What observes the hub (``ToolHub.observer``)."""


def run_observer(hub: _Observed) -> RunObserver | None:
    """The observer of ``hub``'s runs (``hub.observer``), as the thinkers and executions call it."""
    return cast("RunObserver | None", hub.observer)
