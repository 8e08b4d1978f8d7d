"""The seeds' tiered hybrid (ADR-0025): structure -> quality gate -> semantic re-chunking.

Tier 1 chunks by the document's structure (Markdown headers, code syntax, PDF pages and
paragraphs, sentences for plain text). Tier 2 scores every chunk with the offline heuristic and,
when ``llm_model`` is set and the seed's triggers fire (> 800 tokens, < 100 tokens, or low
structure confidence), with the quality ``judge`` the caller binds for ``llm_model``
(:func:`vera_lab.evaluation.resources.with_resources` binds an Ollama one). Tier 3 re-chunks
semantically every chunk scoring below ``gate_threshold``. A judge that cannot answer leaves the
heuristic score.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import ClassVar

from vera_lab.chunking.base import Chunk, Chunker, SizedChunker, build_chunks, register, resource
from vera_lab.chunking.code import CodeChunker
from vera_lab.chunking.markdown import MarkdownChunker
from vera_lab.chunking.pdf import PdfChunker
from vera_lab.chunking.quality import ChunkQuality, QualityJudge, heuristic_quality
from vera_lab.chunking.semantic import Embed, SemanticChunker
from vera_lab.chunking.sentence import SentenceChunker
from vera_lab.types import Document


@register
@dataclass(frozen=True)
class TieredChunker(SizedChunker):
    """Structure-aware chunks, gated on quality, with semantic re-chunking of the weak ones."""

    strategy: ClassVar[str] = "tiered"
    units: ClassVar[tuple[str, ...]] = ("tokens",)
    overlaps: ClassVar[bool] = False
    size: int = 1024
    overlap: float = 0
    unit: str = "tokens"
    min_size: int = 256
    gate_threshold: float = 0.75
    llm_model: str | None = None
    embedder: str = "minilm"
    embed: Embed | None = resource()
    judge: QualityJudge | None = resource()

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.judge is not None and not self.llm_model:
            raise ValueError("tiered: a quality judge needs llm_model, the name of the model it asks")

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
        if self.llm_model and self.judge is None:
            raise ValueError(
                f"tiered: llm_model={self.llm_model!r} needs a quality judge; pass "
                "judge=OllamaQualityJudge(model) or build the chunker with "
                "vera_lab.evaluation.resources.with_resources"
            )
        semantic = SemanticChunker(size=min(self.size, 512), embedder=self.embedder, embed=self.embed)
        embed = semantic.embed_fn()
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
        if self.judge is None or not (n > 800 or n < 100 or confidence < 0.7):
            return heuristic
        return self.judge(chunk.text) or heuristic
