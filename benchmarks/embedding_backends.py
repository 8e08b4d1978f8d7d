"""The MiniLM backends side by side: speed, fidelity to PyTorch fp32, and what retrieval makes of them.

Run: .venv/bin/python benchmarks/embedding_backends.py [--documents N]

1. passages/s of each backend on the same ~250-token passages (the token chunker's 250-token chunks
   of the bundled chroma-eval documents), and claims/s on 600 SciFact claims (short texts, where
   batching matters most), best of five rounds, backends interleaved so a busy machine slows them
   alike;
2. mean and minimum cosine between each backend's vectors and PyTorch fp32's on those passages;
3. hit@5, MRR and budget-matched recall of the main job's seed presets on ContractNLI dev (scope
   cited, as `make sweep`) under each backend, each gap to fp32 with the 95% interval of a paired
   bootstrap over claims, the largest gap and how many gaps are significant. Vectors for (3) go through
   the embedding cache in .cache/vera_lab (each backend under its own key), so a second run is quick.
"""

from __future__ import annotations

import argparse
import os
import time

from common import ROOT, table

from vera_lab import TokenChunker, load_dataset
from vera_lab.chunking.presets import PRESETS
from vera_lab.embedding import get_embedder
from vera_lab.evaluation import evaluate
from vera_lab.metrics.bootstrap import paired_bootstrap
from vera_lab.sweep.config import Configuration
from vera_lab.sweep.data import Sampling

BACKENDS = ("minilm", "minilm-onnx", "minilm-int8")
MAIN_JOB_PRESETS = ("vera-000", "docuchat-001", "vera-003", "kaizen-004")
METRICS = ("hit", "mrr", "budget_recall")
ROUNDS = 5  # best of 5: on a shared 2-core machine a round can run at half speed


def passages(limit: int = 200) -> list[str]:
    chroma = load_dataset(ROOT / "datasets" / "chroma-eval")
    chunker = TokenChunker(size=250, overlap=0)
    texts = [
        c.text for name in ("state_of_the_union", "wikitexts") for c in chunker.chunk(chroma.corpus[name])
    ]
    return texts[:limit]


def claims(limit: int = 600) -> list[str]:
    return [c.text for c in load_dataset(ROOT / "datasets" / "scifact").claims][:limit]


def speed_and_fidelity(texts: list[str], short: list[str]) -> list[dict]:
    embedders = {spec: get_embedder(spec, device="cpu") for spec in BACKENDS}
    for embedder in embedders.values():
        embedder.embed(texts[:8])  # load the model (and export it on the first run)
    best = dict.fromkeys(BACKENDS, float("inf"))
    best_short = dict.fromkeys(BACKENDS, float("inf"))
    vectors = {}
    for _ in range(ROUNDS):
        for spec, embedder in embedders.items():
            start = time.perf_counter()
            vectors[spec] = embedder.embed(texts)
            best[spec] = min(best[spec], time.perf_counter() - start)
            start = time.perf_counter()
            embedder.embed(short)
            best_short[spec] = min(best_short[spec], time.perf_counter() - start)
    rows = []
    for spec in BACKENDS:
        cosine = (vectors[spec] * vectors["minilm"]).sum(axis=1)
        rows.append({
            "backend": spec,
            "passages/s": f"{len(texts) / best[spec]:.1f}",
            "speed-up": f"{best['minilm'] / best[spec]:.2f}x",
            "claims/s": f"{len(short) / best_short[spec]:.0f}",
            "mean cos to fp32": f"{cosine.mean():.4f}",
            "min cos to fp32": f"{cosine.min():.4f}",
        })  # fmt: skip
    return rows


def retrieval(documents: int | None) -> tuple[list[dict], float, dict[str, int]]:
    """Rows of the presets' metrics under each backend, the largest gap to PyTorch fp32, and how many
    gaps a paired bootstrap over claims finds significant (95% interval excluding 0), above and below.
    """
    dataset = Sampling(documents=documents, seed=0).apply(load_dataset(ROOT / "datasets" / "contractnli-dev"))
    print(f"retrieval on {dataset.name}: {len(dataset.corpus)} documents, {len(dataset.claims)} claims")
    rows, largest, significant = [], 0.0, {"above": 0, "below": 0}
    for preset in MAIN_JOB_PRESETS:
        runs = {}
        for spec in BACKENDS:
            point = Configuration.create(
                dict(PRESETS[preset]), spec, 5, "calibrate", "cited", "max", "cosine"
            )
            embedder = get_embedder(spec, cache_dir=ROOT / ".cache" / "vera_lab", device="cpu")
            runs[spec] = evaluate(dataset, point.make_chunker(), embedder, point.grounding_scorer())
        for spec in BACKENDS:
            row = {"preset": preset, "backend": spec}
            for metric in METRICS:
                value = runs[spec].metrics[metric]
                row[metric] = f"{value:.4f}"
                if spec != "minilm":
                    gap = paired_bootstrap(runs[spec].per_claim, runs["minilm"].per_claim, metric)
                    largest = max(largest, abs(gap["diff"]))
                    if gap["significant"]:
                        significant["above" if gap["diff"] > 0 else "below"] += 1
                    row[metric] += f" ({gap['diff']:+.4f} [{gap['ci_low']:+.3f}, {gap['ci_high']:+.3f}])"
            rows.append(row)
    return rows, largest, significant


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--documents", type=int, default=None, help="ContractNLI dev documents (default: all 61)"
    )
    args = parser.parse_args()
    texts, short = passages(), claims()
    print(
        f"speed and fidelity: {len(texts)} passages of ~250 tokens, {len(short)} SciFact claims, "
        f"{os.cpu_count()} CPU cores"
    )
    print(
        table(
            speed_and_fidelity(texts, short),
            ["backend", "passages/s", "speed-up", "claims/s", "mean cos to fp32", "min cos to fp32"],
        )
    )
    print("goals: minilm-int8 >= 2.5x PyTorch fp32; mean cosine to fp32 >= 0.99\n")
    rows, largest, significant = retrieval(args.documents)
    print(table(rows, ["preset", "backend", *METRICS]))
    print("(gap to fp32 [95% interval of a paired bootstrap over claims])")
    gaps = len(METRICS) * len(MAIN_JOB_PRESETS) * (len(BACKENDS) - 1)
    print(
        f"largest gap to fp32: {largest:.4f} (goal <= 0.01); of {gaps} gaps, significantly above fp32: "
        f"{significant['above']}, significantly below: {significant['below']}"
    )


if __name__ == "__main__":
    main()
