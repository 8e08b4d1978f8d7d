"""Every way of deciding whether a claim is grounded in what retrieval found.

``GroundingScorer`` holds the parameters (k, scope, threshold, which scorer); the scorers are
``cosine`` (similarity of the top chunks, seed ADR-003), ``learned`` (a logistic model over features
of them, out of fold) and ``verifier`` (a cross-encoder trained once here on public pairs and shipped,
:mod:`vera_lab.grounding.general`; adapted to labelled claims, cross-fitted by document, on request).
The LLM judge (``vera_lab.grounding.judge``) reads the same evidence.
"""

from vera_lab.grounding.base import (
    GOLD_VERDICT,
    VERDICTS,
    Evidence,
    Verdict,
    cluster_folds,
    fold_ids,
)
from vera_lab.grounding.cosine import AGGREGATES, SCORERS, VERIFIER_SCORERS, GroundingScorer

__all__ = [
    "AGGREGATES",
    "GOLD_VERDICT",
    "SCORERS",
    "VERIFIER_SCORERS",
    "VERDICTS",
    "Evidence",
    "GroundingScorer",
    "Verdict",
    "cluster_folds",
    "fold_ids",
]
