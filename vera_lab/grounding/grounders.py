"""One shape for every way of grounding a claim: ``fit`` on labelled claims, then ``predict``.

As with scikit-learn's estimators, the parameters come first (:class:`GroundingParameters`), ``fit``
learns what the scorer learns from labelled claims (a calibrated threshold, a model over features,
the verdict), and ``predict`` scores claims it never saw. ``cross_fit`` is how a sweep reports a
scorer honestly: every claim is scored and judged by what was fitted without it. A scorer that learns
nothing from labels (a fixed threshold, the LLM judge) predicts the same either way.

``grounder_for(parameters, verifier)`` gives the grounder the parameters name.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from vera_lab.grounding.base import GOLD_VERDICT, VERDICTS, fold_ids
from vera_lab.grounding.cosine import GroundingParameters
from vera_lab.grounding.learned import (
    claim_features,
    combined_features,
    document_folds,
    fitted_model,
    out_of_fold,
    out_of_fold_verdicts,
)
from vera_lab.metrics import best_f1_threshold
from vera_lab.retrieval import Hits
from vera_lab.types import Chunk, Claim


@dataclass(frozen=True)
class Found:
    """What retrieval found: each claim's top-k ``hits`` into ``chunks``, as the reader receives them."""

    hits: Hits
    chunks: Sequence[Chunk]


@dataclass
class Scored:
    """Each claim's grounding score and the threshold it is judged by.

    A three-way scorer adds its probabilities (n, 3; columns ``VERDICTS``), the rank of the chunk that
    decided, and the word pieces of the retrieved chunks it could not read.
    """

    scores: np.ndarray
    judged_by: np.ndarray
    probabilities: np.ndarray | None = None
    deciding_rank: np.ndarray | None = None
    truncated: np.ndarray | None = None


class Grounder(Protocol):
    """Decides whether claims are grounded in what retrieval found."""

    parameters: GroundingParameters

    def fit(self, claims: Sequence[Claim], found: Found) -> Grounder:
        """Learn from labelled claims what this scorer learns; returns itself."""
        ...

    def predict(self, claims: Sequence[Claim], found: Found) -> Scored:
        """Score claims (labels unused), each judged by the fitted threshold."""
        ...

    def cross_fit(self, claims: Sequence[Claim], found: Found) -> Scored:
        """Score labelled claims, each by what was fitted without it."""
        ...


class NotFittedError(RuntimeError):
    """``predict`` before ``fit`` on a scorer that learns from labels."""


def _labels(claims: Sequence[Claim]) -> np.ndarray:
    return np.array([c.label == "supported" for c in claims])


def _gold_verdicts(claims: Sequence[Claim]) -> np.ndarray:
    return np.array([VERDICTS.index(GOLD_VERDICT[c.label]) for c in claims])


class _Thresholded:
    """A grounder whose scores need no labels: only a calibrated threshold is learnt."""

    def __init__(self, parameters: GroundingParameters) -> None:
        self.parameters = parameters
        fixed = parameters.threshold != "calibrate"
        self.threshold_: float | None = float(parameters.threshold) if fixed else None

    def _scores(self, claims: Sequence[Claim], found: Found) -> Scored:
        raise NotImplementedError

    def fit(self, claims: Sequence[Claim], found: Found) -> _Thresholded:
        self.threshold_ = self.parameters.resolve_threshold(claims, self._scores(claims, found).scores)
        return self

    def predict(self, claims: Sequence[Claim], found: Found) -> Scored:
        if self.threshold_ is None:
            raise NotFittedError("threshold 'calibrate': fit on labelled claims before predict")
        scored = self._scores(claims, found)
        scored.judged_by = np.full(len(claims), self.threshold_)
        return scored

    def cross_fit(self, claims: Sequence[Claim], found: Found) -> Scored:
        scored = self._scores(claims, found)
        scored.judged_by = self.parameters.out_of_fold_thresholds(claims, scored.scores)
        return scored


class CosineGrounder(_Thresholded):
    """Similarity of the top chunks, aggregated (seed ADR-003)."""

    def _scores(self, claims: Sequence[Claim], found: Found) -> Scored:
        return Scored(self.parameters.score(found.hits), np.empty(0))


class VerifierGrounder(_Thresholded):
    """The verifier's probability of support after reading each retrieved chunk with the claim."""

    def __init__(self, parameters: GroundingParameters, verifier) -> None:
        super().__init__(parameters)
        self.verifier = verifier

    def _scores(self, claims: Sequence[Claim], found: Found) -> Scored:
        read = self.verifier.score(claims, found.hits, found.chunks)
        # the score of support is the mean over the chunks; the verdict is the deciding chunk's
        return Scored(read.probabilities[:, 0].astype(np.float64), np.empty(0), read.verdict,
                      read.deciding_rank, read.truncated)  # fmt: skip


class _Modelled:
    """A logistic model over features of what was found, and its threshold, learnt from labels."""

    def __init__(self, parameters: GroundingParameters) -> None:
        self.parameters = parameters
        self.fixed = None if parameters.threshold == "calibrate" else float(parameters.threshold)
        self.model_ = None
        self.threshold_: float | None = None

    def _folds(self, claims: Sequence[Claim]) -> np.ndarray:
        raise NotImplementedError

    def _features(self, claims: Sequence[Claim], found: Found) -> tuple[np.ndarray, Scored]:
        raise NotImplementedError

    def fit(self, claims: Sequence[Claim], found: Found) -> _Modelled:
        self._fit(claims, self._features(claims, found)[0])
        return self

    def predict(self, claims: Sequence[Claim], found: Found) -> Scored:
        if self.model_ is None:
            raise NotFittedError(f"scorer {self.parameters.scorer}: fit on labelled claims before predict")
        features, scored = self._features(claims, found)
        self._predict(features, scored)
        return scored

    def cross_fit(self, claims: Sequence[Claim], found: Found) -> Scored:
        features, scored = self._features(claims, found)
        self._cross_fit(claims, features, scored)
        return scored

    def _fit(self, claims: Sequence[Claim], features: np.ndarray) -> None:
        y = _labels(claims)
        self.model_ = fitted_model(features, y)
        if self.fixed is None:  # calibrated on scores from models that never saw the claim
            scores, _ = out_of_fold(features, y, self._folds(claims))
            self.threshold_ = best_f1_threshold(y, scores)[0]
        else:
            self.threshold_ = self.fixed

    def _predict(self, features: np.ndarray, scored: Scored) -> None:
        scored.scores = self.model_(features)
        scored.judged_by = np.full(len(features), self.threshold_)

    def _cross_fit(self, claims: Sequence[Claim], features: np.ndarray, scored: Scored) -> None:
        folds = self._folds(claims)
        scored.scores, scored.judged_by = out_of_fold(features, _labels(claims), folds, self.fixed)


class LearnedGrounder(_Modelled):
    """A logistic model over what a reader checks: similarity gaps, shared words and numbers, negation.

    Its folds are stratified by label.
    """

    def _folds(self, claims: Sequence[Claim]) -> np.ndarray:
        return fold_ids([c.label for c in claims])

    def _features(self, claims: Sequence[Claim], found: Found) -> tuple[np.ndarray, Scored]:
        return claim_features(claims, found.hits, found.chunks), Scored(np.empty(0), np.empty(0))


class CombinedGrounder(_Modelled):
    """The verifier and similarity weighed by models of the labels: grounded or not, and the verdict.

    The verdict too is learnt from the labels, because the verifier's class boundaries need not transfer
    to the user's documents. Folds hold whole documents out.
    """

    def __init__(self, parameters: GroundingParameters, verifier) -> None:
        super().__init__(parameters)
        self.verifier = verifier
        self.verdict_model_ = None

    def _folds(self, claims: Sequence[Claim]) -> np.ndarray:
        return document_folds(claims)

    def _features(self, claims: Sequence[Claim], found: Found) -> tuple[np.ndarray, Scored]:
        read = self.verifier.score(claims, found.hits, found.chunks)
        features = combined_features(read.probabilities, found.hits)
        return features, Scored(np.empty(0), np.empty(0), None, read.deciding_rank, read.truncated)

    def _fit(self, claims: Sequence[Claim], features: np.ndarray) -> None:
        super()._fit(claims, features)
        self.verdict_model_ = fitted_model(features, _gold_verdicts(claims), classes=len(VERDICTS))

    def _predict(self, features: np.ndarray, scored: Scored) -> None:
        super()._predict(features, scored)
        scored.probabilities = self.verdict_model_(features)

    def _cross_fit(self, claims: Sequence[Claim], features: np.ndarray, scored: Scored) -> None:
        super()._cross_fit(claims, features, scored)
        scored.probabilities = out_of_fold_verdicts(features, _gold_verdicts(claims), self._folds(claims))


class JudgeGrounder:
    """An LLM judge (:class:`~vera_lab.grounding.judge.LLMJudge`) reading each claim's retrieved chunks.

    It learns nothing from labels: ``fit`` returns it unchanged, and a claim is grounded when the judge
    says "supported" (score 1, threshold 0.5).
    """

    def __init__(self, parameters: GroundingParameters, judge) -> None:
        self.parameters = parameters
        self.judge = judge

    def fit(self, claims: Sequence[Claim], found: Found) -> JudgeGrounder:
        return self

    def predict(self, claims: Sequence[Claim], found: Found) -> Scored:
        from vera_lab.grounding.judge import AS_VERDICT

        probabilities = np.zeros((len(claims), len(VERDICTS)))
        for i, (claim, row) in enumerate(zip(claims, found.hits.indices, strict=True)):
            said = self.judge.judge(claim, [found.chunks[r].text for r in row if r >= 0])
            probabilities[i, VERDICTS.index(AS_VERDICT[said.label])] = 1.0
        return Scored(probabilities[:, 0], np.full(len(claims), 0.5), probabilities)

    cross_fit = predict


def grounder_for(parameters: GroundingParameters, verifier=None, judge=None) -> Grounder:
    """The grounder ``parameters.scorer`` names; ``verifier`` reads for the verifier-based ones.

    ``judge`` (an :class:`~vera_lab.grounding.judge.LLMJudge`) makes an LLM judge of the same evidence.
    """
    if judge is not None:
        return JudgeGrounder(parameters, judge)
    if parameters.scorer in ("verifier", "combined") and verifier is None:
        raise ValueError(f"scorer {parameters.scorer}: give the verifier that reads the chunks (verifier=)")
    return {
        "cosine": lambda: CosineGrounder(parameters),
        "learned": lambda: LearnedGrounder(parameters),
        "verifier": lambda: VerifierGrounder(parameters, verifier),
        "combined": lambda: CombinedGrounder(parameters, verifier),
    }[parameters.scorer]()
