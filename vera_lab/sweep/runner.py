"""Run configurations into a results store: each through ``evaluate``, stored as it finishes, resumable.

Sequential by default (one model in memory, one embedding cache); any ``concurrent.futures``
Executor runs configurations in parallel (workers load the dataset and embedder once each). What a
sweep runs, in which stages, is decided above this module (:mod:`vera_lab.sweep.orchestrate`).
"""

from __future__ import annotations

import json
import platform
import sys
import time
import traceback
import warnings
from concurrent.futures import Executor, as_completed
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

import pandas as pd
from tqdm.auto import tqdm

from vera_lab.chunking import CHUNKING_VERSION
from vera_lab.data.clusters import claim_clusters
from vera_lab.embedding import DEFAULT_CACHE_DIR, EmbedderError, device_label
from vera_lab.evaluation.resources import Resources, cached_embedder
from vera_lab.metrics.bootstrap import bootstrap_ci, paired_bootstrap
from vera_lab.sweep.config import CI_METRICS, Configuration, SweepConfig
from vera_lab.sweep.data import Sampling, data_identity, data_record, describe_change, prepared_dataset
from vera_lab.sweep.distribute import build_models_once, embed_once, fit_verifiers_once
from vera_lab.sweep.store import DataChangedError, ResultsStore, StoreError, chunking_change
from vera_lab.types import Dataset

_PACKAGES = ("vera-lab", "numpy", "pandas", "scikit-learn", "sentence-transformers", "torch", "tokenizers")


def point_row(point: Configuration) -> dict[str, Any]:
    """The identifying columns of a config's row: id, labels and a ``param_*`` column per parameter."""
    row: dict[str, Any] = {"config_id": point.config_id, "preset": point.preset, "label": point.label}
    row.update({f"param_{k}": v for k, v in point.chunker})
    row.update({"param_embedder": point.embedder, "param_k": point.k, "param_threshold": point.threshold,
                "param_scope": point.scope, "param_aggregate": point.aggregate,
                "param_scorer": point.scorer})  # fmt: skip
    # One column per pipeline dimension (as cv_results_ has one per parameter), and a readable label.
    row.update({f"param_{k}": v for k, v in point.pipeline.columns().items()})
    row["param_pipeline"] = point.pipeline.label()
    row["params"] = json.dumps(point.identity(), sort_keys=True)
    return row


def overlap_columns(chunker, stats: dict[str, float]) -> dict[str, float | bool]:
    """Overlap asked for and overlap realised, as shares of the chunk, and a shortfall flag.

    The flag is raised below half the request (sentence packing cannot repeat part of a sentence).
    """
    by_sentences = (
        getattr(chunker, "overlap_unit", None) == "sentences" or getattr(chunker, "unit", "") == "sentences"
    )
    requested = (
        float("nan") if by_sentences else getattr(chunker, "overlap_amount", 0) / getattr(chunker, "size", 1)
    )
    realised = stats["overlap_chars_mean"] / stats["chars_mean"] if stats.get("chars_mean") else 0.0
    return {
        "overlap_requested": requested,
        "overlap_realised": realised,
        "overlap_shortfall": bool(requested > 0 and realised < requested / 2),
    }


def run_point(
    dataset_path: str,
    sampling: Sampling,
    point: Configuration,
    cache_dir: str,
    ragas: bool = False,
    device: str = "auto",
    verifier_source: tuple[str, Sampling] | None = None,
    vector_store: str | None = None,
    fingerprint: str | None = None,
) -> tuple[dict, pd.DataFrame | None]:
    """Evaluate one configuration; a failure becomes a row with its error instead of an exception.

    ``vector_store`` shares vectors between processes and machines (see
    :mod:`vera_lab.embedding.shared_store`); ``fingerprint``, given where the point runs away from the
    client, is checked against the data this process reads: different data is refused, not computed.

    A verifier scorer is the shipped general verifier, or, when its recipe adapts, one fitted on the
    labelled claims of ``verifier_source`` (dataset path and sampling; default the data evaluated),
    cross-fitted by document, cached in ``cache_dir``.
    """
    row = point_row(point)
    start = time.perf_counter()
    try:
        dataset = prepared_dataset(dataset_path, sampling)
        if fingerprint is not None and (seen := data_identity(dataset_path, sampling)[1]) != fingerprint:
            raise DataChangedError(
                f"{dataset_path}: this worker ({platform.node()}) reads data with fingerprint {seen}, the "
                f"client's is {fingerprint}: give every worker the same dataset files"
            )
        labelled = dataset
        if point.needs_verifier and point.verifier_recipe().adapt:  # the sweep's claims, or verifier_source's
            labelled = prepared_dataset(*(verifier_source or (dataset_path, sampling)))
        system = point.build(Resources(cache_dir, device, vector_store), labelled)
        row.update(_verifier_columns(point, system.verifier, dataset, labelled))
        result = system.evaluate(dataset)
    except Exception as exc:  # noqa: BLE001 - one bad config must not stop the sweep
        error = f"{type(exc).__name__}: {exc}"
        row.update({"status": "failed", "error": error, "traceback": traceback.format_exc(limit=3)})
        row["seconds"] = time.perf_counter() - start
        return row, None
    row.update({"status": "ok", "error": "", "threshold": result.threshold})
    row.update(result.metrics)
    row.update(_intervals(dataset, result))
    row.update({f"cost_{k}": v for k, v in result.cost.items()})
    row.update({f"chunks_{k}": v for k, v in result.chunk_stats.items()})
    row.update(overlap_columns(system.chunker, result.chunk_stats))
    row["confusion_by_label"] = json.dumps(result.confusion)
    if ragas:
        row.update(_ragas_columns(dataset, result))
    row["seconds"] = time.perf_counter() - start
    return row, result.per_claim


def _verifier_columns(point: Configuration, verifier, dataset: Dataset, labelled: Dataset) -> dict[str, Any]:
    """Which verifier judged, how much of the data it was trained on, and why it did not adapt."""
    if verifier is None:
        return {}
    from vera_lab.grounding.general import GeneralVerifier
    from vera_lab.grounding.verifier import too_few_to_adapt

    out: dict[str, Any] = {}
    if isinstance(verifier, GeneralVerifier):
        out["verifier_seen_documents"] = verifier.seen_share(dataset.corpus)
        if point.verifier_recipe().adapt:
            out["verifier_note"] = too_few_to_adapt(list(labelled.claims))
    out["verifier_model"] = verifier.key  # general-<weights>, or the adapted models' key
    return out


def _intervals(dataset: Dataset, result) -> dict[str, float]:
    """95% intervals of the metrics and of grounding F1's lift over calling every claim grounded.

    Claims of one cluster (about one document, or of one group) are not independent: every interval
    draws whole clusters, and the per-claim rows keep them for the comparisons made later.
    """
    clusters = claim_clusters(list(dataset.claims), dataset.cluster_by)
    result.per_claim["cluster"] = clusters
    if any(c.source for c in dataset.claims):  # claims from several sources: each is a transfer check
        result.per_claim["source"] = [c.source for c in dataset.claims]
    out: dict[str, float] = {}
    for metric in CI_METRICS:
        out[f"{metric}_ci_low"], out[f"{metric}_ci_high"] = bootstrap_ci(
            result.per_claim, metric, clusters=clusters
        )
    lift = paired_bootstrap(
        result.per_claim, result.per_claim.assign(grounded=True), "grounding_f1", clusters=clusters
    )
    out.update({"grounding_f1_lift": lift["diff"], "grounding_f1_lift_ci_low": lift["ci_low"],
                "grounding_f1_lift_ci_high": lift["ci_high"]})  # fmt: skip
    return out


def _ragas_columns(dataset: Dataset, result) -> dict[str, float]:
    """Means of our chunk-id context metrics and ragas's offline ones for this configuration."""
    from vera_lab.metrics.ragas import context_samples, our_context_scores, ragas_offline_scores

    retrieved = [[e.chunk_id for e in v.evidence] for v in result.verdicts]
    samples = context_samples(list(dataset.claims), result.chunks, retrieved, dataset.corpus)
    scores = our_context_scores(samples).merge(ragas_offline_scores(samples), on="claim_id")
    return {column: float(scores[column].mean()) for column in scores.columns if column != "claim_id"}


def _left_by_a_sweep(entry: Path) -> bool:
    """Whether a sweep may have left this in its folder before writing the folder's manifest.

    A halving sweep stopped in its screen leaves ``screen/`` (a store of its own) and maybe ``data.json``;
    anything else (results.csv, report.md: common names) may be the user's.
    """
    return entry.name == "data.json" or entry.name.startswith(".") or (entry / "manifest.json").exists()


def _versions() -> dict[str, str]:
    out = {"python": platform.python_version()}
    for name in _PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            pass
    return out


class SweepInterrupted(Exception):
    """SIGINT or SIGTERM stopped a sweep between two stored configurations."""

    def __init__(self, directory: Path, stored: int, total: int) -> None:
        super().__init__(f"{directory}: interrupted with {stored} of {total} configurations stored")
        self.directory, self.stored, self.total = directory, stored, total


class SweepRunner:
    """Runs the points of one config into one results store."""

    def __init__(
        self,
        config: SweepConfig,
        results_root: str | Path = "results",
        cache_dir: str | Path = DEFAULT_CACHE_DIR,
        executor: Executor | None = None,
        progress: bool = True,
        sampling: Sampling | None = None,
        verifier_source: tuple[str, Sampling] | None = None,
    ) -> None:
        self.config = config
        self.store = ResultsStore(Path(results_root) / config.name)
        self.cache_dir = str(cache_dir)
        self.executor = executor
        self.progress = progress
        self.sampling = sampling or Sampling.from_config(config.claims, config.corpus, config.holdout)
        self.data = data_record(config.dataset, self.sampling)
        # the claims a verifier scorer learns from: the sweep's own, also when it runs held-out data
        self.verifier_source = verifier_source or (config.dataset, self.sampling)
        self.recomputed = self.retried = 0

    @property
    def fingerprint(self) -> str:
        return self.data["fingerprint"]

    def models(self, points: list[Configuration]) -> dict[str, str]:
        """The model each embedder of ``points`` stands for now, by the name its vectors are cached under.

        That name changes with the weights, the int8 recipe, the exporting toolchain or fp16 on a GPU.
        """
        specs = [p.embedder for p in points] + [
            p.chunker_params["embedder"] for p in points if "embedder" in p.chunker_params
        ]
        models = {}
        for spec in dict.fromkeys(specs):
            try:
                models[spec] = cached_embedder(spec, self.cache_dir, self.config.device).name
            except EmbedderError:  # an Ollama server that is down: its configurations fail and store nothing
                continue
        return models

    def check_stored_data(self, points: list[Configuration]) -> None:
        """Refuse to add to results made otherwise (data, models, chunkers), before computing anything.

        Stores written before models were recorded are checked for data only, with a warning each time.
        """
        if not self.store.exists():
            if self.store.dir.is_dir() and not all(map(_left_by_a_sweep, self.store.dir.iterdir())):
                raise StoreError(
                    f"{self.store.dir} holds files but no manifest.json, so it is not a results folder of "
                    "vera-lab's and may be yours; nothing was written: write elsewhere (a sweep: another "
                    "name or --results-dir, or --restart to move the folder aside, deleting nothing; "
                    "compare: --name)"
                )
            return
        manifest = self.store.read_manifest()  # refuses another schema
        if "embedder_models" not in manifest:
            warnings.warn(
                f"{self.store.dir} was written before vera-lab recorded the model behind each embedder, so "
                "results of another model (an older int8 recipe, other weights) cannot be told apart; "
                "run with --restart to be sure",
                stacklevel=2,
            )
        changes = describe_change(self.store.read_data() or {}, self.data)
        before = manifest.get("embedder_models", {})
        changes += [
            f"embedder {spec} was {before[spec]} and is now {name}"
            for spec, name in self.models(points).items()
            if spec in before and before[spec] != name
        ]
        changes += [changed] if (changed := chunking_change(manifest)) else []
        if changes:
            raise DataChangedError(
                f"{self.store.dir}: its results were computed on other data, by another model or by other "
                f"chunkers: {'; '.join(changes)}. Nothing was computed. Give the sweep a new name, or run it "
                f"again with --restart, which moves the old results aside to {self.store.dir.name}.<date>"
            )

    def write_manifest(self, points: list[Configuration], extra: dict[str, Any] | None = None) -> None:
        previous = self.store.read_manifest() if self.store.exists() else {}
        if not previous:
            self.store.write_data(self.data)
        summary = {k: v for k, v in self.data.items() if k not in ("doc_ids", "claim_ids")}
        manifest = {
            **previous,
            "sweep_id": self.config.name,
            "config": self.config.to_dict(),
            "data": summary,
            "config_order": list(
                dict.fromkeys([*previous.get("config_order", []), *(p.config_id for p in points)])
            ),
            "points": previous.get("points", {}) | {p.config_id: p.to_dict() for p in points},
            "versions": _versions(),
            "chunking_version": CHUNKING_VERSION,
            "embedding_devices": {
                spec: device_label(spec, self.config.device) for spec in self.config.embedders
            },
            "started": previous.get("started") or datetime.now(UTC).isoformat(timespec="seconds"),
            **(extra or {}),
        }
        if not previous or "embedder_models" in previous:  # an older store's models stay unknown
            manifest["embedder_models"] = previous.get("embedder_models", {}) | self.models(points)
        self.store.write_manifest(manifest)

    def run(self, points: list[Configuration], desc: str = "sweep") -> None:
        """Evaluate the points not yet stored; store each as soon as it finishes.

        Configurations that failed before are tried again. On SIGINT (or a SIGTERM turned into one)
        every finished configuration is already stored and :class:`SweepInterrupted` says how many.
        """
        self.store.remove_partial_files()
        done = self.store.done(self.fingerprint)
        failed_before = set(self.store.stored_rows()) - done
        pending = [p for p in points if p.config_id not in done]
        # On a terminal a bar; in a log (stderr not a terminal) one plain line per configuration.
        lines = self.progress and not sys.stderr.isatty()
        bar = tqdm(
            total=len(points), initial=len(points) - len(pending), desc=desc,
            disable=not self.progress or lines,
        )  # fmt: skip
        labels = {p.config_id: p.label for p in points}  # progress names settings, not hashes
        args = (self.config.dataset, self.sampling)
        options = (self.config.ragas, self.config.device, self.verifier_source, self.config.store or None)
        futures = []
        try:
            if self.executor is None:
                results = (run_point(*args, p, self.cache_dir, *options) for p in pending)
            else:
                # each distinct text embedded once, by one worker, and each adapted verifier fitted once,
                # here, before any configuration runs
                build_models_once(pending, self.cache_dir)
                fit_verifiers_once(pending, self.verifier_source, self.cache_dir)
                embed_once(self.executor, self.config, self.sampling, pending, self.cache_dir, self.progress)
                futures = [
                    self.executor.submit(run_point, *args, p, self.cache_dir, *options, self.fingerprint)
                    for p in pending
                ]
                results = (f.result() for f in as_completed(futures))
            for finished, (row, per_claim) in enumerate(results, 1):
                row["data_fingerprint"] = self.fingerprint
                self.store.write_config(row, per_claim)
                self.recomputed += 1
                self.retried += row["config_id"] in failed_before
                bar.update()
                if lines:
                    done = len(points) - len(pending) + finished
                    value = row.get(self.config.metric)
                    shown = f"{self.config.metric} {value:.4f}" if isinstance(value, float) else row["status"]
                    name = labels.get(row["config_id"], row["config_id"])
                    print(f"{desc} {done}/{len(points)} {name}: {shown} ({row['seconds']:.1f} s)",
                          file=sys.stderr, flush=True)  # fmt: skip
        except KeyboardInterrupt:
            for future in futures:
                future.cancel()
            stored = len(self.store.done(self.fingerprint) & {p.config_id for p in points})
            raise SweepInterrupted(self.store.dir, stored, len(points)) from None
        finally:
            bar.close()
