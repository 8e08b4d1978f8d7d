"""The seeds' tiered hybrid (ADR-0025): structure -> quality gate -> semantic re-chunking.

Tier 1 chunks by the document's structure (Markdown headers, code syntax, PDF pages and
paragraphs, sentences for plain text). Tier 2 scores every chunk with the offline heuristic and,
when ``llm_model`` is set and the seed's triggers fire (> 800 tokens, < 100 tokens, or low
structure confidence), with the LLM judge. Tier 3 re-chunks semantically every chunk scoring below
``gate_threshold``. Without an Ollama server the gate stays heuristic and says so once.
"""

from __future__ import annotations

import dataclasses
import warnings
from dataclasses import dataclass
from typing import ClassVar

from vera_lab.chunking.base import Chunk, Chunker, SizedChunker, build_chunks, register
from vera_lab.chunking.code import CodeChunker
from vera_lab.chunking.markdown import MarkdownChunker
from vera_lab.chunking.pdf import PdfChunker
from vera_lab.chunking.quality import ChunkQuality, heuristic_quality, llm_quality
from vera_lab.chunking.semantic import SemanticChunker, cached_embedder
from vera_lab.chunking.sentence import SentenceChunker
from vera_lab.embedding.base import EmbedderError
from vera_lab.llm import LLMOutputError
from vera_lab.types import Document


@register
@dataclass(frozen=True)
class TieredChunker(SizedChunker):
    """Structure-aware chunks, gated on quality, with semantic re-chunking of the weak ones."""

    strategy: ClassVar[str] = "tiered"
    units: ClassVar[tuple[str, ...]] = ("tokens",)
    size: int = 1024
    overlap: float = 0
    unit: str = "tokens"
    min_size: int = 256
    gate_threshold: float = 0.75
    llm_model: str | None = None
    llm_host: str | None = None
    embedder: str = "minilm"
    cache_dir: str = ".cache/vera_lab"

    def structure_chunker(self, document: Document) -> tuple[Chunker, float]:
        """The tier-1 chunker for this document's format and how much its structure can be trusted."""
        fmt = document.format
        if fmt == "markdown":
            return MarkdownChunker(size=self.size, min_size=min(self.min_size, self.size)), 0.9
        if fmt.startswith("code"):
            return CodeChunker(size=min(self.size, 512)), 0.9
        if fmt == "pdf":
            return PdfChunker(size=self.size), 0.8
        size = min(self.size, 768)  # the seed's 256-768 tokens for plain text
        return SentenceChunker(
            size=size, overlap=0, unit="tokens", min_size=min(256, size), max_size=size
        ), 0.6

    def _chunk(self, document: Document) -> list[Chunk]:
        text = document.text
        structure, confidence = self.structure_chunker(document)
        semantic = SemanticChunker(
            size=min(self.size, 512), embedder=self.embedder, cache_dir=self.cache_dir,
            fallback_size=min(256, self.size), fallback_overlap=min(64, self.size // 4),
        )  # fmt: skip
        embed = cached_embedder(self.embedder, self.cache_dir).embed
        spans, counts, metadata = [], [], []
        for chunk in structure.chunk(document):
            quality = self._gate(text, chunk, confidence, embed)
            base = {k: v for k, v in chunk.metadata.items() if k != "source_format"}
            if quality.score >= self.gate_threshold:
                spans.append((chunk.start, chunk.end))
                counts.append(chunk.n_tokens)
                metadata.append({**base, "tier": 1, "quality": dataclasses.asdict(quality)})
                continue
            pieces, piece_counts = semantic.segment(text, chunk.start, chunk.end)
            for (s, e), n in zip(pieces, piece_counts, strict=True):
                q = dataclasses.replace(heuristic_quality(text, s, e, embed), tier=3)
                spans.append((s, e))
                counts.append(n)
                metadata.append(
                    {**base, "tier": 3, "quality": dataclasses.asdict(q), "gate_score": quality.score}
                )
        return build_chunks(document, spans, counts, metadata)

    def _gate(self, text: str, chunk: Chunk, confidence: float, embed) -> ChunkQuality:
        heuristic = heuristic_quality(text, chunk.start, chunk.end, embed)
        n = chunk.n_tokens or 0
        if not self.llm_model or not (n > 800 or n < 100 or confidence < 0.7):
            return heuristic
        try:
            return llm_quality(chunk.text, self.llm_model, self.llm_host)
        except (EmbedderError, LLMOutputError) as exc:
            warnings.warn(
                f"tiered chunker: LLM quality gate unavailable, using the heuristic ({exc})", stacklevel=2
            )
            return heuristic
