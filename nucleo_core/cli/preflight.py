"""What a model needs before anything heavy is imported: its SDK, its key.

A provider's SDK takes a second or two to import; a command that would only fail on a key
that is not set, or an SDK that is not installed, says so at once instead, in the words of a
command-line user: which environment variable to set, which flag or configuration key picks
another model. Nothing here imports an SDK.
"""

from __future__ import annotations

import os
from urllib.parse import urlsplit

from nucleo_core._extras import missing_sdk, sdk_installed
from nucleo_core.cli.command_error import CommandError
from nucleo_core.models.catalog import ModelEntry

__all__ = ["check_seat", "key_variable", "missing_key"]

# The variables the adapters read a key from (anthropic.API_KEY_ENV and the OpenAI adapter's),
# named here so that the adapters' modules, and their SDKs, need not be imported to check.
_ANTHROPIC_KEY = "ANTHROPIC_API_KEY"
_OPENAI_KEY = "OPENAI_API_KEY"
_OPENAI_HOST = "api.openai.com"


def key_variable(seat: ModelEntry) -> str | None:
    """The environment variable the seat's key is read from; ``None`` if it needs none.

    An ``openai-compatible`` server (Ollama, vLLM...) needs no key; neither does an
    ``openai:`` entry whose base URL is another server's.
    """
    if seat.provider == "anthropic":
        return _ANTHROPIC_KEY
    if seat.provider == "openai":
        official = seat.base_url is None or (
            (urlsplit(seat.base_url).hostname or "").lower() == _OPENAI_HOST
        )
        return _OPENAI_KEY if official else None
    return None


def missing_key(seat: ModelEntry, variable: str) -> str:
    """What a command-line user does about a key that is not set."""
    return (
        f"no API key for {seat.id}: set the {variable} environment variable "
        f"(export {variable}=...), or choose another model with --model ENTRY or under "
        "[tool.nucleo.models.grades] in pyproject.toml (a local openai-compatible server "
        "needs no key)"
    )


def check_seat(seat: ModelEntry) -> None:
    """Fail at once if the seat's SDK is not installed or its key is not set.

    Nothing is checked while a test seam supplies the client (``override_client``): no SDK
    nor key is used then.

    Raises:
        CommandError: The SDK is missing, or the key is.
    """
    from nucleo_core.models.seam import current_override

    if current_override() is not None:
        return
    extra = "anthropic" if seat.provider == "anthropic" else "openai"
    if not sdk_installed(extra):
        raise CommandError(missing_sdk(extra))
    variable = key_variable(seat)
    if variable is not None and not os.environ.get(variable):
        raise CommandError(missing_key(seat, variable))
