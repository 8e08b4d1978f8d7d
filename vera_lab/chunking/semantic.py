"""Semantic chunking (seed ADR-0025, tier 3): cut where adjacent sentences stop resembling each other.

Sentence windows are embedded through the (cached) embedder named by ``embedder``; a breakpoint is
placed where the cosine distance between consecutive windows exceeds the ``percentile``-th
percentile of all such distances. Segments longer than ``size`` tokens fall back to sliding token
windows (``fallback_size`` / ``fallback_overlap``); adjacent chunks whose centroids have cosine
above ``merge_threshold`` are merged while they fit. The embedding function is a resource: the caller
binds one (through its cache); without one, the named embedder is built once per process.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from vera_lab.chunking.base import Chunk, SizedChunker, build_chunks, register, resource
from vera_lab.chunking.segment import sentence_spans
from vera_lab.chunking.windows import fits_tokens, rstrip_at, token_windows
from vera_lab.types import Document

Embed = Callable[[Sequence[str]], np.ndarray]


@functools.lru_cache(maxsize=4)
def default_embed(spec: str) -> Embed:
    """The named embedder through the default on-disk cache, built once per process."""
    from vera_lab.embedding import DEFAULT_CACHE_DIR, get_embedder

    return get_embedder(spec, cache_dir=DEFAULT_CACHE_DIR).embed


@register
@dataclass(frozen=True)
class SemanticChunker(SizedChunker):
    """Breakpoints at drops in adjacent-window similarity; seed values as defaults."""

    strategy: ClassVar[str] = "semantic"
    units: ClassVar[tuple[str, ...]] = ("tokens",)
    overlaps: ClassVar[bool] = False
    size: int = 512
    overlap: float = 0
    unit: str = "tokens"
    embedder: str = "minilm"
    window: int = 1
    percentile: float = 90.0
    merge_threshold: float = 0.85
    fallback_size: int | None = None  # default: min(256, size), the seed's sliding window
    fallback_overlap: int | None = None  # default: a quarter of the fallback size (the seed's 64 of 256)
    embed: Embed | None = resource()

    def __post_init__(self) -> None:
        super().__post_init__()
        if not 0 < self.percentile < 100:
            raise ValueError(f"percentile={self.percentile}: must be in (0, 100)")
        if self.window < 1:
            raise ValueError(f"window={self.window}: must be >= 1")
        if not 0 <= self.window_overlap < self.window_size <= self.size:
            raise ValueError(
                f"fallback_overlap={self.window_overlap}, fallback_size={self.window_size}, "
                f"size={self.size}: need 0 <= fallback_overlap < fallback_size <= size"
            )

    @property
    def window_size(self) -> int:
        """The fallback window size in tokens (``fallback_size``, or its default)."""
        return self.fallback_size if self.fallback_size is not None else min(256, self.size)

    @property
    def window_overlap(self) -> int:
        """The fallback window overlap in tokens (``fallback_overlap``, or its default)."""
        return self.fallback_overlap if self.fallback_overlap is not None else self.window_size // 4

    def _chunk(self, document: Document) -> list[Chunk]:
        spans, counts = self.segment(document.text, 0, len(document.text))
        return build_chunks(document, spans, counts)

    def segment(self, text: str, lo: int, hi: int) -> tuple[list[tuple[int, int]], list[int]]:
        """Semantic chunks of ``text[lo:hi]`` (used by the tiered chunker for its low-quality parts)."""
        sentences = [(lo + s, lo + e) for s, e in sentence_spans(text[lo:hi])]
        if not sentences:
            return [], []
        embed = self.embed_fn()
        segments = [(sentences[0][0], sentences[-1][1])]
        if len(sentences) > 2:
            windows = [
                text[sentences[i][0] : sentences[min(i + self.window, len(sentences)) - 1][1]]
                for i in range(len(sentences))
            ]
            vectors = _dense(embed(windows))
            distance = 1 - np.sum(vectors[:-1] * vectors[1:], axis=1)
            cut_after = np.flatnonzero(distance > np.percentile(distance, self.percentile))
            bounds = [0, *(int(i) + 1 for i in cut_after), len(sentences)]
            segments = [
                (sentences[a][0], sentences[b - 1][1]) for a, b in zip(bounds, bounds[1:], strict=False)
            ]
        tokenizer = self.get_tokenizer()
        pieces: list[tuple[int, int]] = []
        for s, e in segments:
            if fits_tokens(text, s, e, tokenizer, self.size):
                pieces.append((s, e))
            else:  # the seed's sliding-window fallback
                pieces.extend(token_windows(text, s, e, tokenizer, self.window_size, self.window_overlap)[0])
        pieces = self._merge_similar(text, pieces, embed, tokenizer)
        return pieces, tokenizer.count_many([text[s:e] for s, e in pieces])

    def embed_fn(self) -> Embed:
        """The bound embedding function, else the named embedder's."""
        return self.embed or default_embed(self.embedder)

    def _merge_similar(self, text, pieces, embed, tokenizer):
        if len(pieces) < 2:
            return pieces
        vectors = _dense(embed([text[s:e] for s, e in pieces]))
        out, out_vectors = [pieces[0]], [vectors[0]]
        for piece, vector in zip(pieces[1:], vectors[1:], strict=True):
            s, _ = out[-1]
            overlapping = piece[0] < out[-1][1]  # fallback windows overlap: keep them apart
            if not overlapping and float(out_vectors[-1] @ vector) > self.merge_threshold:
                if tokenizer.count(text[s : piece[1]]) <= self.size:
                    out[-1] = (s, rstrip_at(text, s, piece[1]))
                    merged = out_vectors[-1] + vector
                    out_vectors[-1] = merged / (np.linalg.norm(merged) or 1)
                    continue
            out.append(piece)
            out_vectors.append(vector)
        return out


def _dense(vectors) -> np.ndarray:
    return vectors.toarray() if hasattr(vectors, "toarray") else np.asarray(vectors)
