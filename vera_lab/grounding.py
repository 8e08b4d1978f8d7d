"""The grounding scorer of seed ADR-003: embed the claim, retrieve top-k, aggregate, threshold.

A verdict cites its evidence (document, chunk id, character span, page when the document has pages).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from vera_lab.metrics import best_f1_threshold
from vera_lab.retrieval import SCOPES, Hits, Index
from vera_lab.types import Chunk, Claim, Corpus

AGGREGATES = ("max", "mean")
SCORERS = ("cosine", "learned")  # similarity of the top chunks, or a model over features of them
CALIBRATION_FOLDS = 5  # a calibrated threshold is judged out of fold: k folds over claims, seeded


@dataclass(frozen=True)
class Evidence:
    """One retrieved chunk cited for a claim."""

    rank: int
    doc_id: str
    chunk_id: str
    start: int
    end: int
    score: float
    page: int | None = None


@dataclass(frozen=True)
class Verdict:
    """Whether a claim is grounded, with the aggregated similarity and the evidence behind it."""

    claim_id: str
    score: float
    grounded: bool
    evidence: tuple[Evidence, ...]


@dataclass(frozen=True)
class GroundingScorer:
    """Parameters of the grounding decision; ``threshold="calibrate"`` picks the F1-best threshold.

    ``scorer="cosine"`` scores a claim by the similarity of its top chunks (``aggregate``);
    ``"learned"`` by a logistic model over features of them, fitted out of fold (never on the claim
    it scores). A calibrated threshold is fitted on all claims for use, and judged out of fold.
    """

    k: int = 5
    aggregate: str = "max"
    threshold: float | str = 0.7
    scope: str = "corpus"
    scorer: str = "cosine"

    def __post_init__(self) -> None:
        if not isinstance(self.k, int) or self.k <= 0:
            raise ValueError(f"k={self.k!r}: must be a positive whole number")
        if self.aggregate not in AGGREGATES:
            raise ValueError(f"aggregate={self.aggregate!r}: choose one of {AGGREGATES}")
        if self.scope not in SCOPES:
            raise ValueError(f"scope={self.scope!r}: choose one of {SCOPES}")
        if self.scorer not in SCORERS:
            raise ValueError(f"scorer={self.scorer!r}: choose one of {SCORERS}")
        if self.threshold != "calibrate" and not (
            isinstance(self.threshold, int | float) and -1 <= self.threshold <= 1
        ):
            raise ValueError(f"threshold={self.threshold!r}: a cosine in [-1, 1] or 'calibrate'")

    def retrieve(self, claim_vectors, index: Index, claims: Sequence[Claim], depth: int = 0) -> Hits:
        """Top-k chunks per claim (``depth`` when deeper), from the corpus or each claim's cited documents."""
        allowed = [c.cited_doc_ids for c in claims] if self.scope == "cited" else None
        return index.search(claim_vectors, max(self.k, depth), allowed)

    def score(self, hits: Hits) -> np.ndarray:
        """Aggregate each claim's top-k similarities; a claim with nothing retrieved scores -1."""
        found = np.isfinite(hits.scores)
        if self.aggregate == "max":
            scores = hits.scores[:, 0].astype(np.float64)
        else:
            sums = np.where(found, hits.scores, 0).sum(axis=1)
            scores = np.divide(sums, found.sum(axis=1), out=np.full(len(sums), -1.0), where=found.any(axis=1))
        return np.where(found.any(axis=1), scores, -1.0)

    def resolve_threshold(self, claims: Sequence[Claim], scores: np.ndarray) -> float:
        """The fixed threshold, or the one that maximises F1 of 'supported' on these claims."""
        if self.threshold == "calibrate":
            return best_f1_threshold(np.array([c.label == "supported" for c in claims]), scores)[0]
        return float(self.threshold)

    def out_of_fold_thresholds(self, claims: Sequence[Claim], scores: np.ndarray) -> np.ndarray:
        """The threshold each claim is judged by, fitted without it (a fixed threshold: itself)."""
        if self.threshold != "calibrate":
            return np.full(len(claims), float(self.threshold))
        y = np.array([c.label == "supported" for c in claims])
        folds = fold_ids([c.label for c in claims])
        out = np.empty(len(claims))
        for fold in np.unique(folds):
            held = folds == fold
            if held.all():  # one claim, or one fold: nothing else to fit on
                out[held] = best_f1_threshold(y, scores)[0]
            else:
                out[held] = best_f1_threshold(y[~held], scores[~held])[0]
        return out

    def verdicts(
        self,
        claims: Sequence[Claim],
        hits: Hits,
        scores: np.ndarray,
        threshold: float,
        chunks: Sequence[Chunk],
        corpus: Corpus,
    ) -> list[Verdict]:
        """One verdict per claim, citing its retrieved chunks."""
        out = []
        for i, claim in enumerate(claims):
            evidence = []
            for rank, (row, sim) in enumerate(zip(hits.indices[i], hits.scores[i], strict=True), 1):
                if row < 0:
                    break
                chunk = chunks[row]
                page = corpus[chunk.doc_id].page_of(chunk.start)
                evidence.append(
                    Evidence(rank, chunk.doc_id, chunk.chunk_id, chunk.start, chunk.end, float(sim), page)
                )
            out.append(
                Verdict(claim.claim_id, float(scores[i]), bool(scores[i] >= threshold), tuple(evidence))
            )
        return out


def fold_ids(labels: Sequence[str], folds: int = CALIBRATION_FOLDS, seed: int = 0) -> np.ndarray:
    """A fold number per claim: stratified by label, shuffled with ``seed``; fewer folds for few claims."""
    import warnings

    from sklearn.model_selection import KFold, StratifiedKFold

    labels = np.asarray(labels)
    n = len(labels)
    out = np.zeros(n, dtype=np.int64)
    if n < 2:
        return out
    splits = min(folds, n)
    counts = np.unique(labels, return_counts=True)[1]
    splitter = (
        StratifiedKFold(splits, shuffle=True, random_state=seed)
        if counts.max() >= splits
        else KFold(splits, shuffle=True, random_state=seed)
    )
    with warnings.catch_warnings():  # a label rarer than the folds is spread as far as it goes
        warnings.simplefilter("ignore", UserWarning)
        for fold, (_, held) in enumerate(splitter.split(np.zeros(n), labels)):
            out[held] = fold
    return out
