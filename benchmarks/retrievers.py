"""Does the best chunking change with the retriever? Budget recall under each retrieval pipeline.

Pipelines: dense (MiniLM int8 cosine, today's), bm25, hybrid (reciprocal-rank fusion), hybrid:0.5
(weighted score fusion), dense + window:1 (one neighbouring chunk each side), dense + headers (title
and section embedded with the chunk) and hybrid + rerank (the trained verifier reorders the top 20).
For each pipeline a few chunkings run on the selection data; the best by budget recall is that
pipeline's choice, and it is checked on held-out data beside today's dense recommendation:

- ContractNLI: chosen on dev (61 contracts), checked on test (123 contracts), scope cited;
- SciFact: chosen and reported on all claims (no separate split), scope corpus, over the abstracts
  they cite and 1,000 others (``--distractors``; all 5,183 abstracts cut into 100-character sentences
  are about 100,000 chunks to embed per chunking on 2 cores).

Intervals and paired differences resample whole documents. Printed per pipeline: the best chunking,
budget recall [95% CI] on selection and held-out data, the held-out difference from today's dense
recommendation [CI] and p, and cost: index build, retrieval and reranking seconds and the BM25 index
size. Also: bm25s (if installed) against our BM25 on the same texts: top-10 agreement and build and
query seconds. Reranking reads 20 pairs per claim; on 2 cores it is the slowest stage.

    .venv/bin/python benchmarks/retrievers.py [--only contractnli|scifact] [--no-rerank] [--quick]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vera_lab.data import load_dataset  # noqa: E402
from vera_lab.metrics.bootstrap import paired_bootstrap  # noqa: E402
from vera_lab.sweep.config import Configuration  # noqa: E402
from vera_lab.sweep.data import Sampling  # noqa: E402
from vera_lab.sweep.runner import run_point  # noqa: E402

CACHE = str(ROOT / ".cache" / "vera_lab")
EMBEDDER = "minilm-int8"
PIPELINES = {
    "dense": {},
    "bm25": {"retriever": "bm25"},
    "hybrid": {"retriever": "hybrid"},
    "hybrid:0.5": {"retriever": "hybrid:0.5"},
    "dense + window 1": {"expand": "window:1"},
    "dense + headers": {"context": "headers"},
    "hybrid + rerank 20": {"retriever": "hybrid", "rerank": "verifier:20"},
}
CHUNKINGS = [
    {"strategy": "sentence", "size": 100, "overlap": 0},
    {"strategy": "sentence", "size": 300, "overlap": 0},
    {"strategy": "sentence", "size": 1000, "overlap": 0},
    {"strategy": "fixed", "size": 300, "overlap": 0},
    {"strategy": "fixed", "size": 1000, "overlap": 0},
]
TODAY = ({"strategy": "sentence", "size": 300, "overlap": 0}, {})  # the main job's recommendation
DATASETS = {
    "contractnli": ("datasets/contractnli-dev", "datasets/contractnli-test", "cited"),
    "scifact": ("datasets/scifact", None, "corpus"),
}


def label(chunking: dict) -> str:
    return f"{chunking['strategy']} {chunking['size']}/{chunking['overlap']}"


def run(
    path: str, chunking: dict, retrieval: dict, scope: str, sampling: Sampling, source
) -> tuple[dict, object]:
    point = Configuration.create(
        chunking, EMBEDDER, 5, "calibrate", scope, "max", "cosine", retrieval=retrieval
    )
    start = time.perf_counter()
    row, per_claim = run_point(str(ROOT / path), sampling, point, CACHE, verifier_source=source)
    if row["status"] != "ok":
        raise SystemExit(f"{label(chunking)} {retrieval}: {row['error']}")
    row["wall_s"] = time.perf_counter() - start
    return row, per_claim


def cost_text(row: dict) -> str:
    """Index build, retrieval and reranking seconds, and the BM25 index size, of one run."""
    parts = [f"index {row.get('cost_index_s', 0):.1f} s", f"retrieve {row['cost_retrieve_s']:.1f} s"]
    if "cost_rerank_s" in row:
        parts.append(f"rerank {row['cost_rerank_s']:.0f} s")
    if "cost_bm25_index_mb" in row:
        parts.append(f"BM25 index {row['cost_bm25_index_mb']:.1f} MB")
    return ", ".join(parts)


def figure(row: dict) -> str:
    return (
        f"{row['budget_recall']:.3f} [{row['budget_recall_ci_low']:.3f}, {row['budget_recall_ci_high']:.3f}]"
    )


def bm25s_check(path: str) -> None:
    """Our BM25 against bm25s on one chunking's texts: agreement of the top 10 and seconds."""
    try:
        import bm25s
    except ImportError:
        print("  bm25s not installed (pip install bm25s): agreement not measured")
        return
    from vera_lab.chunking import make_chunker
    from vera_lab.retrieval import BM25, tokenize

    dataset = load_dataset(ROOT / path)
    chunker = make_chunker("sentence", size=300, overlap=0)
    chunks = [c for d in dataset.corpus for c in chunker.chunk(d)]
    texts, queries = [c.text for c in chunks], [c.text for c in dataset.claims]
    start = time.perf_counter()
    ours = BM25(texts, [c.doc_id for c in chunks])
    built = time.perf_counter() - start
    start = time.perf_counter()
    mine = ours.search(queries, 10).indices
    searched = time.perf_counter() - start
    start = time.perf_counter()
    theirs = bm25s.BM25(k1=1.5, b=0.75, method="lucene")
    theirs.index([tokenize(t) for t in texts], show_progress=False)
    their_built = time.perf_counter() - start
    start = time.perf_counter()
    # our queries count a term once; so do these (with repeats, bm25s agrees on about 91% of the top 10)
    distinct = [list(dict.fromkeys(tokenize(q))) for q in queries]
    results, _ = theirs.retrieve(distinct, k=10, show_progress=False)
    their_searched = time.perf_counter() - start
    agree = np.mean([len(set(a) & set(b)) / 10 for a, b in zip(mine, results, strict=True)])
    print(f"  BM25 on {len(chunks):,} chunks, {len(queries):,} queries (corpus-wide): top-10 overlap with "
          f"bm25s {agree:.3f}; build {built:.2f} s vs {their_built:.2f} s, query {searched:.2f} s vs "
          f"{their_searched:.2f} s")  # fmt: skip


def benchmark(name: str, rerank: bool, quick: bool, distractors: int | None) -> None:
    select, held_out, scope = DATASETS[name]
    sampling = Sampling(claims=300 if quick else None, distractors=None if held_out else distractors)
    source = (str(ROOT / select), sampling)  # a reranking verifier learns from the selection claims
    print(f"\n{name}: choose on {select}, check on {held_out or select} (scope {scope})")
    bm25s_check(select)
    baseline_row, baseline = run(
        held_out or select, *TODAY, scope, Sampling() if held_out else sampling, source
    )
    if not held_out and distractors is not None:
        print(f"  corpus: the abstracts the claims cite and {distractors} others")
    for pipeline, retrieval in PIPELINES.items():
        if "rerank" in retrieval and not rerank:
            continue
        chunkings = CHUNKINGS if "rerank" not in retrieval else [TODAY[0], CHUNKINGS[0]]
        rows = [(c, *run(select, c, retrieval, scope, sampling, source)) for c in chunkings]
        best, row, _ = max(rows, key=lambda r: r[1]["budget_recall"])
        line = f"  {pipeline:20s} best {label(best):16s} selection {figure(row)}"
        if held_out:
            test_row, test_claims = run(held_out, best, retrieval, scope, Sampling(), source)
        else:
            test_row, test_claims = row, rows[[r[0] for r in rows].index(best)][2]
        diff = paired_bootstrap(
            test_claims, baseline, "budget_recall", clusters=test_claims["cluster"].to_numpy()
        )
        cost = cost_text(test_row)
        wall = sum(r[1]["wall_s"] for r in rows) + test_row["wall_s"] * bool(held_out)
        versus = (
            f"{diff['diff']:+.3f} [{diff['ci_low']:+.3f}, {diff['ci_high']:+.3f}] p={diff['p_value']:.3f}"
        )
        held = f"held-out {figure(test_row)} | vs today's dense {versus}"
        print(f"{line} | {held} | {cost} | wall {wall:.0f} s", flush=True)
    print(f"  today's dense recommendation ({label(TODAY[0])}) on held-out data: {figure(baseline_row)}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", choices=sorted(DATASETS))
    parser.add_argument("--no-rerank", action="store_true", help="skip the reranking pipeline (the slowest)")
    parser.add_argument("--quick", action="store_true", help="300 selection claims")
    parser.add_argument(
        "--distractors", type=int, default=1000, help="SciFact: abstracts beyond the cited ones"
    )
    args = parser.parse_args()
    for name in [args.only] if args.only else list(DATASETS):
        benchmark(name, not args.no_rerank, args.quick, args.distractors)


if __name__ == "__main__":
    main()
