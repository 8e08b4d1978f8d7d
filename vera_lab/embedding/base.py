"""The embedder interface: ``name``, ``dim`` and ``embed(texts)`` returning L2-normalised float32 rows."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np
import scipy.sparse as sp


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


def check_vectors(vectors, n_texts: int, dim: int | None, name: str) -> np.ndarray:
    """An embedder's output as a float32 matrix, after checking it can be trusted.

    One row per text, every row of one length (``dim`` when known), every value finite. Anything else
    raises :class:`EmbedderError` naming the embedder: garbage never reaches the cache or a metric.
    """
    if sp.issparse(vectors):  # tf-idf: check the stored values, keep the matrix sparse
        if vectors.shape[0] != n_texts or not np.isfinite(vectors.data).all():
            raise EmbedderError(
                f"embedder {name} returned a sparse matrix of shape {vectors.shape} with non-finite values "
                f"or not one row per text ({n_texts}); nothing was used"
            )
        return vectors
    try:
        array = np.asarray(vectors, dtype=np.float32)
    except (ValueError, TypeError):
        lengths = sorted({len(v) for v in vectors}) if isinstance(vectors, list | tuple) else []
        shown = f" ({', '.join(map(str, lengths[:5]))} numbers)" if lengths else ""
        raise EmbedderError(
            f"embedder {name} returned vectors of different lengths{shown}: its model or server is "
            "broken; nothing was cached"
        ) from None
    if array.ndim != 2 or len(array) != n_texts:
        raise EmbedderError(
            f"embedder {name} returned an array of shape {array.shape} for {n_texts} texts (expected one "
            "vector per text); nothing was cached"
        )
    if dim is not None and n_texts and array.shape[1] != dim:
        raise EmbedderError(
            f"embedder {name} returned vectors of {array.shape[1]} numbers, not its {dim}; nothing was cached"
        )
    bad = ~np.isfinite(array).all(axis=1)
    if bad.any():
        raise EmbedderError(
            f"embedder {name} returned NaN or infinite values for {int(bad.sum())} of {n_texts} texts: its "
            "model or server is broken; nothing was cached and no metric was computed"
        )
    return array


class Checked:
    """Any embedder with its output checked (:func:`check_vectors`) before it is cached or used."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner

    def __getattr__(self, attribute: str):  # the model's own settings (device, variant) show through
        if attribute == "inner":
            raise AttributeError(attribute)
        return getattr(self.inner, attribute)

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def dim(self) -> int:
        return self.inner.dim

    @property
    def fits_corpus(self) -> bool:
        return self.inner.fits_corpus

    @property
    def input_limit(self) -> tuple[str, int] | None:
        return self.inner.input_limit

    def fit(self, texts: Sequence[str]) -> None:
        self.inner.fit(texts)  # type: ignore[attr-defined]

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        texts = list(texts)
        vectors = self.inner.embed(texts)
        return check_vectors(vectors, len(texts), self.inner.dim if texts else None, self.name)


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
