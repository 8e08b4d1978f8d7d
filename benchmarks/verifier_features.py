"""Does the general verifier read better kept as a feature beside cosine? (Not wired into a scorer yet.)

At the main job's recommendation (sentence 300/0, MiniLM int8, k = 5), each claim gets its cosine
score (max over the top 5) and the general verifier's mean probabilities over the same chunks. A
logistic model on those four numbers is fitted out of fold (5 folds of document clusters, so no claim
is scored by a model fitted on its documents), as the learned scorer is. Prints ROC-AUC of cosine, of
the verifier alone and of the combination, with 95% intervals that resample document clusters.

    .venv/bin/python benchmarks/verifier_features.py
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vera_lab import SentenceChunker, load_dataset  # noqa: E402
from vera_lab.data.clusters import document_clusters  # noqa: E402
from vera_lab.embedding import get_embedder  # noqa: E402
from vera_lab.evaluation import evaluate  # noqa: E402
from vera_lab.grounding import GroundingParameters  # noqa: E402
from vera_lab.grounding.general import load_verifier  # noqa: E402
from vera_lab.metrics import roc_auc  # noqa: E402

CACHE = ROOT / ".cache" / "vera_lab"


def out_of_fold(x: np.ndarray, y: np.ndarray, groups: np.ndarray, folds: int = 5) -> np.ndarray:
    """Each claim's probability from a logistic model fitted without its document cluster."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import GroupKFold

    out = np.zeros(len(y))
    for train, test in GroupKFold(folds).split(x, y, groups):
        out[test] = LogisticRegression().fit(x[train], y[train]).predict_proba(x[test])[:, 1]
    return out


def cluster_interval(
    y: np.ndarray, score: np.ndarray, groups: np.ndarray, n: int = 1000
) -> tuple[float, float]:
    """95% interval of ROC-AUC, resampling whole clusters (seeded)."""
    rng = np.random.default_rng(0)
    members = [np.flatnonzero(groups == g) for g in np.unique(groups)]
    values = []
    for _ in range(n):
        rows = np.concatenate([members[i] for i in rng.integers(0, len(members), len(members))])
        if 0 < y[rows].sum() < len(rows):
            values.append(roc_auc(y[rows], score[rows]))
    return float(np.percentile(values, 2.5)), float(np.percentile(values, 97.5))


def main() -> None:
    verifier = load_verifier("general", CACHE)
    embedder = get_embedder("minilm-int8", cache_dir=CACHE)
    chunker = SentenceChunker(size=300, overlap=0)
    for name in ("contractnli-test", "scifact"):
        data = load_dataset(ROOT / "datasets" / name)
        scope = data.scope or "corpus"
        cosine = evaluate(
            data, chunker, embedder, GroundingParameters(k=5, threshold="calibrate", scope=scope)
        )
        judge = GroundingParameters(k=5, threshold="calibrate", scope=scope, scorer="verifier")
        read = evaluate(data, chunker, embedder, judge, verifier)
        y = np.array([c.label == "supported" for c in data.claims])
        groups = np.asarray(document_clusters(list(data.claims)))
        probabilities = read.per_claim[["p_supported", "p_contradicted", "p_not_mentioned"]]
        features = np.column_stack([cosine.per_claim["score"], probabilities])
        scores = {"cosine": features[:, 0], "verifier": features[:, 1],
                  "both, out of fold": out_of_fold(features, y, groups)}  # fmt: skip
        print(f"\n{name}: {len(y)} claims, {len(np.unique(groups))} document clusters")
        for label, score in scores.items():
            low, high = cluster_interval(y, score, groups)
            print(f"  {label:<18} ROC-AUC {roc_auc(y, score):.3f} [{low:.3f}, {high:.3f}]", flush=True)


if __name__ == "__main__":
    main()
