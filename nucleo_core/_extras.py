"""The SDKs nucleo imports only when they are used, and the one message for a missing one.

Each is pinned by an extra of ``nucleo-core`` (``[project.optional-dependencies]`` of
pyproject.toml, which a test keeps in step with `EXTRAS`). nucleo is installed from a checkout
or a built wheel, not from a package index, so the fix a message gives is the SDK's own
requirement, which pip resolves from the index, or the extra from the checkout.

Nothing here imports an SDK: `sdk_installed` asks the import system whether it could.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass

__all__ = ["EXTRAS", "Extra", "missing_sdk", "sdk_installed"]


@dataclass(frozen=True, slots=True)
class Extra:
    """One optional SDK.

    Attributes:
        name: The ``nucleo-core`` extra that pins it.
        module: The module it is imported as.
        label: Its name in a sentence (``the Anthropic SDK``).
        requirement: The requirement the extra pins, for ``pip install``.
        needed_for: What cannot work without it.
    """

    name: str
    module: str
    label: str
    requirement: str
    needed_for: str


#: Every optional SDK, by extra.
EXTRAS: dict[str, Extra] = {
    extra.name: extra
    for extra in (
        Extra(
            name="anthropic",
            module="anthropic",
            label="the Anthropic SDK",
            requirement="anthropic>=2.10,<3",
            needed_for="anthropic: models cannot be used",
        ),
        Extra(
            name="openai",
            module="openai",
            label="the OpenAI SDK",
            requirement="openai>=3.51,<4",
            needed_for="openai: and openai-compatible: models cannot be used",
        ),
        Extra(
            name="mcp",
            module="mcp",
            label="the MCP SDK",
            requirement="mcp>=2.3,<3",
            needed_for="no MCP server can be started",
        ),
        Extra(
            name="otel",
            module="opentelemetry.trace",
            label="the OpenTelemetry API",
            requirement="opentelemetry-api>=1.27,<2",
            needed_for="runs cannot be traced (nucleo_core.telemetry.instrument)",
        ),
    )
}


def sdk_installed(extra: str) -> bool:
    """Whether the SDK of ``extra`` can be imported, without importing it."""
    try:
        return importlib.util.find_spec(EXTRAS[extra].module) is not None
    except (ImportError, ValueError):  # a module set to None in sys.modules, or no __spec__
        return False


def missing_sdk(extra: str) -> str:
    """What is missing and how to install it, in one line: the same for every SDK.

    Args:
        extra: ``anthropic``, ``openai``, ``mcp`` or ``otel``.
    """
    sdk = EXTRAS[extra]
    return (
        f"{sdk.label} is not installed, so {sdk.needed_for}; install it with: "
        f"python3 -m pip install '{sdk.requirement}' (or, in a checkout of nucleo: "
        f"python3 -m pip install '.[{sdk.name}]')"
    )
