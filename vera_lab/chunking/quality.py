"""Chunk quality (seed ADR-0025, tier 2).

An offline heuristic always works. A model's opinion comes in as a :data:`QualityJudge`, a callable
the caller passes to the tiered chunker (``vera_lab.evaluation.quality_judge`` builds one for
Ollama), so chunking never talks to an LLM itself.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from vera_lab.chunking.segment import sentence_spans

_ENDINGS = ".!?:\"')]”’"


@dataclass(frozen=True)
class ChunkQuality:
    """Quality of one chunk; ``score`` is the mean of the three component scores."""

    score: float
    semantic_coherence: float
    topic_consistency: float
    boundary_quality: float
    tier: int = 1
    llm_verified: bool = False
    suggested_split: tuple[int, ...] = ()


def boundary_quality(text: str, start: int, end: int) -> float:
    """1 when the chunk starts and ends on sentence or paragraph boundaries, 0.5 for one, 0 for neither."""
    window = text[max(0, start - 200) : start]  # bounded look-back: linear over a document
    before = window.rstrip()
    starts_well = start == 0 or not before or before[-1] in _ENDINGS or "\n" in window[len(before) :]
    tail = text[start:end].rstrip()
    after = text[end : end + 200].lstrip(" \t")
    ends_well = end >= len(text) or tail[-1:] in _ENDINGS or after[:1] in ("\n", "\r", "")
    return (float(starts_well) + float(ends_well)) / 2


def heuristic_quality(text: str, start: int, end: int, embed) -> ChunkQuality:
    """Heuristic quality: sentence-to-centroid coherence, neighbour similarity, boundaries.

    ``embed`` maps texts to unit vectors.
    """
    sentences = [text[start + s : start + e] for s, e in sentence_spans(text[start:end])]
    boundary = boundary_quality(text, start, end)
    if len(sentences) < 2:
        return ChunkQuality((2 + boundary) / 3, 1.0, 1.0, boundary)
    vectors = embed(sentences)
    vectors = vectors.toarray() if hasattr(vectors, "toarray") else np.asarray(vectors)
    centroid = vectors.mean(axis=0)
    centroid /= np.linalg.norm(centroid) or 1
    coherence = float(np.clip(vectors @ centroid, 0, 1).mean())
    consistency = float(np.clip(np.sum(vectors[:-1] * vectors[1:], axis=1), 0, 1).mean())
    return ChunkQuality((coherence + consistency + boundary) / 3, coherence, consistency, boundary)


# A chunk's text -> its quality, or None when the judge cannot answer (the gate then uses the heuristic).
QualityJudge = Callable[[str], "ChunkQuality | None"]
