"""``openai:<model>@<base URL>``: any OpenAI-compatible embeddings endpoint (vLLM, LM Studio, llama.cpp).

``POST <base URL>/embeddings`` with ``{"model", "input"}``; the reply's ``data[i].embedding`` in
``index`` order. ``OPENAI_API_KEY`` is sent when set. Vectors are checked and normalised like every
embedder's; the name carries the model, the server and the dimension the server answers with.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from urllib.parse import urlparse

import numpy as np

from vera_lab.embedding.base import EmbedderError, check_vectors, normalize

TIMEOUT = 120.0


def parse_spec(spec: str) -> tuple[str, str]:
    """``openai:<model>@<base URL>`` as (model, base URL), checked."""
    body = spec.removeprefix("openai:")
    at = max(body.find("@http://"), body.find("@https://"))  # the URL may hold an "@" of its own
    model, base = (body[:at], body[at + 1 :]) if at > 0 else body.rpartition("@")[::2]
    parsed = urlparse(base)
    if not model or parsed.scheme not in ("http", "https") or not parsed.hostname:
        raise EmbedderError(
            f"embedder {spec!r}: write openai:<model>@<base URL>, e.g. openai:nomic-embed-text@http://127.0.0.1:8000/v1"
        )
    if parsed.username or parsed.password:  # the spec is written to manifest.json, results and MLflow
        shown = spec.replace(parsed.netloc, parsed.netloc.rpartition("@")[2])
        raise EmbedderError(
            f"{shown}: the base URL carries credentials (user:...@), which would be stored with every result "
            "(manifest.json, results.csv, MLflow): remove them and put the key in OPENAI_API_KEY"
        )
    return model, base.rstrip("/")


class OpenAICompatibleEmbedder:
    """Embeddings from an OpenAI-compatible server, in batches."""

    fits_corpus = False
    input_limit = None  # the server truncates to its model's context, which the API does not report

    def __init__(self, spec: str, batch_size: int = 64) -> None:
        self.model, self.base = parse_spec(spec)
        self.batch_size = batch_size
        self._dim: int | None = None

    @property
    def dim(self) -> int:
        if self._dim is None:
            self._dim = self._batch(["dimension probe"]).shape[1]
        return self._dim

    @property
    def name(self) -> str:
        host = urlparse(self.base).netloc
        return f"openai-{self.model}@{host}-{self.dim}"

    def _batch(self, texts: list[str]) -> np.ndarray:
        try:
            import httpx
        except ImportError as exc:
            raise EmbedderError("openai: embedders need httpx: pip install httpx") from exc
        key = os.environ.get("OPENAI_API_KEY")
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        url = f"{self.base}/embeddings"
        try:
            reply = httpx.post(
                url, json={"model": self.model, "input": texts}, headers=headers, timeout=TIMEOUT
            )
        except httpx.HTTPError as exc:
            raise EmbedderError(
                f"no OpenAI-compatible server answered at {url} ({type(exc).__name__})"
            ) from None
        if reply.status_code != 200:
            raise EmbedderError(f"{url} answered HTTP {reply.status_code}: {reply.text[:200]}")
        try:
            data = sorted(reply.json()["data"], key=lambda item: item["index"])
            rows = [item["embedding"] for item in data]
        except (ValueError, KeyError, TypeError):
            raise EmbedderError(
                f"{url} did not answer like an OpenAI embeddings endpoint (no data[].embedding)"
            ) from None
        vectors = check_vectors(rows, len(texts), self._dim, f"openai:{self.model}@{self.base}")
        self._dim = self._dim or vectors.shape[1]
        return vectors

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        texts = list(texts)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        batches = [self._batch(texts[i : i + self.batch_size]) for i in range(0, len(texts), self.batch_size)]
        return normalize(np.concatenate(batches))
