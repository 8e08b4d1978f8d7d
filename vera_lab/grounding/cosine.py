"""The grounding scorer of seed ADR-003: embed the claim, retrieve top-k, aggregate, threshold.

A verdict cites its evidence (document, chunk id, character span, page when the document has pages).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from vera_lab.grounding.base import VERDICTS, Evidence, Verdict, fold_ids
from vera_lab.metrics import best_f1_threshold
from vera_lab.retrieval import SCOPES, Hits
from vera_lab.types import Chunk, Claim, Corpus

AGGREGATES = ("max", "mean")
# similarity of the top chunks, a model over features of them, or the cross-encoder trained here
SCORERS = ("cosine", "learned", "verifier", "combined")
VERIFIER_SCORERS = ("verifier", "combined")  # the scorers that read chunks with the verifier


@dataclass(frozen=True)
class GroundingParameters:
    """Parameters of the grounding decision; ``threshold="calibrate"`` picks the F1-best threshold.

    ``scorer="cosine"`` scores a claim by the similarity of its top chunks (``aggregate``);
    ``"learned"`` by a logistic model over features of them, fitted out of fold (never on the claim
    it scores); ``"verifier"`` by the probability of support the cross-encoder gives after reading
    each top chunk with the claim (:mod:`vera_lab.grounding.verifier`; a fixed threshold is then a
    probability). A calibrated threshold is fitted on all claims for use, and judged out of fold.
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
        low, meaning = (
            (0, "a probability in [0, 1]") if self.scorer != "cosine" else (-1, "a cosine in [-1, 1]")
        )
        if self.threshold != "calibrate" and not (
            isinstance(self.threshold, int | float)
            and not isinstance(self.threshold, bool)
            and low <= self.threshold <= 1
        ):
            raise ValueError(
                f"threshold={self.threshold!r}: {meaning} or 'calibrate' for scorer {self.scorer}"
            )

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
        probabilities: np.ndarray | None = None,
    ) -> list[Verdict]:
        """One verdict per claim, citing its retrieved chunks; with three-way ``probabilities``, its label."""
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
            three_way = {}
            if probabilities is not None:
                row = tuple(float(p) for p in probabilities[i])
                three_way = {"label": VERDICTS[int(np.argmax(row))], "probabilities": row}
            grounded = bool(scores[i] >= threshold)
            out.append(Verdict(claim.claim_id, float(scores[i]), grounded, tuple(evidence), **three_way))
        return out
