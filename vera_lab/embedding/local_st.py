"""``st:<folder>``: a sentence-transformers model the user has on disk, loaded offline.

The model is the one the user's pipeline embeds with, so a sweep can compare chunkings for it. Its
vectors are cached under a name that carries a digest of the model's files: other weights in the
same folder are another model. Its input limit (``max_seq_length``, special tokens included) and its
own ``tokenizer.json`` drive the truncation audit and the forward-token cost.
"""

from __future__ import annotations

import functools
import hashlib
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from vera_lab.embedding.base import EmbedderError, normalize
from vera_lab.embedding.minilm import check_device, resolve_device


@functools.lru_cache(maxsize=8)
def model_digest(folder: str) -> str:
    """sha256 of every file of a model folder (names and bytes), in path order; 12 hex digits."""
    digest = hashlib.sha256()
    for path in sorted(p for p in Path(folder).rglob("*") if p.is_file()):
        digest.update(str(path.relative_to(folder)).encode())
        with path.open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()[:12]


class LocalSentenceTransformer:
    """A sentence-transformers model from a local folder; unit vectors; never reaches the hub."""

    fits_corpus = False

    def __init__(self, folder: str | Path, batch_size: int = 32, device: str = "auto") -> None:
        self.folder = Path(folder).expanduser()
        if not (self.folder / "modules.json").is_file() and not (self.folder / "config.json").is_file():
            raise EmbedderError(
                f"st:{folder}: not a sentence-transformers model folder (no modules.json or config.json); "
                "save one with SentenceTransformer(...).save(FOLDER)"
            )
        self.batch_size, self.requested_device = batch_size, check_device(device)
        self._model = None

    def _load(self):
        if self._model is None:
            os.environ["HF_HUB_OFFLINE"] = "1"  # the user's folder only: nothing is downloaded
            os.environ["TRANSFORMERS_OFFLINE"] = "1"
            try:
                from sentence_transformers import SentenceTransformer
            except ImportError as exc:
                raise EmbedderError("st: models need the model extra: pip install 'vera-lab[model]'") from exc
            try:
                self._model = SentenceTransformer(
                    str(self.folder), device=resolve_device(self.requested_device)
                )
            except (OSError, ValueError) as exc:
                raise EmbedderError(f"st:{self.folder}: cannot load the model ({exc})") from None
            except Exception as exc:  # noqa: BLE001 - safetensors and torch raise their own types
                raise EmbedderError(
                    f"st:{self.folder}: cannot load the model ({type(exc).__name__}: {str(exc)[:120]}); a "
                    "weights file may be truncated or damaged: copy the model folder again"
                ) from None
        return self._model

    @property
    def dim(self) -> int:
        model = self._load()  # sentence-transformers 6 renamed the method; >=3 is supported
        dimension = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
        return int(dimension())

    @property
    def name(self) -> str:
        return f"st-{self.folder.name}-{model_digest(str(self.folder.resolve()))}-{self.dim}"

    @property
    def input_limit(self) -> tuple[str, int] | None:
        tokenizer = self.folder / "tokenizer.json"
        limit = self._load().max_seq_length
        return (str(tokenizer), int(limit)) if tokenizer.is_file() and limit else None

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        texts = list(texts)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        vectors = self._load().encode(texts, batch_size=self.batch_size, show_progress_bar=False,
                                      convert_to_numpy=True, normalize_embeddings=True)  # fmt: skip
        return normalize(vectors)
