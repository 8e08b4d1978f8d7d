"""Evaluate one configuration on a dataset, with the models it needs bound once.

``evaluate`` runs the stages (``chunk_corpus``, ``SearchIndex.build``, ``retrieve``, ``ground``,
``measure``, ``diagnose``), each callable alone; ``resources`` binds embedders and judges. The names
are importable from here, as they were when this was one module.
"""

from vera_lab.evaluation.evaluate import (
    EMBED_SAMPLE,
    Evaluation,
    Grounding,
    Scored,
    chunk_corpus,
    diagnose,
    embedding_cost,
    evaluate,
    ground,
    measure,
    reader_spans,
    reading_ends,
    received,
    retrieve,
)

__all__ = [
    "EMBED_SAMPLE",
    "Evaluation",
    "Grounding",
    "Scored",
    "chunk_corpus",
    "diagnose",
    "embedding_cost",
    "evaluate",
    "ground",
    "measure",
    "reader_spans",
    "reading_ends",
    "received",
    "retrieve",
]
