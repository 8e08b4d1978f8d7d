"""Embedders behind one interface, the on-disk cache, and ``get_embedder`` by name."""

from __future__ import annotations

from pathlib import Path

from vera_lab.embedding.base import Embedder, EmbedderError, Truncated, normalize
from vera_lab.embedding.cache import DEFAULT_CACHE_DIR, CachedEmbedder, CacheStats, EmbeddingCache

EMBEDDERS = ("minilm", "tfidf", "hashing", "ollama:<model>")


def get_embedder(spec: str, dims: int | None = None, cache_dir: str | Path | None = None) -> Embedder:
    """Build an embedder from its name: ``minilm``, ``tfidf``, ``hashing[-DIM]``, ``ollama:MODEL``.

    ``dims`` applies Matryoshka truncation (keep the first ``dims`` components, renormalise).
    ``cache_dir`` puts the on-disk cache in front, except for embedders fitted on the searched texts.
    """
    if spec == "minilm":
        from vera_lab.embedding.minilm import MiniLMEmbedder

        embedder: Embedder = MiniLMEmbedder()
    elif spec == "tfidf":
        from vera_lab.embedding.tfidf import TfidfEmbedder

        if dims:
            raise ValueError("dims: Matryoshka truncation does not apply to tfidf")
        return TfidfEmbedder()  # fitted per corpus: never cached
    elif spec == "hashing" or spec.startswith("hashing-"):
        from vera_lab.embedding.hashing import HashingEmbedder

        size = spec.removeprefix("hashing").removeprefix("-") or "256"
        if not size.isdigit():
            raise ValueError(f"embedder {spec!r}: use hashing or hashing-<dim>")
        embedder = HashingEmbedder(int(size))
    elif spec.startswith("ollama:") and len(spec) > len("ollama:"):
        from vera_lab.embedding.ollama import OllamaEmbedder

        embedder = OllamaEmbedder(spec.split(":", 1)[1])
    else:
        raise ValueError(f"unknown embedder {spec!r}: choose one of {', '.join(EMBEDDERS)}")
    if dims:
        embedder = Truncated(embedder, dims)
    return CachedEmbedder(embedder, EmbeddingCache(cache_dir)) if cache_dir is not None else embedder


__all__ = [
    "DEFAULT_CACHE_DIR",
    "EMBEDDERS",
    "CacheStats",
    "CachedEmbedder",
    "Embedder",
    "EmbedderError",
    "EmbeddingCache",
    "Truncated",
    "get_embedder",
    "normalize",
]
