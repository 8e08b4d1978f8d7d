"""Metrics: scores, bootstrap intervals, why a claim was missed, and ragas interop.

``scores`` (retrieval, span, budget and grounding), ``bootstrap`` (intervals and paired tests),
``diagnostics`` (miss reasons), ``ragas`` (ragas interop). The scores are importable from here, as
they were when this was one module.
"""

from vera_lab.metrics.scores import (
    BUDGETS,
    Interval,
    average_precision,
    best_f1_threshold,
    budget_depth,
    budget_scores,
    chroma_span_scores,
    confusion_by_label,
    confusion_table,
    count_touching,
    gold_ranks,
    grounding_scores,
    precision_omega,
    retrieval_scores,
    roc_auc,
    three_way_scores,
    total,
    touching,
    union,
)

__all__ = [
    "BUDGETS",
    "Interval",
    "average_precision",
    "best_f1_threshold",
    "budget_depth",
    "budget_scores",
    "chroma_span_scores",
    "confusion_by_label",
    "confusion_table",
    "count_touching",
    "gold_ranks",
    "grounding_scores",
    "precision_omega",
    "retrieval_scores",
    "roc_auc",
    "three_way_scores",
    "total",
    "touching",
    "union",
]
