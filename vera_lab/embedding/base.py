"""The embedder interface: ``name``, ``dim`` and ``embed(texts)`` returning L2-normalised float32 rows."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np


class EmbedderError(RuntimeError):
    """An embedder cannot work (server absent, model missing); the message says what to do."""


class Embedder(Protocol):
    """Anything that turns texts into unit vectors; ``name`` names model and dimension.

    ``fits_corpus`` is True for an embedder that learns from the texts it searches (tf-idf): it has a
    ``fit(texts)`` method, is fitted on each configuration's chunks, and its vectors are never cached.
    ``input_limit`` is (tokenizer name, tokens read including special ones) for a model that reads
    only the start of a long text (MiniLM: 256 word pieces), None when it reads everything or the
    limit is unknown.
    """

    name: str
    dim: int
    fits_corpus: bool
    input_limit: tuple[str, int] | None

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Float32 array of shape (len(texts), dim) with unit rows (all-zero for texts with no features)."""
        ...


def normalize(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to unit L2 norm, as float32; zero rows stay zero."""
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return np.divide(vectors, norms, out=np.zeros_like(vectors), where=norms > 0)


class Truncated:
    """Matryoshka truncation (seed ADR-0025): keep the first ``dims`` components and renormalise."""

    def __init__(self, inner: Embedder, dims: int) -> None:
        if not 0 < dims <= inner.dim:
            raise ValueError(f"dims={dims}: must be between 1 and {inner.name}'s dimension {inner.dim}")
        if inner.fits_corpus:
            raise ValueError(f"dims: Matryoshka truncation does not apply to {inner.name}")
        self.inner, self.dim = inner, dims
        self.name = f"{inner.name}@{dims}"
        self.fits_corpus = False
        self.input_limit = inner.input_limit

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return normalize(self.inner.embed(texts)[:, : self.dim])
