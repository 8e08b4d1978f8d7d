"""Chunk quality (seed ADR-0025, tier 2).

An offline heuristic always works; an LLM judge through Ollama's chat API with a JSON-schema reply
is used when a model is configured.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vera_lab.chunking.segment import sentence_spans
from vera_lab.llm import chat_json

QUALITY_SCHEMA = {
    "type": "object",
    "properties": {
        "semantic_coherence": {"type": "number"},
        "topic_consistency": {"type": "number"},
        "boundary_quality": {"type": "number"},
        "complete_thought": {"type": "boolean"},
        "abrupt_topic_change": {"type": "boolean"},
        "readable_without_context": {"type": "boolean"},
        "suggested_split": {"type": "array", "items": {"type": "integer"}},
    },
    "required": ["semantic_coherence", "topic_consistency", "boundary_quality", "complete_thought",
                 "abrupt_topic_change", "readable_without_context", "suggested_split"],
}  # fmt: skip
PROMPT = (
    "Analyze this text chunk for semantic coherence. Score 0-1:\n"
    "- Does the chunk represent a complete thought?\n"
    "- Are there abrupt topic changes mid-chunk?\n"
    "- Would the chunk make sense to a reader without context?\n\n"
    "If score < 0.75, suggest optimal split points (character offsets into the chunk).\n\n"
    "Chunk: {chunk}"
)
SYSTEM = "You grade text chunks for a retrieval system. Reply with JSON only."
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


def llm_quality(chunk: str, model: str, host: str | None = None, retries: int = 2) -> ChunkQuality:
    """The seed's prompt to a local model; raises EmbedderError / LLMOutputError on failure."""
    reply = chat_json(model, SYSTEM, PROMPT.format(chunk=chunk), QUALITY_SCHEMA, host, retries)
    parts = [
        float(np.clip(reply[k], 0, 1))
        for k in ("semantic_coherence", "topic_consistency", "boundary_quality")
    ]
    splits = tuple(int(i) for i in reply["suggested_split"] if 0 < int(i) < len(chunk))
    return ChunkQuality(float(np.mean(parts)), *parts, llm_verified=True, suggested_split=splits)
