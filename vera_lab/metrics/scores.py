"""Metrics as pure functions over spans and arrays: retrieval, Chroma's span metrics, grounding.

Nothing here reads files or knows about chunkers; per-claim values are returned as arrays so a
caller can average them or bootstrap them.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from vera_lab.types import LABELS, Span

Interval = tuple[int, int]


# --- intervals -------------------------------------------------------------------------------


def union(intervals: Sequence[Interval]) -> list[Interval]:
    """Merge intervals that overlap or touch."""
    merged: list[Interval] = []
    for start, end in sorted(intervals):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def total(intervals: Sequence[Interval]) -> int:
    """Sum of lengths (overlaps counted again)."""
    return sum(e - s for s, e in intervals)


def _subtract(intervals: list[Interval], cut: Interval) -> list[Interval]:
    out = []
    for s, e in intervals:
        if e <= cut[0] or s >= cut[1]:
            out.append((s, e))
        else:
            if s < cut[0]:
                out.append((s, cut[0]))
            if e > cut[1]:
                out.append((cut[1], e))
    return out


def _overlap(a: Span, b: Span) -> int:
    return max(0, min(a.end, b.end) - max(a.start, b.start)) if a.doc_id == b.doc_id else 0


# --- retrieval -------------------------------------------------------------------------------


def retrieval_scores(
    retrieved: Sequence[Sequence[Span]], gold: Sequence[Sequence[Span]], n_relevant: Sequence[int]
) -> dict[str, np.ndarray]:
    """Per-claim retrieval metrics for the retrieved chunk spans (best first) against gold spans.

    A chunk is relevant when it shares at least one character with a gold span.
    - ``hit``: some retrieved chunk is relevant; ``strict_hit``: some chunk covers >= 50% of a gold span;
    - ``evidence_recall``: share of gold spans touched by some retrieved chunk;
    - ``rr``: 1 / rank of the first relevant chunk (0 if none), whose mean is MRR;
    - ``ndcg``: binary-relevance nDCG over the retrieved list; the ideal list holds
      ``min(len(retrieved), n_relevant)`` relevant chunks, ``n_relevant`` being the number of
      relevant chunks the search could have returned.
    """
    rows = {name: [] for name in ("hit", "strict_hit", "evidence_recall", "rr", "ndcg")}
    for chunks, spans, n_rel in zip(retrieved, gold, n_relevant, strict=True):
        overlaps = np.array([[_overlap(c, g) for g in spans] for c in chunks], dtype=np.int64).reshape(
            len(chunks), len(spans)
        )
        relevant = overlaps.sum(axis=1) > 0
        lengths = np.array([len(g) for g in spans], dtype=np.float64)
        rows["hit"].append(float(relevant.any()))
        rows["strict_hit"].append(float(bool(len(spans)) and (overlaps >= 0.5 * lengths).any()))
        rows["evidence_recall"].append(float((overlaps > 0).any(axis=0).mean()) if len(spans) else 0.0)
        first = np.flatnonzero(relevant)
        rows["rr"].append(1.0 / (first[0] + 1) if first.size else 0.0)
        discounts = 1.0 / np.log2(np.arange(2, len(chunks) + 2))
        ideal = discounts[: min(len(chunks), n_rel)].sum()
        rows["ndcg"].append(float((discounts * relevant).sum() / ideal) if ideal > 0 else 0.0)
    return {name: np.array(values) for name, values in rows.items()}


BUDGETS = (500, 1000, 2000, 4000)  # characters of context handed to a reader


def budget_scores(
    retrieved: Sequence[Span], gold: Sequence[Span], budgets: Sequence[int] = BUDGETS
) -> dict[str, list[float]]:
    """Evidence recall and hit at fixed context budgets, for one claim.

    Retrieved chunks (best first) are taken until ``B`` characters are filled, the last one cut at
    the budget; characters of overlapping chunks count each time they are handed over. Per budget:
    ``recall`` is the share of gold characters inside the context, ``hit`` is 1 when some gold span
    is at least half inside it. A fixed k favours big chunks; a fixed budget does not.

    One pass over the ranking marks the gold characters it covers, and each budget reads the marks
    where the context reaches it (the contexts of the budgets are prefixes of one another).
    """
    merged: dict[str, list[Interval]] = {}
    for g in gold:
        merged.setdefault(g.doc_id, []).append((g.start, g.end))
    merged = {d: union(v) for d, v in merged.items()}
    gold_total = sum(total(v) for v in merged.values())
    marks = {d: [np.zeros(e - s, dtype=bool) for s, e in v] for d, v in merged.items()}
    # each gold span as (its merged interval's marks, offset into them), for the half-inside test
    spans = []
    for g in gold:
        k = next(i for i, (s, e) in enumerate(merged[g.doc_id]) if s <= g.start and g.end <= e)
        spans.append((marks[g.doc_id][k], g.start - merged[g.doc_id][k][0], len(g)))

    def mark(doc_id: str, lo: int, hi: int) -> None:
        for (s, e), covered in zip(merged.get(doc_id, ()), marks.get(doc_id, ()), strict=True):
            a, b = max(s, lo), min(e, hi)
            if a < b:
                covered[a - s : b - s] = True

    def record() -> tuple[float, float]:
        inside = sum(int(m.sum()) for ms in marks.values() for m in ms)
        hit = any(length > 0 and 2 * int(m[o : o + length].sum()) >= length for m, o, length in spans)
        return (inside / gold_total if gold_total else 0.0), float(hit)

    order = sorted(range(len(budgets)), key=lambda i: budgets[i])
    at: dict[int, tuple[float, float]] = {}
    consumed, next_budget = 0, 0
    for chunk in retrieved:
        if next_budget == len(order):
            break
        applied, length = 0, len(chunk)
        while next_budget < len(order) and consumed + length - applied >= budgets[order[next_budget]]:
            upto = budgets[order[next_budget]] - consumed  # the chunk cut where this budget ends
            if upto > 0:
                mark(chunk.doc_id, chunk.start + applied, chunk.start + applied + upto)
            applied, consumed = applied + max(upto, 0), consumed + max(upto, 0)
            at[order[next_budget]] = record()
            next_budget += 1
        if next_budget < len(order) and length > applied:
            mark(chunk.doc_id, chunk.start + applied, chunk.end)
            consumed += length - applied
    final = record()
    return {
        "recall": [at.get(i, final)[0] for i in range(len(budgets))],
        "hit": [at.get(i, final)[1] for i in range(len(budgets))],
    }


def budget_depth(lengths: Sequence[int], budget: int) -> int:
    """How many retrieved chunks always fill ``budget`` characters.

    Any ``d`` chunks hold at least as many characters as the ``d`` shortest, so ``d`` is the fewest
    shortest chunks that reach the budget (every chunk when even all of them do not).
    """
    filled = np.cumsum(np.sort(np.asarray(lengths, dtype=np.int64)))
    return int(min(len(filled), np.searchsorted(filled, budget) + 1)) if len(filled) else 0


def touching(chunks: Sequence[Span], gold: Sequence[Span]) -> list[int]:
    """Indices of the chunks that share at least one character with a gold span (the relevant ones)."""
    return [i for i, c in enumerate(chunks) if any(_overlap(c, g) > 0 for g in gold)]


def count_touching(chunk_arrays: dict[str, np.ndarray], docs: Sequence[str], gold: Sequence[Span]) -> int:
    """How many chunks of ``docs`` share a character with a gold span (``len(touching(...))``, vectorised).

    ``chunk_arrays`` holds each document's chunks as ``(start, end)`` rows.
    """
    count = 0
    for doc_id in dict.fromkeys(docs):
        rows = chunk_arrays.get(doc_id)
        if rows is None or not len(rows):
            continue
        hit = np.zeros(len(rows), dtype=bool)
        for g in gold:
            if g.doc_id == doc_id:
                hit |= (np.minimum(rows[:, 1], g.end) - np.maximum(rows[:, 0], g.start)) > 0
        count += int(hit.sum())
    return count


def gold_ranks(retrieved: Sequence[Span], gold: Sequence[Span]) -> list[int | None]:
    """For each gold span, the 1-based rank of the first retrieved chunk that touches it (None if none)."""
    ranks: list[int | None] = []
    for g in gold:
        rank = next((r for r, c in enumerate(retrieved, 1) if _overlap(c, g) > 0), None)
        ranks.append(rank)
    return ranks


# --- Chroma's span metrics ---------------------------------------------------------------------


def _touches(a: Interval, b: Interval) -> bool:
    # Chroma's intersect_two_ranges accepts an empty intersection (start == end), so a chunk that
    # only touches a reference counts as intersecting it; kept for exact agreement.
    return max(a[0], b[0]) <= min(a[1], b[1])


def chroma_span_scores(retrieved: Sequence[Span], references: Sequence[Span]) -> tuple[float, float, float]:
    """Recall, precision and IoU of one query as in Chroma's chunking evaluation.

    numerator = characters of the references covered by the retrieved chunks (union);
    recall = numerator / summed reference lengths; precision = numerator / summed retrieved chunk
    lengths (overlapping chunks count again); IoU = numerator / (retrieved lengths + reference
    characters no chunk covers).
    """
    covered: list[tuple[str, int, int]] = []
    unused = [(r.doc_id, r.start, r.end) for r in references]
    for chunk in retrieved:
        for ref in references:
            if ref.doc_id == chunk.doc_id and _touches((chunk.start, chunk.end), (ref.start, ref.end)):
                cut = (max(chunk.start, ref.start), min(chunk.end, ref.end))
                covered.append((ref.doc_id, *cut))
                unused = [
                    (d, *iv)
                    for d, s, e in unused
                    for iv in ([(s, e)] if d != ref.doc_id else _subtract([(s, e)], cut))
                ]
    numerator = sum(
        total(union([(s, e) for d2, s, e in covered if d2 == d])) for d in {d for d, _, _ in covered}
    )
    retrieved_chars = sum(len(c) for c in retrieved)
    reference_chars = sum(len(r) for r in references)
    unused_chars = sum(e - s for _, s, e in unused)
    recall = numerator / reference_chars if reference_chars else 0.0
    precision = numerator / retrieved_chars if retrieved_chars else 0.0
    denominator = retrieved_chars + unused_chars
    return recall, precision, (numerator / denominator if denominator else 0.0)


def precision_omega(chunks_of_doc: dict[str, np.ndarray], references: Sequence[Span]) -> float:
    """Chroma's precision_omega: the IoU reached if exactly the chunks touching a reference were retrieved.

    ``chunks_of_doc`` maps doc id to an (n, 2) array of chunk [start, end) spans.
    """
    numerator = 0
    denominator = 0
    for doc_id in dict.fromkeys(r.doc_id for r in references):
        refs = [(r.start, r.end) for r in references if r.doc_id == doc_id]
        spans = chunks_of_doc.get(doc_id, np.zeros((0, 2), dtype=np.int64))
        hit_chunks: list[Interval] = []
        covered: list[Interval] = []
        unused = list(refs)
        for s, e in refs:
            mask = (
                (np.maximum(spans[:, 0], s) <= np.minimum(spans[:, 1], e))
                if len(spans)
                else np.zeros(0, bool)
            )
            for cs, ce in spans[mask].tolist():
                cut = (max(cs, s), min(ce, e))
                covered.append(cut)
                hit_chunks.append((cs, ce))
                unused = _subtract(unused, cut)
        numerator += total(union(covered))
        denominator += total(union(hit_chunks + unused))
    return numerator / denominator if denominator else 0.0


# --- grounding -------------------------------------------------------------------------------


def _rank_average(values: np.ndarray) -> np.ndarray:
    """1-based ranks with ties given their average rank."""
    order = np.argsort(values, kind="mergesort")
    sorted_values = values[order]
    ranks = np.empty(len(values), dtype=np.float64)
    starts = np.flatnonzero(np.r_[True, sorted_values[1:] != sorted_values[:-1]])
    ends = np.r_[starts[1:], len(values)]
    for s, e in zip(starts, ends, strict=True):
        ranks[order[s:e]] = (s + e + 1) / 2
    return ranks


def roc_auc(y_true: np.ndarray, scores: np.ndarray) -> float:
    """Area under the ROC curve by the rank-sum statistic (ties count half); NaN with one class."""
    y_true = np.asarray(y_true, dtype=bool)
    n_pos, n_neg = int(y_true.sum()), int((~y_true).sum())
    if n_pos == 0 or n_neg == 0:
        return float("nan")
    ranks = _rank_average(np.asarray(scores, dtype=np.float64))
    return float((ranks[y_true].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


def average_precision(y_true: np.ndarray, scores: np.ndarray) -> float:
    """PR-AUC as average precision: sum over score thresholds of (recall gain) x precision."""
    y_true = np.asarray(y_true, dtype=bool)
    n_pos = int(y_true.sum())
    if n_pos == 0:
        return float("nan")
    order = np.argsort(-np.asarray(scores, dtype=np.float64), kind="mergesort")
    sorted_scores, sorted_true = np.asarray(scores)[order], y_true[order]
    last_of_group = np.r_[sorted_scores[1:] != sorted_scores[:-1], True]
    tp = np.cumsum(sorted_true)[last_of_group]
    fp = np.cumsum(~sorted_true)[last_of_group]
    precision = tp / (tp + fp)
    recall = tp / n_pos
    return float(np.sum(np.diff(np.r_[0.0, recall]) * precision))


def grounding_scores(
    y_true: np.ndarray, y_pred: np.ndarray, scores: np.ndarray | None = None
) -> dict[str, float]:
    """Accuracy, precision, recall, F1, balanced accuracy (and ROC-AUC, PR-AUC given scores).

    Positive = grounded (the claim is supported). Undefined ratios are 0, as scikit-learn's
    ``zero_division=0``; balanced accuracy averages the recall of the classes present.
    """
    y_true = np.asarray(y_true, dtype=bool)
    y_pred = np.asarray(y_pred, dtype=bool)
    tp = int((y_true & y_pred).sum())
    fp = int((~y_true & y_pred).sum())
    fn = int((y_true & ~y_pred).sum())
    tn = int((~y_true & ~y_pred).sum())
    n = len(y_true)
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * tp / (2 * tp + fp + fn) if tp + fp + fn else 0.0
    class_recalls = [
        r for r, present in ((recall, tp + fn), (tn / (tn + fp) if tn + fp else 0.0, tn + fp)) if present
    ]
    out = {
        "accuracy": (tp + tn) / n if n else 0.0,
        "precision": precision,
        "recall": recall,
        "f1": f1,
        "balanced_accuracy": float(np.mean(class_recalls)) if class_recalls else 0.0,
    }
    if scores is not None:
        out["roc_auc"] = roc_auc(y_true, scores)
        out["pr_auc"] = average_precision(y_true, scores)
    return out


def best_f1_threshold(y_true: np.ndarray, scores: np.ndarray) -> tuple[float, float]:
    """The threshold (predict grounded when score >= it) that maximises F1, and that F1.

    Candidates are the observed scores; among equal F1 the highest threshold wins (fewest claims
    called grounded).
    """
    y_true = np.asarray(y_true, dtype=bool)
    scores = np.asarray(scores, dtype=np.float64)
    if len(scores) == 0:
        raise ValueError("cannot calibrate a threshold on an empty claim set")
    order = np.argsort(-scores, kind="mergesort")
    sorted_scores, sorted_true = scores[order], y_true[order]
    last_of_group = np.r_[sorted_scores[1:] != sorted_scores[:-1], True]
    tp = np.cumsum(sorted_true)[last_of_group]
    fp = np.cumsum(~sorted_true)[last_of_group]
    fn = int(y_true.sum()) - tp
    f1 = np.divide(2 * tp, 2 * tp + fp + fn, out=np.zeros(len(tp)), where=(2 * tp + fp + fn) > 0)
    best = int(np.argmax(f1))  # first maximum = highest threshold
    return float(sorted_scores[last_of_group][best]), float(f1[best])


def confusion_by_label(labels: Sequence[str], grounded: Sequence[bool]) -> dict[str, dict[str, int]]:
    """How many claims of each original label were called grounded and not grounded."""
    table = {label: {"grounded": 0, "not_grounded": 0} for label in LABELS}
    for label, g in zip(labels, grounded, strict=True):
        table[label]["grounded" if g else "not_grounded"] += 1
    return {label: counts for label, counts in table.items() if sum(counts.values())}


def three_way_scores(
    gold: Sequence[str], predicted: Sequence[str], classes: Sequence[str]
) -> dict[str, float]:
    """Accuracy, macro-F1 and each class's precision, recall and F1 of a three-way decision.

    Undefined ratios are 0 (scikit-learn's ``zero_division=0``); macro-F1 averages the classes present
    in ``gold`` or ``predicted``, as scikit-learn does when its ``labels`` are left out.
    """
    gold, predicted = np.asarray(gold), np.asarray(predicted)
    out: dict[str, float] = {"accuracy": float((gold == predicted).mean()) if len(gold) else 0.0}
    f1s = []
    for name in classes:
        tp = int(((gold == name) & (predicted == name)).sum())
        fp = int(((gold != name) & (predicted == name)).sum())
        fn = int(((gold == name) & (predicted != name)).sum())
        out[f"{name}_precision"] = tp / (tp + fp) if tp + fp else 0.0
        out[f"{name}_recall"] = tp / (tp + fn) if tp + fn else 0.0
        out[f"{name}_f1"] = 2 * tp / (2 * tp + fp + fn) if tp + fp + fn else 0.0
        if tp + fp + fn:
            f1s.append(out[f"{name}_f1"])
    out["macro_f1"] = float(np.mean(f1s)) if f1s else 0.0
    return out


def confusion_table(
    gold: Sequence[str], predicted: Sequence[str], classes: Sequence[str]
) -> dict[str, dict[str, int]]:
    """How many claims of each gold class got each predicted class (rows: gold, columns: predicted)."""
    table = {g: dict.fromkeys(classes, 0) for g in classes}
    for g, p in zip(gold, predicted, strict=True):
        table[g][p] += 1
    return table
