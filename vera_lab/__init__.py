"""vera_lab: choose chunking parameters for retrieval and grounding with evidence, not folklore."""

from vera_lab.chunking import (
    CHUNKERS,
    Chunker,
    FixedChunker,
    RecursiveChunker,
    SentenceChunker,
    TokenChunker,
    chunk_stats,
    make_chunker,
    sentence_spans,
)
from vera_lab.data import DatasetError, load_dataset, save_dataset
from vera_lab.tokens import get_tokenizer
from vera_lab.types import Chunk, Claim, ClaimSet, Corpus, Dataset, Document, Span

__version__ = "0.1.0"

__all__ = [
    "load_verifier",
    "CHUNKERS",
    "Chunk",
    "Chunker",
    "Claim",
    "ClaimSet",
    "Corpus",
    "Dataset",
    "DatasetError",
    "Document",
    "FixedChunker",
    "RecursiveChunker",
    "SentenceChunker",
    "Span",
    "TokenChunker",
    "chunk_stats",
    "get_tokenizer",
    "load_dataset",
    "make_chunker",
    "save_dataset",
    "sentence_spans",
]


def __getattr__(name: str):
    """``load_verifier`` on first use: the verifier's imports stay out of ``import vera_lab``."""
    if name == "load_verifier":
        from vera_lab.grounding.general import load_verifier

        return load_verifier
    raise AttributeError(f"module 'vera_lab' has no attribute {name!r}")
