"""What every way of deciding a claim shares: the verdict with its citations, and honest folds.

A scorer answers, for each claim and the chunks retrieved for it, how likely the claim is supported,
contradicted or not mentioned. Folds over claims (for thresholds) and over clusters of documents (for
models that read text) keep every decision out of sample.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

CALIBRATION_FOLDS = 5  # a calibrated threshold is judged out of fold: k folds over claims, seeded
VERDICTS = ("supported", "contradicted", "not_mentioned")  # the columns of a three-way probability
GOLD_VERDICT = {"supported": "supported", "contradicted": "contradicted", "unsupported": "not_mentioned"}


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
    """A claim's decision with the evidence behind it.

    ``score`` is what the grounded/not decision thresholds (a cosine, or a probability of support);
    three-way scorers add ``label`` (one of :data:`VERDICTS`) and ``probabilities`` in that order.
    """

    claim_id: str
    score: float
    grounded: bool
    evidence: tuple[Evidence, ...]
    label: str = ""
    probabilities: tuple[float, float, float] | None = None


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


def cluster_folds(clusters: np.ndarray, folds: int, seed: int = 0) -> np.ndarray:
    """A fold per claim such that every cluster lies in one fold; folds about equal in claims, seeded.

    Clusters are visited in a seeded random order, largest first, each put in the fold with the fewest
    claims so far (ties to the lower fold): deterministic for a seed.
    """
    ids, sizes = np.unique(clusters, return_counts=True)
    folds = max(1, min(folds, len(ids)))
    order = np.random.default_rng(seed).permutation(len(ids))
    order = order[np.argsort(-sizes[order], kind="stable")]
    load = np.zeros(folds, dtype=np.int64)
    fold_of = {}
    for j in order:
        fold = int(np.argmin(load))
        fold_of[ids[j]] = fold
        load[fold] += sizes[j]
    return np.array([fold_of[c] for c in clusters], dtype=np.int64)
