"""What a local server's listings say about a model's context window.

An OpenAI-compatible server does not say its window in a chat completion, and a small local
server's (often 4,096 or 8,192 tokens) is far below the 128,000 a model entry assumes. Several
servers say it elsewhere; each reader here takes one listing's decoded JSON body and returns the
window, or ``None`` when that body does not say it:

- ``GET /v1/models`` (`from_models`): vLLM's ``max_model_len``; LM Studio's and OpenRouter's
  ``max_context_length`` / ``context_length``; llama.cpp's ``meta.n_ctx_train`` — the window the
  model was *trained* with, larger than the one the server runs with, so `from_models` says
  whether the server's ``/props`` should be asked first.
- ``GET /props`` (`from_props`, llama.cpp's ``llama-server``): ``default_generation_settings.n_ctx``
  (the window of one slot), else ``n_ctx``.
- ``POST /api/show`` (`from_ollama_show`, Ollama): ``num_ctx`` of the model's parameters, else
  Ollama's default window (`OLLAMA_DEFAULT_NUM_CTX`), at most the model's own
  ``<architecture>.context_length``.

A listing that says something unreadable says nothing: every reader is total.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

__all__ = ["OLLAMA_DEFAULT_NUM_CTX", "from_models", "from_ollama_show", "from_props"]

#: The window Ollama runs a model with when neither the model nor the request sets ``num_ctx``.
OLLAMA_DEFAULT_NUM_CTX = 4096

#: Fields of a ``/v1/models`` entry that hold the window the server serves the model with.
_SERVED_WINDOW_FIELDS = ("max_model_len", "max_context_length", "context_length")

_NUM_CTX = re.compile(r"^\s*num_ctx\s+(\d+)\s*$", re.MULTILINE)


def _tokens(value: object) -> int | None:
    """``value`` when it is a plausible window (a positive integer), else ``None``."""
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return value
    return None


def _model_entry(body: object, model: str) -> Mapping[str, object] | None:
    """The entry of ``model`` in a ``/v1/models`` body; the only one when the ids differ."""
    data = body.get("data") if isinstance(body, Mapping) else None
    if not isinstance(data, list):
        return None
    entries = [entry for entry in data if isinstance(entry, Mapping)]
    for entry in entries:
        if entry.get("id") == model:
            return entry
    # A server serving one model often lists it under its file name, whatever it is asked as.
    return entries[0] if len(entries) == 1 else None


def from_models(body: object, model: str) -> tuple[int | None, bool]:
    """The window a ``/v1/models`` body says for ``model``, and whether it is llama.cpp's.

    Returns:
        The window the server serves the model with (``None`` when not said), and whether the
        body is llama.cpp's, whose ``/props`` says the window it runs with (the window given
        then is the one it was trained with, a fallback).
    """
    entry = _model_entry(body, model)
    if entry is None:
        return None, False
    for name in _SERVED_WINDOW_FIELDS:
        window = _tokens(entry.get(name))
        if window is not None:
            return window, False
    meta = entry.get("meta")
    if isinstance(meta, Mapping) and "n_ctx_train" in meta:
        return _tokens(meta.get("n_ctx_train")), True
    return None, False


def from_props(body: object) -> int | None:
    """The window llama.cpp's ``/props`` says its slots run with."""
    if not isinstance(body, Mapping):
        return None
    settings = body.get("default_generation_settings")
    if isinstance(settings, Mapping):
        window = _tokens(settings.get("n_ctx"))
        if window is not None:
            return window
    return _tokens(body.get("n_ctx"))


def from_ollama_show(body: object) -> int | None:
    """The window Ollama's ``/api/show`` says the model runs with."""
    if not isinstance(body, Mapping):
        return None
    parameters = body.get("parameters")
    if isinstance(parameters, str):
        found = _NUM_CTX.search(parameters)
        if found:
            return _tokens(int(found.group(1)))
    info = body.get("model_info")
    if not isinstance(info, Mapping):
        return None
    trained = [
        window
        for key, value in info.items()
        if isinstance(key, str)
        and key.endswith(".context_length")
        and (window := _tokens(value)) is not None
    ]
    if not trained:
        return None
    return min(min(trained), OLLAMA_DEFAULT_NUM_CTX)
