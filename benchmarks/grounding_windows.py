"""Does grounding change when the verifier reads what the reader receives (the expanded window)?

Run: .venv/bin/python benchmarks/grounding_windows.py [--documents 30]

Sentence 300 chunks, dense MiniLM int8 retrieval, ``expand: window:1`` (one neighbouring chunk on each
side), k=5, on a seeded sample of ContractNLI test contracts, which the shipped verifier never read.
The verifier scores each claim twice: reading the windows (what vera_lab does now) and reading the
chunks found (what it did before, reproduced here by handing it the chunks). Printed: ROC-AUC and
out-of-fold F1 with document-cluster intervals, and the paired difference.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from unittest.mock import patch

from vera_lab.chunking import SentenceChunker
from vera_lab.data import load_dataset, sample_dataset
from vera_lab.data.clusters import document_clusters
from vera_lab.embedding import get_embedder
from vera_lab.evaluation import evaluate, stages
from vera_lab.grounding import GroundingParameters
from vera_lab.grounding.general import load_verifier
from vera_lab.metrics.bootstrap import bootstrap_ci, paired_bootstrap
from vera_lab.retrieval import parse_pipeline

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--documents", type=int, default=30)
    parser.add_argument("--cache-dir", default=str(ROOT / ".cache" / "vera_lab"))
    args = parser.parse_args()
    dataset = sample_dataset(load_dataset(ROOT / "datasets" / "contractnli-test"), documents=args.documents)
    chunker, pipeline = SentenceChunker(size=300, overlap=0), parse_pipeline(expand="window:1")
    embedder = get_embedder("minilm-int8", cache_dir=args.cache_dir)
    verifier = load_verifier("general", args.cache_dir)
    scorer = GroundingParameters(k=5, threshold="calibrate", scope="cited", scorer="verifier")
    clusters = document_clusters(list(dataset.claims))
    windows = evaluate(dataset, chunker, embedder, scorer, verifier, pipeline)
    with patch.object(stages, "received", lambda chunks, reader, dataset: chunks):
        chunks = evaluate(dataset, chunker, embedder, scorer, verifier, pipeline)
    print(f"{len(dataset.claims)} claims over {args.documents} ContractNLI test contracts; sentence 300/0, "
          "window:1, k=5, general verifier")  # fmt: skip
    for name, result in (("reads the window", windows), ("reads the chunk", chunks)):
        rows = result.per_claim
        auc = bootstrap_ci(rows, "grounding_roc_auc", clusters=clusters)
        f1 = bootstrap_ci(rows, "grounding_f1", clusters=clusters)
        print(f"{name:<17} ROC-AUC {result.metrics['grounding_roc_auc']:.3f} [{auc[0]:.3f}, {auc[1]:.3f}]   "
              f"F1 {result.metrics['grounding_f1']:.3f} [{f1[0]:.3f}, {f1[1]:.3f}]")  # fmt: skip
    for metric in ("grounding_roc_auc", "grounding_f1"):
        d = paired_bootstrap(windows.per_claim, chunks.per_claim, metric, clusters=clusters)
        print(f"window - chunk, {metric}: {d['diff']:+.3f} [{d['ci_low']:+.3f}, {d['ci_high']:+.3f}]")


if __name__ == "__main__":
    main()
