"""Embedders behind one interface, the on-disk cache, and ``get_embedder`` by name."""

from __future__ import annotations

from pathlib import Path

from vera_lab.embedding.base import Checked, Embedder, EmbedderError, Truncated, normalize
from vera_lab.embedding.cache import DEFAULT_CACHE_DIR, CachedEmbedder, CacheStats, EmbeddingCache
from vera_lab.embedding.minilm import DEVICES, check_device, resolve_device

EMBEDDERS = ("minilm", "minilm-onnx", "minilm-int8", "tfidf", "hashing", "ollama:<model>", "st:<folder>",
             "openai:<model>@<base URL>")  # fmt: skip


def get_embedder(
    spec: str,
    dims: int | None = None,
    cache_dir: str | Path | None = None,
    device: str = "auto",
    store: str | None = None,
) -> Embedder:
    """Build an embedder from its name.

    Names: ``minilm`` (PyTorch), ``minilm-onnx`` and ``minilm-int8`` (ONNX Runtime), ``tfidf``,
    ``hashing[-DIM]``, ``ollama:MODEL``, ``st:FOLDER`` (a local sentence-transformers model) and
    ``openai:MODEL@BASE_URL`` (an OpenAI-compatible embeddings endpoint).
    ``dims`` applies Matryoshka truncation (keep the first ``dims`` components, renormalise).
    ``cache_dir`` puts the on-disk cache in front, except for embedders fitted on the searched texts;
    the ONNX backends keep their export there too. ``store`` (a folder or fsspec URL) puts a
    :class:`~vera_lab.embedding.shared_store.SharedStore` in front instead, for processes and machines
    that share vectors. ``device`` (auto, cpu, cuda) applies to ``minilm``; the ONNX backends run on the
    CPU and refuse ``cuda``.
    """
    if spec == "tfidf":
        from vera_lab.embedding.tfidf import TfidfEmbedder

        if dims:
            raise ValueError("dims: Matryoshka truncation does not apply to tfidf")
        return Checked(TfidfEmbedder())  # fitted per corpus: never cached
    embedder: Embedder = _model(spec, cache_dir, device)
    embedder = Checked(embedder)
    if dims is not None:
        embedder = Truncated(embedder, dims)
    if store is not None:
        from vera_lab.embedding.shared_store import SharedStore

        return CachedEmbedder(embedder, SharedStore(store))
    return CachedEmbedder(embedder, EmbeddingCache(cache_dir)) if cache_dir is not None else embedder


def _model(spec: str, cache_dir: str | Path | None, device: str) -> Embedder:
    """The model a name gives, before caching, checking and truncation wrap it."""
    if spec == "minilm":
        from vera_lab.embedding.minilm import MiniLMEmbedder

        return MiniLMEmbedder(device=device)
    if spec in ("minilm-onnx", "minilm-int8"):
        from vera_lab.embedding.minilm_onnx import MiniLMOnnxEmbedder

        if check_device(device) == "cuda":
            raise ValueError(f"device cuda: {spec} runs on the CPU; use minilm for the GPU")
        variant = "fp32" if spec == "minilm-onnx" else "int8"
        return MiniLMOnnxEmbedder(variant, DEFAULT_CACHE_DIR if cache_dir is None else cache_dir)
    if spec == "hashing" or spec.startswith("hashing-"):
        from vera_lab.embedding.hashing import HashingEmbedder

        size = spec.removeprefix("hashing").removeprefix("-") or "256"
        if not size.isdigit():
            raise ValueError(f"embedder {spec!r}: use hashing or hashing-<dim>")
        return HashingEmbedder(int(size))
    if spec.startswith("ollama:") and len(spec) > len("ollama:"):
        from vera_lab.embedding.ollama import OllamaEmbedder

        return OllamaEmbedder(spec.split(":", 1)[1])
    if spec.startswith("st:") and len(spec) > len("st:"):
        from vera_lab.embedding.local_st import LocalSentenceTransformer

        return LocalSentenceTransformer(spec.split(":", 1)[1], device=device)
    if spec.startswith("openai:"):
        from vera_lab.embedding.openai_compat import OpenAICompatibleEmbedder

        return OpenAICompatibleEmbedder(spec)
    raise ValueError(f"unknown embedder {spec!r}: choose one of {', '.join(EMBEDDERS)}")


def device_label(spec: str, device: str = "auto") -> str:
    """Where and in what precision ``spec`` embeds, as recorded in a sweep's manifest."""
    if spec == "minilm":
        return "cuda fp16" if resolve_device(device) == "cuda" else "cpu fp32"
    if spec in ("minilm-onnx", "minilm-int8"):
        return f"cpu onnxruntime {'fp32' if spec == 'minilm-onnx' else 'int8'}"
    if spec.startswith(("ollama:", "openai:")):
        return f"the {spec.split(':', 1)[0]} server"
    if spec.startswith("st:"):
        return "cuda" if resolve_device(device) == "cuda" else "cpu"
    return "cpu"


__all__ = [
    "DEFAULT_CACHE_DIR",
    "DEVICES",
    "EMBEDDERS",
    "CacheStats",
    "CachedEmbedder",
    "Embedder",
    "EmbedderError",
    "EmbeddingCache",
    "Truncated",
    "check_device",
    "device_label",
    "get_embedder",
    "normalize",
    "resolve_device",
]
