"""Tracing nucleo's runs with OpenTelemetry (extra ``otel``), at no cost until it is asked for.

Turn it on for a hub (its thinkers and their sub-thinkers)::

    from nucleo_core.telemetry import instrument

    instrument(hub)  # spans go to OpenTelemetry's global tracer provider

Each run is one trace following the OpenTelemetry GenAI semantic conventions: an
``invoke_agent`` span per run, a ``chat`` span per request to the model and an
``execute_tool`` span per tool call (a sub-thinker's run inside its ``sub_thinker`` call),
with grants, refusals and approvals as span events. Prompts, arguments and results are left
out unless ``record_content=True``. See docs/tracing.md.

The core reports to a `RunObserver` set on the hub (``hub.observer``) and never imports
OpenTelemetry; importing this package does not either: only `instrument` does. The
``nucleo`` commands trace when ``$NUCLEO_TRACE`` asks (`instrument_from_environment`).
"""

from __future__ import annotations

from nucleo_core.telemetry.environment import (
    TRACE_ENVIRONMENT_VARIABLE,
    instrument_from_environment,
)
from nucleo_core.telemetry.errors import TracingNotInstalled
from nucleo_core.telemetry.instrument import instrument, uninstrument
from nucleo_core.telemetry.observer import CallTrace, ChatTrace, RunObserver, RunTrace

__all__ = [
    "TRACE_ENVIRONMENT_VARIABLE",
    "CallTrace",
    "ChatTrace",
    "RunObserver",
    "RunTrace",
    "TracingNotInstalled",
    "instrument",
    "instrument_from_environment",
    "uninstrument",
]
