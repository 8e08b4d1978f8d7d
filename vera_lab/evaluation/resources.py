"""Where models come from (:class:`Resources`), and binding them to chunkers and embedders.

Embedders come through the on-disk cache; the tiered chunker's LLM quality judge from an Ollama host.

Chunkers hold parameters; models and clients are resources passed in from above, so the chunking layer
never builds an Ollama client and a sweep's cache directory reaches the semantic and tiered chunkers.
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vera_lab.chunking import Chunker
from vera_lab.embedding import DEFAULT_CACHE_DIR, Embedder, get_embedder


@dataclass(frozen=True)
class Resources:
    """What a configuration is built with: the model cache, the device, a shared vector store, an LLM host.

    ``cache_dir`` holds embeddings and built models (None: nothing cached); ``device`` is where MiniLM
    runs (auto, cpu, cuda); ``store`` a shared embedding store (a folder or fsspec URL) that workers
    read; ``llm_host`` the Ollama server of an LLM quality judge (None: ``OLLAMA_HOST`` or localhost).
    """

    cache_dir: str | Path | None = DEFAULT_CACHE_DIR
    device: str = "auto"
    store: str | None = None
    llm_host: str | None = None


@functools.lru_cache(maxsize=8)
def cached_embedder(
    spec: str, cache_dir: str | None = str(DEFAULT_CACHE_DIR), device: str = "auto", store: str | None = None
) -> Embedder:
    """One embedder per (name, cache directory, device, vector store) and process: models load once."""
    return get_embedder(spec, cache_dir=cache_dir, device=device, store=store)


def with_resources(
    chunker: Chunker,
    cache_dir: str | Path | None = DEFAULT_CACHE_DIR,
    llm_host: str | None = None,
    device: str = "auto",
) -> Chunker:
    """``chunker`` with its unbound resources filled.

    ``embed`` comes from its ``embedder`` (cached in ``cache_dir``, on ``device``), ``judge`` from its
    ``llm_model`` (Ollama at ``llm_host``).
    """
    names = {f.name for f in dataclasses.fields(chunker)}
    updates: dict[str, Any] = {}
    if "embed" in names and chunker.embed is None:
        cache = None if cache_dir is None else str(cache_dir)
        embedder = cached_embedder(chunker.embedder, cache, device)  # type: ignore[attr-defined]
        updates["embed"] = embedder.embed
    if "judge" in names and chunker.judge is None and getattr(chunker, "llm_model", None):
        from vera_lab.evaluation.quality_judge import OllamaQualityJudge

        updates["judge"] = OllamaQualityJudge(chunker.llm_model, llm_host)  # type: ignore[attr-defined]
    return dataclasses.replace(chunker, **updates) if updates else chunker
