"""The awareness markers, where the thinking layer has always imported them from.

They live in `nucleo_core.tools.awareness` (the tools layer), so the hub's deferred tool can
mix them in without importing from the thinking layer above it; this module re-exports them.
"""

from __future__ import annotations

from nucleo_core.tools.awareness import ConversationAware, RegistryAware, runs_alone

__all__ = ["ConversationAware", "RegistryAware", "runs_alone"]
