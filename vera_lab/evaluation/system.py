"""A configuration made runnable: its chunker and embedder bound, its verifier loaded or fitted.

A configuration (:class:`~vera_lab.sweep.config.Configuration`) is parameters; ``point.build(...)``
returns a :class:`System`, and ``system.evaluate(dataset)`` runs the stages on a dataset. The sweep
runner builds each configuration this way, so what is bound, loaded and fitted is decided in one place.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from vera_lab.chunking import Chunker
from vera_lab.embedding import Embedder
from vera_lab.evaluation.evaluate import Evaluation, evaluate
from vera_lab.grounding import GroundingParameters
from vera_lab.retrieval import DENSE, Pipeline
from vera_lab.types import Dataset


@dataclass
class System:
    """Everything one configuration runs with: chunker, embedder, scorer, pipeline, parents, verifier."""

    chunker: Chunker
    embedder: Embedder
    scorer: GroundingParameters
    pipeline: Pipeline = DENSE
    parent_chunker: Chunker | None = None
    verifier: Any = None  # the shipped general verifier, or one adapted to labelled claims

    def evaluate(self, dataset: Dataset) -> Evaluation:
        """The configuration on ``dataset``: chunk, index, retrieve, ground, measure, diagnose."""
        return evaluate(dataset, self.chunker, self.embedder, self.scorer, self.verifier, self.pipeline,
                        self.parent_chunker)  # fmt: skip
