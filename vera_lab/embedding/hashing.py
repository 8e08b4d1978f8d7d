"""A deterministic bag-of-words hashing embedder: no model, no fitting; for tests and smoke runs."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from vera_lab.embedding.base import normalize


class HashingEmbedder:
    """Word unigrams and bigrams hashed into ``dim`` signed buckets (scikit-learn's HashingVectorizer)."""

    def __init__(self, dim: int = 256) -> None:
        from sklearn.feature_extraction.text import HashingVectorizer

        self.dim = dim
        self.fits_corpus = False
        self.input_limit = None
        self.name = f"hashing-{dim}"
        self._vectorizer = HashingVectorizer(
            n_features=dim, ngram_range=(1, 2), norm=None, alternate_sign=True
        )

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return normalize(self._vectorizer.transform(list(texts)).toarray())
