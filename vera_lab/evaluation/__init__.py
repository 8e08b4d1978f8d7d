"""Evaluate one configuration on a dataset, with the models it needs bound once.

``evaluate`` runs the stages; ``resources`` binds embedders and judges. The names are importable
from here, as they were when this was one module.
"""

from vera_lab.evaluation.evaluate import (
    EMBED_SAMPLE,
    Evaluation,
    Scored,
    chunk_corpus,
    embedding_cost,
    evaluate,
    reader_spans,
    reading_ends,
    received,
)

__all__ = [
    "EMBED_SAMPLE",
    "Evaluation",
    "Scored",
    "chunk_corpus",
    "embedding_cost",
    "evaluate",
    "reader_spans",
    "reading_ends",
    "received",
]
