"""Every way of deciding whether a claim is grounded in what retrieval found.

``GroundingParameters`` holds the parameters (k, scope, threshold, which scorer); the scorers are
``cosine`` (similarity of the top chunks, seed ADR-003), ``learned`` (a logistic model over features
of them, out of fold) and ``verifier`` (a cross-encoder trained once here on public pairs and shipped,
:mod:`vera_lab.grounding.general`; adapted to labelled claims, cross-fitted by document, on request).
The LLM judge (``vera_lab.grounding.judge``) reads the same evidence. Every scorer has one shape
(:mod:`vera_lab.grounding.grounders`): ``grounder_for(parameters, verifier)``, then ``fit`` on labelled
claims and ``predict``, or ``cross_fit`` to score each claim by what was fitted without it.
"""

import warnings

from vera_lab.grounding.base import (
    GOLD_VERDICT,
    VERDICTS,
    Evidence,
    Verdict,
    cluster_folds,
    fold_ids,
)
from vera_lab.grounding.cosine import AGGREGATES, SCORERS, VERIFIER_SCORERS, GroundingParameters
from vera_lab.grounding.grounders import Found, Grounder, NotFittedError, Scored, grounder_for

__all__ = [
    "AGGREGATES",
    "GOLD_VERDICT",
    "SCORERS",
    "VERIFIER_SCORERS",
    "VERDICTS",
    "Evidence",
    "Found",
    "Grounder",
    "GroundingParameters",
    "NotFittedError",
    "Scored",
    "Verdict",
    "cluster_folds",
    "fold_ids",
    "grounder_for",
]


def __getattr__(name: str):
    """``GroundingScorer``, the old name of :class:`GroundingParameters`, still imports, with a warning."""
    if name == "GroundingScorer":
        message = "GroundingScorer is now GroundingParameters (the same class)"
        warnings.warn(message, DeprecationWarning, stacklevel=2)
        return GroundingParameters
    raise AttributeError(f"module 'vera_lab.grounding' has no attribute {name!r}")
