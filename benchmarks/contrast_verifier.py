"""Do rule-made contrastive claims help the verifier? Out-of-fold ROC-AUC with and without them.

Run: .venv/bin/python benchmarks/contrast_verifier.py [--only contractnli-dev|scifact]

Two verifiers per dataset, each cross-fitted by document with the default recipe: one trained on the
labelled claims, one on those claims plus their contrastive twins (``vera_lab.data.contrast``: a
contradicted edit of every supported claim on the same evidence, and a not-mentioned pairing with
another document; a twin shares its original's documents, so it is held out with it). Both score
only the original claims, each by a fold model that never saw its documents, at the main job's
chunking (sentence 300, no overlap; MiniLM int8; k = 5). Printed: ROC-AUC (supported vs not) with a
document-cluster interval for each, the paired difference, and training minutes.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vera_lab import SentenceChunker, load_dataset  # noqa: E402
from vera_lab.data.clusters import document_clusters  # noqa: E402
from vera_lab.data.contrast import contrastive_claims  # noqa: E402
from vera_lab.embedding import get_embedder  # noqa: E402
from vera_lab.evaluation import evaluate  # noqa: E402
from vera_lab.grounding import GroundingParameters  # noqa: E402
from vera_lab.grounding.verifier import fit_verifier  # noqa: E402
from vera_lab.metrics.bootstrap import bootstrap_ci, paired_bootstrap  # noqa: E402

CACHE = ROOT / ".cache" / "vera_lab"
SCOPES = {"contractnli-dev": "cited", "scifact": "corpus"}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", choices=sorted(SCOPES))
    args = parser.parse_args()
    for name in [args.only] if args.only else list(SCOPES):
        dataset = load_dataset(ROOT / "datasets" / name)
        claims = list(dataset.claims)
        twins = contrastive_claims(claims, dataset.corpus)
        scorer = GroundingParameters(k=5, threshold="calibrate", scope=SCOPES[name], scorer="verifier")
        embedder = get_embedder("minilm-int8", cache_dir=CACHE)
        clusters = document_clusters(claims)
        rows = {}
        print(f"{name}: {len(claims)} claims, {len(twins)} contrastive twins "
              f"({sum(t.label == 'contradicted' for t in twins)} contradicted, "
              f"{sum(t.label == 'unsupported' for t in twins)} not mentioned)", flush=True)  # fmt: skip
        for arm, training in (("labelled claims", claims), ("+ contrastive twins", claims + twins)):
            start = time.perf_counter()
            verifier = fit_verifier(training, dataset.corpus, cache_dir=CACHE)
            trained = (time.perf_counter() - start) / 60
            result = evaluate(dataset, SentenceChunker(size=300, overlap=0), embedder, scorer, verifier)
            rows[arm] = result.per_claim
            low, high = bootstrap_ci(result.per_claim, "grounding_roc_auc", clusters=clusters)
            recall = result.metrics.get("verdict_contradicted_recall", float("nan"))
            auc = f"ROC-AUC {result.metrics['grounding_roc_auc']:.3f} [{low:.3f}, {high:.3f}]"
            took = f"trained (or loaded) in {trained:.1f} min"
            print(f"  {arm:20s} {auc}, contradicted recall {recall:.3f}; {took}", flush=True)
        diff = paired_bootstrap(rows["+ contrastive twins"], rows["labelled claims"], "grounding_roc_auc",
                                clusters=clusters)  # fmt: skip
        print(f"  difference {diff['diff']:+.3f} [{diff['ci_low']:+.3f}, {diff['ci_high']:+.3f}], "
              f"p={diff['p_value']:.3f}")  # fmt: skip


if __name__ == "__main__":
    main()
