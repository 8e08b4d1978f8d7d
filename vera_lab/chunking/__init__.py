"""Chunkers: each a frozen dataclass of parameters with a ``chunk(document)`` method."""

from vera_lab.chunking.base import (
    CHUNKERS,
    CHUNKING_CHANGES,
    CHUNKING_VERSION,
    UNITS,
    Chunker,
    SizedChunker,
    make_chunker,
)
from vera_lab.chunking.code import CodeChunker
from vera_lab.chunking.fixed import FixedChunker
from vera_lab.chunking.markdown import MarkdownChunker
from vera_lab.chunking.pdf import PdfChunker
from vera_lab.chunking.presets import PRESETS, preset_chunker
from vera_lab.chunking.quality import ChunkQuality
from vera_lab.chunking.recursive import RecursiveChunker
from vera_lab.chunking.segment import sentence_spans
from vera_lab.chunking.semantic import SemanticChunker
from vera_lab.chunking.sentence import SentenceChunker
from vera_lab.chunking.stats import chunk_stats
from vera_lab.chunking.tiered import TieredChunker
from vera_lab.chunking.token import TokenChunker
from vera_lab.types import chunk_id

__all__ = [
    "CHUNKERS",
    "CHUNKING_CHANGES",
    "CHUNKING_VERSION",
    "PRESETS",
    "UNITS",
    "ChunkQuality",
    "Chunker",
    "CodeChunker",
    "FixedChunker",
    "MarkdownChunker",
    "PdfChunker",
    "RecursiveChunker",
    "SemanticChunker",
    "SentenceChunker",
    "SizedChunker",
    "TieredChunker",
    "TokenChunker",
    "chunk_id",
    "chunk_stats",
    "make_chunker",
    "preset_chunker",
    "sentence_spans",
]
