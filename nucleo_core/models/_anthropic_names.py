"""The names the modules of the Anthropic adapter share."""

from __future__ import annotations

from typing import Final

__all__ = ["API_KEY_ENV", "PROVIDER"]

#: The environment variable the API key is read from when none is passed.
API_KEY_ENV: Final = "ANTHROPIC_API_KEY"

#: The provider name errors carry, and the provider of the blocks sent back verbatim.
PROVIDER: Final = "anthropic"
