"""Evaluate one configuration on a dataset: ``evaluate(dataset, configuration)``.

A :class:`Configuration` is parameters; ``configuration.build(Resources(...))`` binds its models and
fits what must be fitted, giving a :class:`System`; ``evaluate`` runs the stages (``chunk_corpus``,
``SearchIndex.build``, ``retrieve``, ``ground``, ``measure``, ``diagnose``), each callable alone.
"""

from vera_lab.evaluation.configuration import Configuration
from vera_lab.evaluation.resources import Resources
from vera_lab.evaluation.stages import (
    EMBED_SAMPLE,
    Evaluation,
    Grounding,
    Scored,
    System,
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
    "Configuration",
    "Evaluation",
    "Grounding",
    "Resources",
    "Scored",
    "System",
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
