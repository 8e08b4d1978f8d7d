"""Chunkers: each a frozen dataclass of parameters with a ``chunk(document)`` method."""

from vera_lab.chunking.base import CHUNKERS, UNITS, Chunker, SizedChunker, chunk_id, make_chunker
from vera_lab.chunking.fixed import FixedChunker
from vera_lab.chunking.recursive import RecursiveChunker
from vera_lab.chunking.segment import sentence_spans
from vera_lab.chunking.sentence import SentenceChunker
from vera_lab.chunking.stats import chunk_stats
from vera_lab.chunking.token import TokenChunker

__all__ = [
    "CHUNKERS",
    "UNITS",
    "Chunker",
    "FixedChunker",
    "RecursiveChunker",
    "SentenceChunker",
    "SizedChunker",
    "TokenChunker",
    "chunk_id",
    "chunk_stats",
    "make_chunker",
    "sentence_spans",
]
