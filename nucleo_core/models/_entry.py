"""`ModelEntry`: one model a catalog can seat a thinker on, named by its id, with its limits."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any
from urllib.parse import urlsplit

from nucleo_core.errors import ModelNotConfigured

__all__ = ["PROVIDERS", "ModelEntry"]

#: The providers an entry id may name.
PROVIDERS = ("anthropic", "openai", "openai-compatible")


@dataclass(frozen=True, slots=True, kw_only=True)
class ModelEntry:
    """One model a catalog can seat a thinker on.

    Attributes:
        id: ``anthropic:<model>``, ``openai:<model>`` or
            ``openai-compatible:<base_url>#<model>``.
        provider: The part of the id before the first ``:``.
        model: The provider's model id.
        base_url: The endpoint, for ``openai-compatible`` entries (and optional overrides).
        context_window: Tokens the model reads at most. Set it to the server's window (a local
            server's is often 4,096 or 8,192): the conversation is compacted before it passes
            three quarters of it. Left unset on an ``openai-compatible`` entry, it is read
            from the server where the server says it (`ModelCatalog.learn_context_window`).
        max_output_tokens: The ceiling the answer budget may be escalated to when an answer is
            cut off (the budget doubles up to it); the first budget is capped by it too.
        native_tools: Whether the model calls tools natively; if not, tools are described and
            called through a JSON envelope in the text.
        timeout: Seconds one request attempt may take before it counts as timed out; ``None``
            for the SDK's default (600 s).
        retries: How often a request that failed transiently (connection, timeout, 408, 409,
            429, a 5xx that names no cause) is sent again; each retry is logged on
            ``nucleo.models.<provider>``.
        deadline: Seconds one exchange (`LLMCall`: every attempt, correction and escalation
            of one turn) may take in all; ``None`` for no deadline.
        context_window_source: Where ``context_window`` comes from: ``"default"``,
            ``"configured"`` (a setting) or ``"server"`` (what the server said).
    """

    id: str
    provider: str
    model: str
    base_url: str | None = None
    context_window: int = 128_000
    max_output_tokens: int = 8_192
    native_tools: bool = True
    timeout: float | None = None
    retries: int = 2
    deadline: float | None = None
    context_window_source: str = field(default="default", compare=False)

    @classmethod
    def parse(cls, entry_id: str, **limits: Any) -> ModelEntry:
        """Build an entry from its id, with optional limits.

        Raises:
            ModelNotConfigured: The id names no known provider or lacks a model.
        """
        provider, separator, rest = entry_id.partition(":")
        if not separator or provider not in PROVIDERS:
            raise ModelNotConfigured(
                f"Model id {entry_id!r} names no known provider. Use anthropic:<model>, "
                "openai:<model> or "
                "openai-compatible:<base_url>#<model> (e.g. "
                "openai-compatible:http://127.0.0.1:11434/v1#llama3.2)."
            )
        base_url = limits.pop("base_url", None)
        if provider == "openai-compatible":
            if base_url is not None:
                raise ModelNotConfigured(
                    f"Model entry {entry_id!r}: an openai-compatible entry takes its base URL "
                    "from its id; remove the base_url setting"
                )
            base_url, hash_sign, model = rest.rpartition("#")
            if not hash_sign or not base_url or not model:
                raise ModelNotConfigured(
                    f"Model id {entry_id!r} needs the form openai-compatible:<base_url>#<model>, "
                    "e.g. openai-compatible:http://127.0.0.1:11434/v1#llama3.2"
                )
        else:
            model = rest
        if base_url is not None:
            _check_base_url(entry_id, base_url)
        if not model:
            raise ModelNotConfigured(f"Model id {entry_id!r} names no model after '{provider}:'.")
        entry = cls(id=entry_id, provider=provider, model=model, base_url=base_url)
        return entry.with_limits(**limits) if limits else entry

    def with_limits(self, **limits: Any) -> ModelEntry:
        """A copy with the given limits changed.

        Raises:
            ModelNotConfigured: A limit is unknown or has the wrong type.
        """
        for key, value in limits.items():
            check = _SETTINGS.get(key)
            if check is None:
                raise ModelNotConfigured(
                    f"Model entry {self.id!r}: unknown setting {key!r}; allowed: "
                    + ", ".join(_SETTINGS)
                    + " (and base_url, for anthropic: and openai: entries)"
                )
            fits, wanted = check
            if not fits(value):
                raise ModelNotConfigured(f"Model entry {self.id!r}: {key} must be {wanted}")
        changed: dict[str, Any] = dict(limits)
        for key in ("timeout", "deadline"):
            if key in changed:
                changed[key] = float(changed[key])  # 30 in TOML is seconds as much as 30.0
        if "context_window" in changed:
            changed["context_window_source"] = "configured"  # never overridden by the server's
        return replace(self, **changed)


def _positive_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def _count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _seconds(value: object) -> bool:
    return (
        isinstance(value, int | float)
        and not isinstance(value, bool)
        and math.isfinite(value)
        and value > 0
    )


#: Each setting an entry takes: whether a value fits, and what it must be (for the error).
_SETTINGS: Mapping[str, tuple[Callable[[object], bool], str]] = {
    "context_window": (_positive_int, "a positive integer"),
    "max_output_tokens": (_positive_int, "a positive integer"),
    "native_tools": (lambda value: isinstance(value, bool), "a boolean"),
    "timeout": (_seconds, "a positive number of seconds"),
    "retries": (_count, "a non-negative integer"),
    "deadline": (_seconds, "a positive number of seconds"),
}


def _check_base_url(entry_id: str, base_url: object) -> None:
    parts = urlsplit(base_url) if isinstance(base_url, str) else None
    if parts is None or parts.scheme not in ("http", "https") or not parts.hostname:
        raise ModelNotConfigured(
            f"Model entry {entry_id!r}: the base URL must be a string starting with http:// or "
            "https:// and naming a host, e.g. http://127.0.0.1:11434/v1"
        )
