"""Embeddings from the user's Ollama server (``/api/embed``) through the ``ollama`` client."""

from __future__ import annotations

import os
from collections.abc import Sequence

import numpy as np

from vera_lab.embedding.base import EmbedderError, normalize

DEFAULT_HOST = "http://127.0.0.1:11434"


def ollama_host(host: str | None = None) -> str:
    """The server address: the argument, else OLLAMA_HOST, else the local default."""
    host = host or os.environ.get("OLLAMA_HOST") or DEFAULT_HOST
    return host if "://" in host else f"http://{host}"


def ollama_call(host: str, model: str, call):
    """Run ``call(client)`` and turn every failure into an :class:`EmbedderError` saying what to do."""
    try:
        import httpx
        import ollama
    except ImportError as exc:
        raise EmbedderError("the Ollama client is missing: pip install 'vera-lab[ollama]'") from exc
    try:
        return call(ollama.Client(host=host, timeout=120))
    except ollama.ResponseError as exc:
        if exc.status_code == 404:
            raise EmbedderError(
                f"Ollama at {host} has no model {model!r}: "
                f"run `ollama pull {model}` (or choose --embedder minilm)"
            ) from None
        raise EmbedderError(f"Ollama at {host} answered {exc.status_code}: {exc.error}") from None
    except (ConnectionError, httpx.HTTPError) as exc:
        raise EmbedderError(
            f"no Ollama server at {host} ({type(exc).__name__}): start it with `ollama serve`, "
            "set OLLAMA_HOST, or use the offline default --embedder minilm"
        ) from None


class OllamaEmbedder:
    """``ollama:<model>`` (seed default ``nomic-embed-text``, 768 dims); the server tells the dimension."""

    def __init__(
        self, model: str = "nomic-embed-text", host: str | None = None, batch_size: int = 64
    ) -> None:
        self.model, self.host, self.batch_size = model, ollama_host(host), batch_size
        self._dim: int | None = None

    @property
    def dim(self) -> int:
        if self._dim is None:
            self._dim = self._embed_batch(["dimension probe"]).shape[1]
        return self._dim

    @property
    def name(self) -> str:
        return f"ollama-{self.model}-{self.dim}"

    def _embed_batch(self, texts: list[str]) -> np.ndarray:
        response = ollama_call(self.host, self.model, lambda c: c.embed(model=self.model, input=texts))
        vectors = np.asarray(response.embeddings, dtype=np.float32)
        if vectors.ndim != 2 or len(vectors) != len(texts):
            raise EmbedderError(
                f"Ollama at {self.host} returned {vectors.shape} vectors for {len(texts)} texts"
            )
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
