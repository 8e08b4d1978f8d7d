"""A sweep from start to finish: check, (screen,) run, recommend, verify, confirm on held-out data.

This module sits above the stages and calls them in order; none of them imports it or each other's
callers: the runner runs configurations into a store, the halving screen decides what to run in full,
the recommendation reads the store, the verifier judges the choice, and the confirmation compares
the choice with the presets on held-out claims.
"""

from __future__ import annotations

import dataclasses
import sys
import warnings
from concurrent.futures import Executor
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import pandas as pd

from vera_lab.embedding import DEFAULT_CACHE_DIR
from vera_lab.sweep.config import SweepConfig
from vera_lab.sweep.confirm import confirm
from vera_lab.sweep.data import prepared_dataset
from vera_lab.sweep.estimate import estimate_sweep
from vera_lab.sweep.halving import record_fidelity, successive_halving
from vera_lab.sweep.recommend import recommend
from vera_lab.sweep.runner import SweepRunner
from vera_lab.sweep.validity import validity_warnings
from vera_lab.sweep.verify import verify


@dataclass
class SweepRun:
    """A finished (or resumed) sweep: where it is stored and its table."""

    directory: Path
    table: pd.DataFrame
    recomputed: int  # configs evaluated in this call (0 when everything was already stored)
    retried: int = 0  # of those, configs that had failed in an earlier run
    moved_to: Path | None = None  # where --restart put the previous results


def run_sweep(
    config: SweepConfig,
    results_root: str | Path = "results",
    *,
    cache_dir: str | Path = DEFAULT_CACHE_DIR,
    executor: Executor | None = None,
    halving: bool = False,
    restart: bool = False,
    progress: bool = True,
    also: tuple[str, ...] = (),
    also_check: tuple[str, ...] = (),
) -> SweepRun:
    """Run (or resume) a sweep and write its table and recommendation.

    Stored results are reused only when they were computed on the same data and sampling; otherwise
    :class:`~vera_lab.sweep.store.DataChangedError` is raised before anything runs, unless
    ``restart`` moves them aside. Halving runs when ``halving`` is set or the definition has a
    ``halving`` section; ``also`` names configurations a screen dropped that are to be run in full
    anyway; ``also_check`` names more datasets the choice is compared on with the presets.
    """
    runner = SweepRunner(config, results_root, cache_dir, executor, progress)
    moved_to = None
    if restart and runner.store.dir.exists():
        with runner.store.lock():
            moved_to = runner.store.move_aside()
    with runner.store.lock():  # a second sweep on this folder stops here with a clear message
        table = _run_locked(runner, config, halving, also, also_check)
    return SweepRun(runner.store.dir, table, runner.recomputed, runner.retried, moved_to)


def _run_locked(
    runner: SweepRunner,
    config: SweepConfig,
    halving: bool,
    also: tuple[str, ...],
    also_check: tuple[str, ...],
) -> pd.DataFrame:
    """Everything of :func:`run_sweep` that touches the store, under its lock; returns the table."""
    points = config.points()
    runner.check_stored_data(points)
    dataset = prepared_dataset(config.dataset, runner.sampling)
    if not config.metric.startswith("grounding_") and not any(c.evidence for c in dataset.claims):
        raise ValueError(
            f"{config.dataset}: metric {config.metric} needs claims with gold evidence, and none of its "
            f"{len(dataset.claims)} claims has any; choose metric grounding_f1, or add evidence spans"
        )
    checks = validity_warnings(dataset, points)
    for check in checks:
        warnings.warn(check.message, stacklevel=2)
    if runner.progress:  # before anything runs: how long, and whether the claims can separate anything
        if config.metric_reason:
            print(config.metric_reason, file=sys.stderr, flush=True)
        estimate = estimate_sweep(config, runner.sampling, runner.cache_dir)
        print(estimate.sentence(), file=sys.stderr, flush=True)
        if estimate.separation():
            warnings.warn(estimate.separation(), stacklevel=2)
    if halving or config.halving:
        final = successive_halving(runner, points, also)
    else:
        runner.write_manifest(points)
        runner.run(points)
        final = points
    manifest = runner.store.read_manifest()
    manifest["final_config_ids"] = [p.config_id for p in final]
    manifest["validity"] = [dataclasses.asdict(c) for c in checks]
    manifest["finished"] = datetime.now(UTC).isoformat(timespec="seconds")
    runner.store.write_manifest(manifest)
    runner.store.write_table()
    rec = recommend(runner.store, config.metric, config.prefer)
    if halving or config.halving:
        record_fidelity(runner.store, rec)
    if config.verify != "none":
        verify(runner, config, rec)
    comparisons = rec.get("comparisons_with_best", {})
    table = runner.store.write_table(
        {
            "not_worse_than_best": {cid: cid in rec.get("indistinguishable", []) for cid in comparisons}
            | ({rec["best_by_metric"]["config_id"]: True} if "best_by_metric" in rec else {}),
            "p_vs_best_holm": {cid: c["p_holm"] for cid, c in comparisons.items()},
        }
    )
    confirm(runner.store, config, runner.sampling, runner.cache_dir, runner.executor, runner.progress,
            also_check)  # fmt: skip
    return table
