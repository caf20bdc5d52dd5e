"""The telemetry layer's error: tracing asked for without OpenTelemetry installed."""

from __future__ import annotations

from nucleo_core.errors import MisuseError

__all__ = ["TracingNotInstalled"]


class TracingNotInstalled(MisuseError, ImportError):
    """`instrument` was called, and the OpenTelemetry API (extra ``otel``) is not installed.

    Its message says what to install; nothing was changed on the hub.
    """
