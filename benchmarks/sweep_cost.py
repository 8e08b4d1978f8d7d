"""What a sweep costs: time outside embedding, warm re-run speed-up, peak memory, halving savings.

Run: .venv/bin/python benchmarks/sweep_cost.py
A small real sweep with MiniLM on a SciFact subset (200 claims, their abstracts + 100 distractors),
12 configurations, each run in its own results directory and embedding cache.
"""

from __future__ import annotations

import json
import resource
import tempfile
import time
from pathlib import Path

from common import ROOT

from vera_lab.embedding.minilm import MiniLMEmbedder
from vera_lab.sweep import parse_config, run_sweep

GRID = [
    {"strategy": "fixed", "size": [500, 1000, 2000], "overlap": [0.2]},
    {"strategy": "sentence", "size": [500, 1000, 2000], "overlap": [0.2]},
    {"strategy": "token", "size": [128, 256], "overlap": [0.2]},
    {"strategy": "recursive", "size": [500, 1000], "overlap": [0.2]},
]
MODEL_SECONDS = [0.0]


def _timed(embed):
    def wrapper(self, texts):
        start = time.perf_counter()
        try:
            return embed(self, texts)
        finally:
            MODEL_SECONDS[0] += time.perf_counter() - start

    return wrapper


MiniLMEmbedder.embed = _timed(MiniLMEmbedder.embed)  # count the time spent in the model


def sweep(name: str, root: Path, cache: Path, halving: bool = False):
    config = parse_config(
        {
            "name": name,
            "dataset": str(ROOT / "datasets" / "scifact"),
            "claims": {"sample": 200, "seed": 1},
            "corpus": {"distractors": 100, "seed": 1},
            "embedders": ["minilm"],
            "presets": [],
            "metric": "mrr",
            "grid": GRID,
            "halving": {"screen": "tfidf", "keep": 0.25},
        }
    )
    MODEL_SECONDS[0] = 0.0
    start = time.perf_counter()
    run = run_sweep(config, root, cache_dir=cache, halving=halving, progress=False)
    wall = time.perf_counter() - start
    rec = json.loads((run.directory / "recommendation.json").read_text())
    minilm = run.table[run.table.embedder == "minilm"]
    return wall, MODEL_SECONDS[0], int(minilm.cost_embedded_texts.sum()), rec


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        cold_wall, cold_model, cold_texts, cold_rec = sweep("cold", tmp / "r1", tmp / "cache")
        warm_wall, warm_model, warm_texts, _ = sweep("warm", tmp / "r2", tmp / "cache")
        halv_wall, _, halv_texts, halv_rec = sweep("halving", tmp / "r3", tmp / "cache-halving", halving=True)
    rss_gb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 / 1024
    outside = 1 - cold_model / cold_wall
    print(
        f"cold sweep ({sum(len(g['size']) * len(g['overlap']) for g in GRID)} configs): {cold_wall:.1f} s, "
        f"{cold_model:.1f} s in the model, {cold_texts} texts embedded"
    )
    print(f"share of wall time outside embedding: {outside:.1%} (goal <= 10%)")
    print(
        f"warm re-run (same cache, new results dir): {warm_wall:.2f} s, {warm_texts} texts embedded "
        f"-> speed-up {cold_wall / warm_wall:.1f}x (goal >= 20x)"
    )
    print(f"peak RSS of this process: {rss_gb:.2f} GB (goal <= 3 GB)")
    same = halv_rec["config"]["chunker"] == cold_rec["config"]["chunker"]
    print(
        f"halving (tfidf screen, keep 25%): {halv_wall:.1f} s, {halv_texts} texts embedded by MiniLM "
        f"= {halv_texts / cold_texts:.2f} of the full grid (goal <= 0.3); same best config: {same} "
        f"(full: {cold_rec['config']['chunker']}, halving: {halv_rec['config']['chunker']})"
    )


if __name__ == "__main__":
    main()
