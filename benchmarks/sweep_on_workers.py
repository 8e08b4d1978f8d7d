"""Sweeps past one machine: the shared vector store against the SQLite cache, and a sweep on 2 workers.

Run: .venv/bin/python benchmarks/sweep_on_workers.py [--documents 20]

1. Store: write and read 20,000 MiniLM-sized vectors (384 float32) through each, vectors/s and bytes per
   vector on disk.
2. The same 8-configuration sweep (4 chunkers x dense/hybrid retrieval, MiniLM int8, ContractNLI dev's
   first documents) serially and on a 2-process LocalCluster sharing a store: wall time, CPU seconds
   of every process, texts embedded (a cold cache each time).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np

from vera_lab.embedding.cache import EmbeddingCache, text_key
from vera_lab.embedding.shared_store import SharedStore
from vera_lab.sweep import parse_config, run_sweep

ROOT = Path(__file__).resolve().parents[1]


def store_figures(folder: Path, n: int = 20_000, dim: int = 384) -> None:
    rng = np.random.default_rng(0)
    vectors = rng.standard_normal((n, dim)).astype(np.float32)
    keys = [text_key(f"text {i}") for i in range(n)]
    for name, make in (
        ("sqlite cache", lambda p: EmbeddingCache(p)),
        ("parquet shards", lambda p: SharedStore(str(p))),
    ):
        path = folder / name.replace(" ", "-")
        store = make(path)
        start = time.perf_counter()
        for i in range(0, n, 2_000):  # as a sweep writes: slices of a few thousand
            store.put("m", keys[i : i + 2_000], vectors[i : i + 2_000])
        wrote = time.perf_counter() - start
        fresh = make(path)  # another process: nothing in memory
        start = time.perf_counter()
        got = fresh.get("m", keys)
        read = time.perf_counter() - start
        assert len(got) == n
        size = sum(f.stat().st_size for f in path.rglob("*") if f.is_file())
        index = getattr(fresh, "index_nbytes", None)  # the store's reader holds keys, not vectors
        held = f"   {index('m') / n:,.0f} bytes/vector in memory" if index else ""
        print(f"{name:<16} write {n / wrote:>10,.0f} vectors/s   read {n / read:>10,.0f} vectors/s   "
              f"{size / n:,.0f} bytes/vector on disk{held}")  # fmt: skip


def cpu_seconds() -> float:
    """This process's CPU seconds (the workers report their own)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    return own.ru_utime + own.ru_stime


def sweep_figures(folder: Path, documents: int) -> None:
    import distributed

    subset = folder / "data"
    _first_documents(ROOT / "datasets" / "contractnli-dev", subset, documents)
    raw = {"name": "b", "dataset": str(subset), "embedders": ["minilm-int8"], "metric": "budget_recall",
           "retriever": ["dense", "hybrid:0.5"],
           "grid": [{"strategy": "sentence", "size": [300, 1000], "overlap": 0},
                    {"strategy": "recursive", "size": [300, 1000], "overlap": 0}]}  # fmt: skip
    config = parse_config(raw)
    print(f"\n8 configurations on {documents} ContractNLI dev contracts, MiniLM int8, cold cache:")
    for name in ("serial", "2 workers"):
        cache = folder / f"cache-{name}"
        start, cpu, worker_cpu = time.perf_counter(), cpu_seconds(), 0.0
        if name == "serial":
            run = run_sweep(config, folder / "r-serial", cache_dir=cache, progress=False)
        else:
            local = distributed.LocalCluster(
                n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
            )
            with local as cluster, distributed.Client(cluster) as client:
                cfg = parse_config({**raw, "store": str(folder / "store")})
                run = run_sweep(cfg, folder / "r-workers", cache_dir=cache, progress=False,
                                executor=client.get_executor())  # fmt: skip
                worker_cpu = sum(client.run(lambda: sum(os.times()[:2])).values())
        wall, used = time.perf_counter() - start, cpu_seconds() - cpu + worker_cpu
        embedded = run.table.cost_embedded_texts.sum()
        stored = (
            SharedStore(str(folder / "store")).count() if name != "serial" else EmbeddingCache(cache).count()
        )
        print(f"{name:<10} wall {wall:6.1f} s   CPU {used:6.1f} s   texts embedded by configurations "
              f"{embedded:,.0f}   vectors stored {stored:,}")  # fmt: skip


def _first_documents(source: Path, target: Path, n: int) -> None:
    import json

    target.mkdir(parents=True, exist_ok=True)
    docs = (source / "corpus.jsonl").read_text().splitlines()[:n]
    keep = {json.loads(d)["doc_id"] for d in docs}
    (target / "corpus.jsonl").write_text("\n".join(docs) + "\n")
    claims = [c for c in (source / "claims.jsonl").read_text().splitlines()
              if set(json.loads(c).get("cited_doc_ids") or []) <= keep]  # fmt: skip
    (target / "claims.jsonl").write_text("\n".join(claims) + "\n")
    shutil.copy(source / "dataset.json", target / "dataset.json")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--documents", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        store_figures(Path(tmp))
        sweep_figures(Path(tmp), args.documents)


if __name__ == "__main__":
    main()
