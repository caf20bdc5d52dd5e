"""`instrument_from_environment`: the `nucleo` commands trace when ``$NUCLEO_TRACE`` asks.

A process that is not your own code (``nucleo run``, ``nucleo chat``, ``nucleo serve``,
``nucleo mcp serve``) cannot call `instrument` itself. Set ``NUCLEO_TRACE=1`` (or ``content``,
to record prompts, arguments and results too) and start the command under OpenTelemetry's
zero-code launcher, which sets the global tracer provider from the standard ``OTEL_*``
variables::

    NUCLEO_TRACE=1 OTEL_SERVICE_NAME=desk opentelemetry-instrument nucleo serve

Unset, empty or ``0``: nothing is traced and OpenTelemetry is not imported.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from nucleo_core.hub.hub import ToolHub
    from nucleo_core.telemetry._otel import OpenTelemetryObserver

__all__ = ["TRACE_ENVIRONMENT_VARIABLE", "instrument_from_environment", "tracer_provider_is_set"]

#: The variable that turns tracing on for a hub the ``nucleo`` commands make.
TRACE_ENVIRONMENT_VARIABLE: Final = "NUCLEO_TRACE"

_OFF: Final = frozenset({"", "0"})
_ON: Final = frozenset({"1"})
_CONTENT: Final = frozenset({"content"})


def instrument_from_environment(
    hub: ToolHub, environ: Mapping[str, str] | None = None
) -> OpenTelemetryObserver | None:
    """Trace ``hub``'s runs if ``$NUCLEO_TRACE`` asks; the observer set, or ``None``.

    Args:
        hub: The hub to trace (`instrument`'s).
        environ: Where the variable is read (`os.environ` when ``None``).

    Raises:
        ValueError: The variable holds something else than ``0``, ``1`` or ``content``.
        TracingNotInstalled: Tracing is asked for and the ``otel`` extra is not installed.
    """
    value = (environ if environ is not None else os.environ).get(TRACE_ENVIRONMENT_VARIABLE, "")
    wanted = value.strip().lower()
    if wanted in _OFF:
        return None
    if wanted not in _ON | _CONTENT:
        raise ValueError(
            f"${TRACE_ENVIRONMENT_VARIABLE} must be 1 (trace), content (trace with prompts, "
            "arguments and results) or 0 (off)"
        )
    from nucleo_core.telemetry.instrument import instrument

    return instrument(hub, record_content=wanted in _CONTENT)


def tracer_provider_is_set() -> bool:
    """Whether OpenTelemetry's global tracer provider was set (else spans go nowhere)."""
    from opentelemetry import trace

    return not isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider)
