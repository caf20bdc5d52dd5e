"""Where an OpenAI client points: OpenAI itself, or another server, named without credentials."""

from __future__ import annotations

from urllib.parse import urlsplit

__all__ = ["OPENAI_BASE_URL", "is_openai_endpoint", "printable_url"]

#: OpenAI's own API, the endpoint when no ``base_url`` is given.
OPENAI_BASE_URL = "https://api.openai.com/v1"
_OPENAI_HOST = "api.openai.com"


def is_openai_endpoint(base_url: str) -> bool:
    """Whether ``base_url`` is OpenAI's own API."""
    return (urlsplit(base_url).hostname or "").lower() == _OPENAI_HOST


def printable_url(url: str) -> str:
    """``url`` without user info or query, which could hold credentials."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port is not None:
        host = f"{host}:{parts.port}"
    if not parts.scheme:
        return "(a base_url without a scheme)"
    return f"{parts.scheme}://{host}{parts.path}"
