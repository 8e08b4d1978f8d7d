"""Bootstrap confidence intervals and paired comparisons over per-claim result rows.

Retrieval and span metrics are means of per-claim values (claims with gold evidence); grounding
metrics are recomputed from each resample's labels, decisions and scores. Claims resample one by one,
or, given ``clusters`` (a cluster id per row: the document a claim is about), whole clusters at a
time, since claims about one document are not independent.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import numpy as np
import pandas as pd

from vera_lab.metrics import BUDGETS, average_precision, roc_auc

PER_CLAIM_COLUMN = {
    "hit": "hit", "strict_hit": "strict_hit", "evidence_recall": "evidence_recall", "mrr": "rr",
    "ndcg": "ndcg", "span_recall": "span_recall", "span_precision": "span_precision", "span_iou": "span_iou",
    "budget_recall": "budget_recall",
    **{f"{m}_at_{b}": f"{m}_at_{b}" for m in ("recall", "hit") for b in BUDGETS},
}  # fmt: skip


def metric_samples(rows: pd.DataFrame, metric: str, resamples: np.ndarray) -> np.ndarray:
    """The metric on each resample: an (n_boot, n_rows) array of row indices, or of draw weights.

    Integer arrays list the rows each resample drew; float arrays (cluster resamples) say how many
    times each row was drawn, so whole clusters weigh in without ragged index lists.
    """
    weighted = np.issubdtype(resamples.dtype, np.floating)
    if metric in PER_CLAIM_COLUMN:
        values = rows[PER_CLAIM_COLUMN[metric]].to_numpy(dtype=np.float64)
        if not np.isfinite(values).any():
            return np.full(len(resamples), np.nan)
        if weighted:  # a claim without evidence (NaN) is no draw: as nanmean leaves it out
            finite = np.isfinite(values)
            with np.errstate(invalid="ignore", divide="ignore"):
                return (resamples @ np.where(finite, values, 0.0)) / (resamples @ finite)
        with warnings.catch_warnings():  # a resample may hold no claim with evidence: NaN is right
            warnings.simplefilter("ignore", RuntimeWarning)
            return np.nanmean(values[resamples], axis=1)
    y_true = (rows["label"] == "supported").to_numpy()
    y_pred = rows["grounded"].to_numpy(dtype=bool)
    if metric in CONFUSION_METRICS:
        if weighted:
            cells = ((y_true, y_pred), (~y_true, y_pred), (y_true, ~y_pred), (~y_true, ~y_pred))
            tp, fp, fn, tn = (resamples @ (a & b) for a, b in cells)
        else:
            t, p = y_true[resamples], y_pred[resamples]
            tp, fp, fn, tn = ((t & p).sum(1), (~t & p).sum(1), (t & ~p).sum(1), (~t & ~p).sum(1))
        return _confusion_metric(metric, tp, fp, fn, tn)
    func = {"grounding_roc_auc": roc_auc, "grounding_pr_auc": average_precision}.get(metric)
    if func is None:
        raise ValueError(f"no bootstrap for metric {metric!r}")
    scores = rows["score"].to_numpy(dtype=np.float64)
    if weighted:  # rank metrics need the drawn rows themselves
        drawn = [np.repeat(np.arange(len(rows)), w.astype(np.int64)) for w in resamples]
        return np.array([func(y_true[d], scores[d]) for d in drawn])
    return np.array([func(t, s) for t, s in zip(y_true[resamples], scores[resamples], strict=True)])


CONFUSION_METRICS = ("grounding_f1", "grounding_accuracy", "grounding_balanced_accuracy")


def _confusion_metric(metric: str, tp, fp, fn, tn) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        if metric == "grounding_f1":
            return np.where(2 * tp + fp + fn > 0, 2 * tp / (2 * tp + fp + fn), 0.0)
        if metric == "grounding_accuracy":
            return (tp + tn) / (tp + fp + fn + tn)
        tpr = np.where(tp + fn > 0, tp / (tp + fn), np.nan)
        tnr = np.where(tn + fp > 0, tn / (tn + fp), np.nan)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            return np.nanmean(np.stack([tpr, tnr]), axis=0)


def _resamples(n_rows: int, n_boot: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, n_rows, size=(n_boot, n_rows))


def _cluster_resamples(clusters: Sequence, n_boot: int, seed: int) -> np.ndarray:
    """Draw weights of ``n_boot`` resamples that draw whole clusters with replacement, (n_boot, n_rows)."""
    _, inverse = np.unique(np.asarray(clusters), return_inverse=True)
    n_clusters = int(inverse.max()) + 1 if len(inverse) else 0
    draws = np.random.default_rng(seed).integers(0, n_clusters, size=(n_boot, n_clusters))
    counts = np.zeros((n_boot, n_clusters))
    np.add.at(counts, (np.arange(n_boot)[:, None], draws), 1.0)
    return counts[:, inverse]


def resamples_for(n_rows: int, n_boot: int, seed: int, clusters: Sequence | None = None) -> np.ndarray:
    """Claim-level resamples (row indices), or cluster-level ones (draw weights) given ``clusters``."""
    return (
        _resamples(n_rows, n_boot, seed) if clusters is None else _cluster_resamples(clusters, n_boot, seed)
    )


def bootstrap_ci(
    rows: pd.DataFrame, metric: str, n_boot: int = 1000, seed: int = 0, clusters: Sequence | None = None
) -> tuple[float, float]:
    """95% percentile interval of ``metric`` over claims (or ``clusters``) resampled with replacement."""
    samples = metric_samples(rows, metric, resamples_for(len(rows), n_boot, seed, clusters))
    samples = samples[np.isfinite(samples)]
    if samples.size == 0:
        return float("nan"), float("nan")
    lo, hi = np.percentile(samples, [2.5, 97.5])
    return float(lo), float(hi)


def paired_bootstrap(
    rows_a: pd.DataFrame,
    rows_b: pd.DataFrame,
    metric: str,
    n_boot: int = 2000,
    seed: int = 0,
    clusters: Sequence | None = None,
) -> dict[str, float | bool]:
    """Difference ``metric(a) - metric(b)`` on the same resampled claims, with a 95% interval.

    ``clusters`` (one per row of ``rows_a``) resamples whole clusters instead of claims. The difference
    is significant when the interval excludes 0; ``p_value`` is two-sided.
    """
    b = rows_b.set_index("claim_id").loc[rows_a["claim_id"]].reset_index()
    resamples = resamples_for(len(rows_a), n_boot, seed, clusters)
    diff = metric_samples(rows_a, metric, resamples) - metric_samples(b, metric, resamples)
    diff = diff[np.isfinite(diff)]
    observed = float(metric_samples(rows_a, metric, np.arange(len(rows_a))[None])[0]) - float(
        metric_samples(b, metric, np.arange(len(b))[None])[0]
    )
    if diff.size == 0:
        return {
            "diff": observed,
            "ci_low": float("nan"),
            "ci_high": float("nan"),
            "p_value": 1.0,
            "significant": False,
        }
    lo, hi = np.percentile(diff, [2.5, 97.5])
    p_value = min(1.0, 2 * min((diff <= 0).mean(), (diff >= 0).mean()))
    return {
        "diff": observed,
        "ci_low": float(lo),
        "ci_high": float(hi),
        "p_value": float(p_value),
        "significant": bool(lo > 0 or hi < 0),
    }


def holm(p_values: Sequence[float], alpha: float = 0.05) -> np.ndarray:
    """Holm's step-down correction: which hypotheses are rejected with family-wise error ``alpha``.

    Sorted ascending, the i-th smallest p-value (from 0) is compared with ``alpha / (m - i)``;
    rejection stops at the first that fails. Stronger than Bonferroni, valid under any dependence.
    """
    p = np.asarray(p_values, dtype=np.float64)
    reject = np.zeros(len(p), dtype=bool)
    for i, index in enumerate(np.argsort(p, kind="stable")):
        if p[index] > alpha / (len(p) - i):
            break
        reject[index] = True
    return reject


def holm_adjusted(p_values: Sequence[float]) -> np.ndarray:
    """Holm-adjusted p-values (reject at ``alpha`` exactly when the adjusted value is <= ``alpha``)."""
    p = np.asarray(p_values, dtype=np.float64)
    order = np.argsort(p, kind="stable")
    scaled = np.minimum(1.0, np.maximum.accumulate(p[order] * (len(p) - np.arange(len(p)))))
    out = np.empty(len(p))
    out[order] = scaled
    return out
