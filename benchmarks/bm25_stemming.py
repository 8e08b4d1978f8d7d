"""Should BM25 stem? Budget recall and MRR of BM25 with and without a Snowball stemmer.

BM25 tokenises to lower-cased letter/digit runs (CJK: characters and pairs). A stemmer folds "disclose",
"disclosed" and "disclosure" together; whether that finds more evidence or more noise is measured
here on the labelled sets there are, chunked into sentences of 300 characters: the decision was taken
on ContractNLI dev (scope cited: each claim's contract), SciFact (all 5,183 abstracts) and chroma-eval
(5 long documents); ContractNLI test, the main job's held-out set, is printed last. Paired
differences resample whole documents. Only English has labelled retrieval data here; for the other
languages the stemmer is not measured, and BM25 leaves their words as written.

    .venv/bin/python benchmarks/bm25_stemming.py
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import vera_lab.retrieval.lexical as lexical  # noqa: E402
from vera_lab import SentenceChunker, load_dataset  # noqa: E402
from vera_lab.data.clusters import document_clusters  # noqa: E402
from vera_lab.embedding.hashing import HashingEmbedder  # noqa: E402
from vera_lab.evaluation import evaluate  # noqa: E402
from vera_lab.grounding import GroundingParameters  # noqa: E402
from vera_lab.metrics.bootstrap import paired_bootstrap  # noqa: E402
from vera_lab.retrieval import parse_pipeline  # noqa: E402

SETS = ("contractnli-dev", "scifact", "chroma-eval", "contractnli-test")


def main() -> None:
    stemmed = lexical.stemmer
    print(f"{'dataset':<18}{'metric':<15}{'plain':>8}{'stemmed':>9}   difference [95% CI]   p")
    for name in SETS:
        data = load_dataset(ROOT / "datasets" / name)
        params = GroundingParameters(k=5, scope=data.scope or "corpus")
        rows = {}
        for label, stemmer in (("plain", lambda language: None), ("stemmed", stemmed)):
            lexical.stemmer = stemmer  # the BM25 index asks the module for its stemmer when built
            result = evaluate(data, SentenceChunker(size=300, overlap=0), HashingEmbedder(64), params,
                              pipeline=parse_pipeline("bm25"))  # fmt: skip
            rows[label] = result.per_claim
        lexical.stemmer = stemmed
        clusters = document_clusters(list(data.claims))
        for metric in ("budget_recall", "mrr"):
            column = "rr" if metric == "mrr" else metric
            a, b = rows["plain"][column].mean(), rows["stemmed"][column].mean()
            test = paired_bootstrap(rows["stemmed"], rows["plain"], metric, clusters=clusters)
            print(f"{name:<18}{metric:<15}{a:>8.3f}{b:>9.3f}   {test['diff']:+.3f} "
                  f"[{test['ci_low']:+.3f}, {test['ci_high']:+.3f}]   {test['p_value']:.3f}")  # fmt: skip


if __name__ == "__main__":
    main()
