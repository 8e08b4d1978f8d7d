"""Our metrics against scikit-learn on the same arrays, and span metrics against hand computation."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sklearn import metrics as skm

from vera_lab.metrics import (
    best_f1_threshold,
    chroma_span_scores,
    confusion_by_label,
    grounding_scores,
    precision_omega,
    retrieval_scores,
)
from vera_lab.types import Span

labels_and_scores = st.integers(1, 60).flatmap(
    lambda n: st.tuples(
        st.lists(st.booleans(), min_size=n, max_size=n),
        st.lists(st.sampled_from([0.1, 0.2, 0.35, 0.5, 0.7, 0.71, 0.9]), min_size=n, max_size=n),
        st.floats(0, 1),
    )
)


@given(labels_and_scores)
def test_grounding_metrics_equal_sklearn(case):
    y_true, scores, threshold = np.array(case[0]), np.array(case[1]), case[2]
    y_pred = scores >= threshold
    ours = grounding_scores(y_true, y_pred, scores)
    assert ours["accuracy"] == pytest.approx(skm.accuracy_score(y_true, y_pred))
    assert ours["precision"] == pytest.approx(skm.precision_score(y_true, y_pred, zero_division=0))
    assert ours["recall"] == pytest.approx(skm.recall_score(y_true, y_pred, zero_division=0))
    assert ours["f1"] == pytest.approx(skm.f1_score(y_true, y_pred, zero_division=0))
    if len(set(y_true)) == 2:
        assert ours["balanced_accuracy"] == pytest.approx(skm.balanced_accuracy_score(y_true, y_pred))
        assert ours["roc_auc"] == pytest.approx(skm.roc_auc_score(y_true, scores))
    else:
        assert np.isnan(ours["roc_auc"])
    if y_true.any():
        assert ours["pr_auc"] == pytest.approx(skm.average_precision_score(y_true, scores))


@given(labels_and_scores)
def test_calibrated_threshold_maximises_f1(case):
    y_true, scores = np.array(case[0]), np.array(case[1])
    threshold, f1 = best_f1_threshold(y_true, scores)
    brute = max(skm.f1_score(y_true, scores >= t, zero_division=0) for t in set(scores.tolist()))
    assert f1 == pytest.approx(brute)
    assert skm.f1_score(y_true, scores >= threshold, zero_division=0) == pytest.approx(f1)


def S(start, end, doc="d"):
    return Span(doc, start, end)


def test_span_metrics_overlapping_chunks_count_again_in_precision():
    # Two overlapping chunks [0,100) and [50,150) both cover reference [40,60).
    recall, precision, iou = chroma_span_scores([S(0, 100), S(50, 150)], [S(40, 60)])
    assert recall == 1.0
    assert precision == pytest.approx(20 / 200)
    assert iou == pytest.approx(20 / 200)


def test_span_metrics_reference_across_a_chunk_boundary():
    # Reference [90,130) crosses the boundary of chunks [0,100) and [100,200); only the first retrieved.
    recall, precision, iou = chroma_span_scores([S(0, 100)], [S(90, 130)])
    assert recall == pytest.approx(10 / 40)
    assert precision == pytest.approx(10 / 100)
    assert iou == pytest.approx(10 / (100 + 30))


def test_span_metrics_several_references_and_documents():
    refs = [S(10, 20), S(300, 340), S(0, 10, doc="e")]
    chunks = [S(0, 50), S(320, 420), S(0, 100, doc="x")]
    recall, precision, iou = chroma_span_scores(chunks, refs)
    covered = 10 + 20  # [10,20) and [320,340); doc e not retrieved
    assert recall == pytest.approx(covered / 60)
    assert precision == pytest.approx(covered / 250)
    assert iou == pytest.approx(covered / (250 + 20 + 10))


def test_span_metrics_nothing_retrieved():
    assert chroma_span_scores([S(500, 600)], [S(0, 10)]) == (0.0, 0.0, 0.0)


def test_precision_omega_hand_computed():
    chunks = {"d": np.array([[0, 100], [80, 180], [160, 260]])}
    # Reference [90,120) lies in chunks 0 and 1: covered 30 chars, union of those chunks [0,180).
    assert precision_omega(chunks, [S(90, 120)]) == pytest.approx(30 / 180)
    # [150,160) lies in chunk 1 and touches chunk 2 at 160; Chroma counts touching chunks, so the
    # denominator is [80,260) (180 chars), not chunk 1 alone (100 chars).
    assert precision_omega(chunks, [S(150, 160)]) == pytest.approx(10 / 180)


def test_retrieval_scores_hand_computed():
    gold = [[S(100, 200), S(500, 600)]]
    retrieved = [[S(0, 90), S(150, 180), S(550, 700)]]  # rank 2 covers 30% of span 1, rank 3 half of span 2
    out = retrieval_scores(retrieved, gold, n_relevant=[2])
    assert out["hit"][0] == 1.0
    assert out["strict_hit"][0] == 1.0  # [550,600) is 50 of 100 chars of the second span
    assert out["evidence_recall"][0] == 1.0
    assert out["rr"][0] == 0.5
    ideal = 1 + 1 / np.log2(3)
    assert out["ndcg"][0] == pytest.approx((1 / np.log2(3) + 1 / np.log2(4)) / ideal)
    miss = retrieval_scores([[S(0, 10)]], [[S(20, 30)]], n_relevant=[1])
    assert miss["hit"][0] == 0 and miss["rr"][0] == 0 and miss["ndcg"][0] == 0


def test_confusion_by_label():
    table = confusion_by_label(["supported", "contradicted", "contradicted"], [True, True, False])
    assert table == {
        "supported": {"grounded": 1, "not_grounded": 0},
        "contradicted": {"grounded": 1, "not_grounded": 1},
    }
