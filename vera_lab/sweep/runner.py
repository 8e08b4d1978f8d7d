"""Run a sweep: every configuration through ``evaluate``, stored as it finishes, resumable.

Sequential by default (one model in memory, one embedding cache); any ``concurrent.futures``
Executor runs configurations in parallel (workers load the dataset and embedder once each).
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
import platform
import time
import traceback
from concurrent.futures import Executor, as_completed
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

import pandas as pd
from tqdm.auto import tqdm

from vera_lab.bootstrap import bootstrap_ci
from vera_lab.data import CLAIMS_FILE, CORPUS_FILE, file_sha256, load_dataset, sample_dataset
from vera_lab.embedding import DEFAULT_CACHE_DIR, CachedEmbedder, EmbeddingCache, get_embedder
from vera_lab.evaluation import evaluate
from vera_lab.sweep.config import SweepConfig, SweepPoint
from vera_lab.sweep.store import ResultsStore
from vera_lab.types import Dataset

CI_METRICS = ("hit", "evidence_recall", "mrr", "ndcg", "span_recall", "span_iou", "grounding_f1")
_PACKAGES = ("vera-lab", "numpy", "pandas", "scikit-learn", "sentence-transformers", "torch", "tokenizers")


@dataclass
class SweepRun:
    """A finished (or resumed) sweep: where it is stored and its table."""

    directory: Path
    table: pd.DataFrame
    recomputed: int  # configs evaluated in this call (0 when everything was already stored)


def sampling_key(config: dict[str, Any]) -> str:
    """The sampling part of a sweep config (dict form) as a hashable key for ``prepared_dataset``."""
    return json.dumps(
        {"claims": dict(config.get("claims", {})), "corpus": dict(config.get("corpus", {}))}, sort_keys=True
    )


def manifest_dataset(manifest: dict[str, Any]) -> Dataset:
    """The dataset a stored sweep ran on, sampling applied."""
    return prepared_dataset(manifest["dataset"]["path"], sampling_key(manifest["config"]))


@functools.lru_cache(maxsize=4)
def prepared_dataset(path: str, sampling: str) -> Dataset:
    """The dataset with the sweep's sampling applied (cached per process: workers call it too)."""
    options = json.loads(sampling)
    dataset = load_dataset(path)
    claims, corpus = options.get("claims", {}), options.get("corpus", {})
    if claims or corpus:
        dataset = sample_dataset(
            dataset,
            claims=claims.get("sample"),
            distractors=corpus.get("distractors"),
            seed=int(claims.get("seed", corpus.get("seed", 0))),
        )
    return dataset


@functools.lru_cache(maxsize=4)
def _embedder(spec: str, cache_dir: str):
    embedder = get_embedder(spec)
    if hasattr(embedder, "fit"):  # fitted per corpus: vectors are not reusable across configs
        return embedder
    return CachedEmbedder(embedder, EmbeddingCache(cache_dir))


def run_point(
    dataset_path: str, sampling: str, point: SweepPoint, cache_dir: str, ragas: bool = False
) -> tuple[dict, pd.DataFrame | None]:
    """Evaluate one configuration; a failure becomes a row with its error instead of an exception."""
    row: dict[str, Any] = {"config_id": point.config_id, "preset": point.preset}
    row.update({f"param_{k}": v for k, v in point.chunker})
    row.update({"embedder": point.embedder, "k": point.k, "threshold_setting": str(point.threshold),
                "scope": point.scope, "aggregate": point.aggregate})  # fmt: skip
    start = time.perf_counter()
    try:
        dataset = prepared_dataset(dataset_path, sampling)
        result = evaluate(dataset, point.make_chunker(), _embedder(point.embedder, cache_dir), point.scorer())
    except Exception as exc:  # noqa: BLE001 - one bad config must not stop the sweep
        error = f"{type(exc).__name__}: {exc}"
        row.update({"status": "failed", "error": error, "traceback": traceback.format_exc(limit=3)})
        row["seconds"] = time.perf_counter() - start
        return row, None
    row.update({"status": "ok", "error": "", "threshold": result.threshold})
    row.update(result.metrics)
    for metric in CI_METRICS:
        lo, hi = bootstrap_ci(result.per_claim, metric)
        row[f"{metric}_ci_low"], row[f"{metric}_ci_high"] = lo, hi
    row.update({f"cost_{k}": v for k, v in result.cost.items()})
    row.update({f"chunks_{k}": v for k, v in result.chunk_stats.items()})
    row["confusion_by_label"] = json.dumps(result.confusion)
    if ragas:
        row.update(_ragas_columns(dataset, result))
    row["seconds"] = time.perf_counter() - start
    return row, result.per_claim


def _ragas_columns(dataset: Dataset, result) -> dict[str, float]:
    """Means of our chunk-id context metrics and ragas's offline ones for this configuration."""
    from vera_lab.ragas_interop import context_samples, our_context_scores, ragas_offline_scores

    retrieved = [[e.chunk_id for e in v.evidence] for v in result.verdicts]
    samples = context_samples(list(dataset.claims), result.chunks, retrieved, dataset.corpus)
    scores = our_context_scores(samples).merge(ragas_offline_scores(samples), on="claim_id")
    return {column: float(scores[column].mean()) for column in scores.columns if column != "claim_id"}


def _versions() -> dict[str, str]:
    out = {"python": platform.python_version()}
    for name in _PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            pass
    return out


class SweepRunner:
    """Runs the points of one config into one results store."""

    def __init__(
        self,
        config: SweepConfig,
        results_root: str | Path = "results",
        cache_dir: str | Path = DEFAULT_CACHE_DIR,
        executor: Executor | None = None,
        progress: bool = True,
    ) -> None:
        self.config = config
        self.store = ResultsStore(Path(results_root) / config.name)
        self.cache_dir = str(cache_dir)
        self.executor = executor
        self.progress = progress
        self.sampling = sampling_key({"claims": config.claims, "corpus": config.corpus})
        self.recomputed = 0

    def write_manifest(self, points: list[SweepPoint], extra: dict[str, Any] | None = None) -> None:
        dataset = prepared_dataset(self.config.dataset, self.sampling)
        try:
            previous = self.store.read_manifest()
        except FileNotFoundError:
            previous = {}
        manifest = {
            "sweep_id": self.config.name,
            "config": self.config.to_dict(),
            "dataset": {
                "path": self.config.dataset,
                "name": dataset.name,
                "sha256": {f: file_sha256(Path(self.config.dataset) / f) for f in (CORPUS_FILE, CLAIMS_FILE)},
                "documents": len(dataset.corpus),
                "claims": len(dataset.claims),
                "labels": dataset.claims.label_counts(),
            },
            "config_order": list(
                dict.fromkeys([*previous.get("config_order", []), *(p.config_id for p in points)])
            ),
            "points": {p.config_id: dataclasses.asdict(p) for p in points} | previous.get("points", {}),
            "versions": _versions(),
            "started": previous.get("started") or datetime.now(UTC).isoformat(timespec="seconds"),
            **(extra or {}),
        }
        self.store.write_manifest(manifest)

    def run(self, points: list[SweepPoint], desc: str = "configs") -> None:
        """Evaluate the points not yet stored; store each as soon as it finishes."""
        self.store.remove_partial_files()
        pending = [p for p in points if p.config_id not in self.store.done()]
        bar = tqdm(
            total=len(points), initial=len(points) - len(pending), desc=desc, disable=not self.progress
        )
        if self.executor is None:
            for point in pending:
                bar.set_postfix_str(_label(point))
                args = (self.config.dataset, self.sampling, point, self.cache_dir, self.config.ragas)
                self.store.write_config(*run_point(*args))
                self.recomputed += 1
                bar.update()
        else:
            futures = [
                self.executor.submit(
                    run_point, self.config.dataset, self.sampling, p, self.cache_dir, self.config.ragas
                )
                for p in pending
            ]
            for future in as_completed(futures):
                self.store.write_config(*future.result())
                self.recomputed += 1
                bar.update()
        bar.close()


def _label(point: SweepPoint) -> str:
    params = dict(point.chunker)
    return point.preset or f"{params.pop('strategy')} {params.get('size', '')}/{params.get('overlap', '')}"


def run_sweep(
    config: SweepConfig,
    results_root: str | Path = "results",
    *,
    cache_dir: str | Path = DEFAULT_CACHE_DIR,
    executor: Executor | None = None,
    halving: bool = False,
    progress: bool = True,
) -> SweepRun:
    """Run (or resume) a sweep and write its table and recommendation."""
    from vera_lab.sweep.recommend import recommend

    runner = SweepRunner(config, results_root, cache_dir, executor, progress)
    points = config.points()
    if halving:
        final = successive_halving(runner, points)
    else:
        runner.write_manifest(points)
        runner.run(points)
        final = points
    manifest = runner.store.read_manifest()
    manifest["final_config_ids"] = [p.config_id for p in final]
    manifest["finished"] = datetime.now(UTC).isoformat(timespec="seconds")
    runner.store.write_manifest(manifest)
    table = runner.store.write_table()
    recommend(runner.store, config.metric)
    return SweepRun(runner.store.dir, table, runner.recomputed)


def successive_halving(runner: SweepRunner, points: list[SweepPoint]) -> list[SweepPoint]:
    """Screen every point with a cheap embedder, keep the best fraction, confirm them with the real one.

    The embedding cost is in the chunks, not the claims, so the cheap screen is a different embedder
    (``halving.screen``, default tfidf) rather than fewer claims. Returns the confirmed points.
    """
    options = runner.config.halving
    screen, keep = str(options.get("screen", "tfidf")), float(options.get("keep", 0.25))
    if not 0 < keep <= 1:
        raise ValueError(f"halving.keep={keep}: a fraction in (0, 1]")
    screened = [dataclasses.replace(p, embedder=screen) for p in points]
    runner.write_manifest(points + screened)
    runner.run(screened, desc=f"screen ({screen})")
    table = runner.store.rows().set_index("config_id")
    metric = runner.config.metric
    scored = [(float(table.loc[s.config_id].get(metric, math.nan)), i) for i, s in enumerate(screened)]
    ranked = sorted((v, i) for v, i in scored if math.isfinite(v))
    n_keep = max(1, math.ceil(keep * len(points)))
    kept = sorted(i for _, i in sorted(ranked, key=lambda t: (-t[0], t[1]))[:n_keep])
    survivors = [points[i] for i in kept]
    rounds = [
        {"round": 1, "embedder": screen, "metric": metric, "evaluated": [s.config_id for s in screened],
         "kept": [screened[i].config_id for i in kept],
         "dropped": [screened[i].config_id for i in range(len(points)) if i not in kept]},
        {"round": 2, "embedder": "as configured", "evaluated": [p.config_id for p in survivors]},
    ]  # fmt: skip
    runner.store.write_json("halving.json", {"rounds": rounds, "final": [p.config_id for p in survivors]})
    runner.write_manifest(survivors, {"halving": {"screen": screen, "keep": keep}})
    runner.run(survivors, desc="confirm")
    return survivors
