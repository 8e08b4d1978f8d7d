"""Sweeps past one machine: the shared vector store against the SQLite cache, and a sweep on 2 workers.

Run: .venv/bin/python benchmarks/sweep_on_workers.py [--documents 20] [--workers 2[,4,...]] [--warm-model]

1. Store: write and read 20,000 MiniLM-sized vectors (384 float32) through each, vectors/s and bytes per
   vector on disk.
2. The same 8-configuration sweep (4 chunkers x dense/hybrid retrieval, MiniLM int8, ContractNLI dev's
   first documents) serially and on LocalClusters of 2 (or ``--workers``) processes sharing a store,
   each worker reading with its share of the cores (``OMP_NUM_THREADS``): wall time, CPU seconds of
   every process, texts embedded (a cold cache each time), and whether every metric equals the serial
   run's.
3. The client's pass at scale: the memory and time it takes to remember which texts it has gathered,
   for 10 configurations of 500,000 texts each (half of each new), against a Python set of keys.
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


def sweep_figures(
    folder: Path, documents: int, workers: tuple[int, ...] = (2,), warm_model: bool = False
) -> None:
    import distributed

    from vera_lab.embedding.onnx_export import exported_model

    subset = folder / "data"
    _first_documents(ROOT / "datasets" / "contractnli-dev", subset, documents)
    raw = {"name": "b", "dataset": str(subset), "embedders": ["minilm-int8"], "metric": "budget_recall",
           "retriever": ["dense", "hybrid:0.5"],
           "grid": [{"strategy": "sentence", "size": [300, 1000], "overlap": 0},
                    {"strategy": "recursive", "size": [300, 1000], "overlap": 0}]}  # fmt: skip
    config = parse_config(raw)
    if warm_model:  # the one-off ONNX export done before the clock starts: the sweep proper is timed
        model = exported_model("int8", folder / "model")
    cold = "cold vector cache, the ONNX model exported already" if warm_model else "cold cache"
    print(f"\n8 configurations on {documents} ContractNLI dev contracts, MiniLM int8, {cold}:")
    tables = {}
    for n in (0, *workers):  # 0: serial
        name = f"{n} workers" if n else "serial"
        cache, store = folder / f"cache-{n}", folder / f"store-{n}"
        if warm_model:
            shutil.copytree(model.parent, cache / "onnx")
        start, cpu, worker_cpu = time.perf_counter(), cpu_seconds(), 0.0
        if not n:
            run = run_sweep(config, folder / "r-serial", cache_dir=cache, progress=False)
        else:
            # Dask gives each worker process OMP_NUM_THREADS=1, so its ONNX session would read with one
            # thread however many cores stand idle: share the cores out, as on a worker machine.
            local = distributed.LocalCluster(
                n_workers=n, threads_per_worker=1, processes=True, dashboard_address=None,
                env={"OMP_NUM_THREADS": str(max(1, (os.cpu_count() or 1) // n))},
            )  # fmt: skip
            with local as cluster, distributed.Client(cluster) as client:
                cfg = parse_config({**raw, "store": str(store)})
                run = run_sweep(cfg, folder / f"r-{n}", cache_dir=cache, progress=False,
                                executor=client.get_executor())  # fmt: skip
                worker_cpu = sum(client.run(lambda: sum(os.times()[:2])).values())
        wall, used = time.perf_counter() - start, cpu_seconds() - cpu + worker_cpu
        embedded = run.table.cost_embedded_texts.sum()
        stored = SharedStore(str(store)).count() if n else EmbeddingCache(cache).count()
        tables[name] = run.table.filter(regex="^(param_|metric_)").sort_index(axis=1)
        compared = tables[name].shape[1]
        same = (
            f"   {compared} metric columns equal serial's: {tables[name].equals(tables['serial'])}"
            if n
            else ""
        )
        print(f"{name:<10} wall {wall:6.1f} s   CPU {used:6.1f} s   texts embedded by configurations "
              f"{embedded:,.0f}   vectors stored {stored:,}{same}")  # fmt: skip


def client_figures(points: int = 10, per_point: int = 500_000) -> None:
    import sys

    from vera_lab.sweep.distribute import SeenKeys

    rng = np.random.default_rng(0)
    pool = rng.bytes(32 * per_point * points // 2 * 3)  # configurations share about half their texts
    batches = []
    for i in range(points):
        start = i * per_point // 2
        batches.append([pool[32 * j : 32 * j + 32] for j in range(start, start + per_point)])
    seen, plain, seconds = SeenKeys(), set(), {"SeenKeys": 0.0, "set": 0.0}
    for keys in batches:
        t = time.perf_counter()
        seen.first_seen(keys)
        seconds["SeenKeys"] += time.perf_counter() - t
        t = time.perf_counter()
        _ = [k for k in keys if not (k in plain or plain.add(k))]
        seconds["set"] += time.perf_counter() - t
    in_set = sys.getsizeof(plain) + sum(sys.getsizeof(k) for k in plain)  # the table and its keys
    print(f"\nthe client's memory of gathered texts, {points} configurations x {per_point:,} texts "
          f"({len(seen):,} distinct):")  # fmt: skip
    print(
        f"  Python set of 32-byte keys: {in_set / len(plain):5.1f} B a text, {seconds['set']:.1f} s; "
        f"SeenKeys: {seen.sorted.nbytes / len(seen):.1f} B a text, {seconds['SeenKeys']:.1f} s"
    )
    del plain


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
    parser.add_argument("--workers", default="2", help="comma-separated worker counts to compare with serial")
    parser.add_argument("--warm-model", action="store_true", help="export the ONNX model before timing")
    args = parser.parse_args()
    print(f"{os.cpu_count()} CPU cores")
    with tempfile.TemporaryDirectory() as tmp:
        store_figures(Path(tmp))
        workers = tuple(int(n) for n in args.workers.split(",") if n)
        sweep_figures(Path(tmp), args.documents, workers, args.warm_model)
    client_figures()


if __name__ == "__main__":
    main()
