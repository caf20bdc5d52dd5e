"""What a server's listings say about a model's context window (`nucleo_core.models._window`)."""

from __future__ import annotations

from typing import Any

import pytest

from nucleo_core.models import _window


def listing(*entries: dict[str, Any]) -> dict[str, Any]:
    return {"object": "list", "data": list(entries)}


def test_vllm_lists_the_window_it_serves() -> None:
    """The ``max_model_len`` vLLM lists is the window it serves (no /props to ask)."""
    body = listing({"id": "qwen", "max_model_len": 32768}, {"id": "other", "max_model_len": 9})
    assert _window.from_models(body, "qwen") == (32768, False)


def test_lm_studio_and_openrouter_fields_are_read() -> None:
    """``max_context_length`` and ``context_length`` name the window too."""
    assert _window.from_models(listing({"id": "m", "max_context_length": 4096}), "m") == (
        4096,
        False,
    )
    assert _window.from_models(listing({"id": "m", "context_length": 8192}), "m") == (8192, False)


def test_llama_cpp_s_trained_window_is_a_fallback_that_asks_for_props() -> None:
    """``meta.n_ctx_train`` is returned, flagged so that ``/props`` is asked first."""
    body = listing({"id": "model.gguf", "meta": {"n_ctx_train": 8192}})
    assert _window.from_models(body, "smollm2") == (8192, True)


def test_a_listing_of_many_models_none_asked_says_nothing() -> None:
    """With several entries and none of the model's id, no entry is guessed."""
    body = listing({"id": "a", "max_model_len": 1}, {"id": "b", "max_model_len": 2})
    assert _window.from_models(body, "c") == (None, False)


@pytest.mark.parametrize(
    "body",
    [None, [], {"data": "x"}, listing({"id": "m", "max_model_len": "4096"}), listing({"id": "m"})],
)
def test_an_unreadable_listing_says_nothing(body: object) -> None:
    """Anything not shaped as a listing with an integer window reads as no window."""
    assert _window.from_models(body, "m") == (None, False)


def test_props_reads_the_slot_window_then_the_server_s() -> None:
    """``default_generation_settings.n_ctx`` wins over a top-level ``n_ctx``."""
    assert (
        _window.from_props({"default_generation_settings": {"n_ctx": 2048}, "n_ctx": 8192}) == 2048
    )
    assert _window.from_props({"n_ctx": 4096}) == 4096
    assert _window.from_props({"n_ctx": True}) is None
    assert _window.from_props("props") is None


def test_ollama_s_num_ctx_parameter_is_the_window() -> None:
    """A model's ``num_ctx`` parameter is what Ollama runs it with."""
    body = {"parameters": "temperature 0.2\nnum_ctx 16384\n", "model_info": {"x.context_length": 4}}
    assert _window.from_ollama_show(body) == 16384


def test_without_num_ctx_ollama_runs_its_default_at_most_the_model_s() -> None:
    """No ``num_ctx``: Ollama's default window, unless the model's own is smaller."""
    big = {"model_info": {"llama.context_length": 131072}}
    small = {"model_info": {"gpt2.context_length": 1024}}
    assert _window.from_ollama_show(big) == _window.OLLAMA_DEFAULT_NUM_CTX
    assert _window.from_ollama_show(small) == 1024
    assert _window.from_ollama_show({"model_info": {}}) is None
