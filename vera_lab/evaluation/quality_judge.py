"""The seed's LLM quality gate (ADR-0025, tier 2) as a :data:`~vera_lab.chunking.quality.QualityJudge`.

A local Ollama model grades a chunk with a JSON-schema reply. The tiered chunker receives the judge
as a callable, so the chunking layer never imports this module or the Ollama client.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from vera_lab.chunking.quality import ChunkQuality
from vera_lab.llm import LLMOutputError, OllamaError, chat_json

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


def llm_quality(chunk: str, model: str, host: str | None = None, retries: int = 2) -> ChunkQuality:
    """The seed's prompt to a local model; raises OllamaError / LLMOutputError on failure."""
    reply = chat_json(model, SYSTEM, PROMPT.format(chunk=chunk), QUALITY_SCHEMA, host, retries)
    parts = [
        float(np.clip(reply[k], 0, 1))
        for k in ("semantic_coherence", "topic_consistency", "boundary_quality")
    ]
    splits = tuple(int(i) for i in reply["suggested_split"] if 0 < int(i) < len(chunk))
    return ChunkQuality(float(np.mean(parts)), *parts, llm_verified=True, suggested_split=splits)


@dataclass(frozen=True)
class OllamaQualityJudge:
    """Grade chunks with ``model`` on the Ollama server at ``host``; ``None`` (and one warning) on failure."""

    model: str
    host: str | None = None
    retries: int = 2

    def __call__(self, chunk: str) -> ChunkQuality | None:
        try:
            return llm_quality(chunk, self.model, self.host, self.retries)
        except (OllamaError, LLMOutputError) as exc:
            warnings.warn(
                f"tiered chunker: LLM quality gate unavailable, using the heuristic ({exc})", stacklevel=2
            )
            return None
