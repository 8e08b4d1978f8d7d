"""Retrieval: dense and BM25 indexes, their fusion, expansion of what the reader gets, context headers.

The pipeline a configuration runs (:class:`Pipeline`) is parameters; :func:`rank` ranks every claim's
chunks; reranking by the trained verifier is a grounding concern and lives there.
"""

from vera_lab.retrieval.context import CONTEXTS, indexed_texts
from vera_lab.retrieval.expand import parent_spans, window_spans
from vera_lab.retrieval.fusion import rrf, weighted
from vera_lab.retrieval.index import SCOPES, Hits, Index
from vera_lab.retrieval.lexical import BM25, tokenize
from vera_lab.retrieval.pipeline import DENSE, RETRIEVERS, Pipeline, parse_pipeline, rank, similarities
from vera_lab.retrieval.search_index import SearchIndex

__all__ = [
    "BM25",
    "CONTEXTS",
    "DENSE",
    "RETRIEVERS",
    "SCOPES",
    "SearchIndex",
    "Hits",
    "Index",
    "Pipeline",
    "indexed_texts",
    "parent_spans",
    "parse_pipeline",
    "rank",
    "rrf",
    "similarities",
    "tokenize",
    "weighted",
    "window_spans",
]
