"""Embeddings from the user's Ollama server (``/api/embed``) through the ``ollama`` client."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from vera_lab.embedding.base import EmbedderError, check_vectors, normalize
from vera_lab.llm.ollama import OllamaError, ollama_call, ollama_host


class OllamaEmbedder:
    """``ollama:<model>`` (seed default ``nomic-embed-text``, 768 dims); the server tells the dimension."""

    def __init__(
        self, model: str = "nomic-embed-text", host: str | None = None, batch_size: int = 64
    ) -> None:
        try:
            self.host = ollama_host(host)
        except OllamaError as exc:
            raise EmbedderError(str(exc)) from None
        self.model, self.batch_size = model, batch_size
        self._dim: int | None = None
        self.fits_corpus = False
        self.input_limit = None  # the server truncates to the model's context, which it does not report here

    @property
    def dim(self) -> int:
        if self._dim is None:
            self._dim = self._embed_batch(["dimension probe"]).shape[1]
        return self._dim

    @property
    def name(self) -> str:
        return f"ollama-{self.model}-{self.dim}"

    def _embed_batch(self, texts: list[str]) -> np.ndarray:
        try:
            response = ollama_call(self.host, self.model, lambda c: c.embed(model=self.model, input=texts))
        except OllamaError as exc:
            raise EmbedderError(str(exc)) from None
        # one length per batch and across batches (the first reply fixes the dimension)
        where = f"ollama:{self.model} at {self.host}"
        vectors = check_vectors(list(response.embeddings), len(texts), self._dim, where)
        self._dim = self._dim or vectors.shape[1]
        return vectors

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        texts = list(texts)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        from tqdm.auto import tqdm

        starts = range(0, len(texts), self.batch_size)
        batches = [
            self._embed_batch(texts[i : i + self.batch_size])
            for i in tqdm(starts, desc=f"ollama {self.model}", disable=len(texts) <= 2000, leave=False)
        ]
        vectors = np.concatenate(batches)
        self._dim = vectors.shape[1]
        return normalize(vectors)
