"""The gateway's errors: each says what is wrong and how to fix it."""

from __future__ import annotations

from nucleo_core.errors import MisuseError

__all__ = ["GatewayConfigError", "GatewayError"]


class GatewayError(MisuseError):
    """The gateway cannot serve as asked (a bind refused, a token that cannot be kept)."""


class GatewayConfigError(GatewayError):
    """A gateway profile, or the options it is served with, are malformed."""
