"""`instrument`: turn OpenTelemetry tracing on for a hub's thinkers; `uninstrument`: off."""

from __future__ import annotations

from typing import TYPE_CHECKING

from nucleo_core._extras import missing_sdk, sdk_installed

if TYPE_CHECKING:
    from opentelemetry.trace import TracerProvider

    from nucleo_core.hub.hub import ToolHub
    from nucleo_core.telemetry._otel import OpenTelemetryObserver

__all__ = ["instrument", "uninstrument"]

#: The instrumentation scope the spans are reported under.
SCOPE = "nucleo_core"


def instrument(
    hub: ToolHub | None = None,
    *,
    tracer_provider: TracerProvider | None = None,
    record_content: bool = False,
) -> OpenTelemetryObserver:
    """Trace every run of ``hub``'s thinkers with OpenTelemetry; call it before they run.

    Sets ``hub.observer`` to an `OpenTelemetryObserver`: each run becomes one trace of
    ``invoke_agent``, ``chat`` and ``execute_tool`` spans (a sub-thinker's run inside its
    ``sub_thinker`` call), with grants, refusals and approvals as span events. Until this is
    called nothing imports OpenTelemetry and each observed point costs one ``None`` check.
    Each step reads ``hub.observer`` as it starts, so call it when the process starts: a run
    already going when it is called has only its later model requests and tool calls traced.

    Args:
        hub: The hub whose thinkers are traced; `ToolHub.default` when ``None``. A
            sub-thinker shares its parent's hub, so it is traced too.
        tracer_provider: Where spans go; OpenTelemetry's global provider when ``None``
            (``opentelemetry.trace.set_tracer_provider``).
        record_content: Also record prompts, answers, tool arguments and tool results on the
            spans. Off by default: they may hold personal data or secrets.

    Returns:
        The observer now set on the hub.

    Raises:
        TracingNotInstalled: The OpenTelemetry API is not installed (the ``otel`` extra).
        TypeError: ``record_content`` is not a bool, ``tracer_provider`` has no
            ``get_tracer``, or ``hub`` is not a `ToolHub`.
    """
    from nucleo_core.hub.hub import ToolHub

    if not isinstance(record_content, bool):
        raise TypeError(f"record_content must be True or False, not {record_content!r}")
    if hub is not None and not isinstance(hub, ToolHub):
        raise TypeError(f"hub must be a ToolHub, not {type(hub).__name__}")
    if tracer_provider is not None and not callable(getattr(tracer_provider, "get_tracer", None)):
        raise TypeError(
            "tracer_provider must be an OpenTelemetry TracerProvider (it has get_tracer), "
            f"not {type(tracer_provider).__name__}"
        )
    if not sdk_installed("otel"):
        from nucleo_core.telemetry.errors import TracingNotInstalled

        raise TracingNotInstalled(missing_sdk("otel"))
    from opentelemetry import trace

    from nucleo_core._version import __version__
    from nucleo_core.telemetry._otel import OpenTelemetryObserver

    tracer = trace.get_tracer(SCOPE, __version__, tracer_provider=tracer_provider)
    observer = OpenTelemetryObserver(tracer, record_content=record_content)
    (hub if hub is not None else ToolHub.default()).observer = observer
    return observer


def uninstrument(hub: ToolHub | None = None) -> None:
    """Stop observing ``hub``'s thinkers (`ToolHub.default` when ``None``).

    From the next model request or tool call on; a run span already started still ends.
    """
    from nucleo_core.hub.hub import ToolHub

    (hub if hub is not None else ToolHub.default()).observer = None
