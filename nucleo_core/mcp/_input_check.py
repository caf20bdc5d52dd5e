"""The quick check of an MCP tool's input: moved to the tools layer (`nucleo_core.tools`).

Kept so that the MCP provider and its tests read as before; `SchemaInput` is the public way
to check a call's input against a published schema.
"""

from __future__ import annotations

from nucleo_core.tools._quick_check import Check, quick_check

__all__ = ["Check", "quick_check"]
