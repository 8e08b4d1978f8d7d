"""Confirm a sweep's choice on held-out claims: the recommendation and the seed presets, unchanged.

Each configuration keeps everything the sweep fitted, its calibrated threshold included, and is
evaluated once on each held-out set: the share of the sweep's own claims set aside before it ran
(``holdout:``, store ``<run>/holdout/``), another dataset (``confirm:``, ``<run>/confirm/``) and any
dataset passed with ``--also-check`` (``<run>/check-<name>/``). Each set is a comparison
(:mod:`vera_lab.sweep.compare`): intervals and paired differences from the recommendation that
resample clusters of claims. ``confirmation.json`` puts the sweep's estimate and the held-out figures
side by side, and says on each set whether the choice holds.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from concurrent.futures import Executor
from pathlib import Path
from typing import Any

import pandas as pd

from vera_lab.sweep.compare import COMPARED_METRICS, figures, run_comparison
from vera_lab.sweep.config import SAFE_NAME, Configuration, SweepConfig
from vera_lab.sweep.data import Sampling
from vera_lab.sweep.recommend import rivals
from vera_lab.sweep.runner import SweepRunner
from vera_lab.sweep.store import ResultsStore


def confirmation_points(store: ResultsStore, extra: Sequence[str] = ()) -> list[Configuration]:
    """The recommendation first, then the presets run at its scorer settings, each with its fitted threshold.

    The best dense configuration by the rule joins them when the recommendation is another pipeline
    (what choosing the pipeline adds, held out), and the recommendation's verifier twin where the
    sweep verified it; ``extra`` names more of the sweep's configurations to compare.
    """
    rec = store.read_json("recommendation.json")
    if "config_id" not in rec:
        return []
    table = store.rows().set_index("config_id", drop=False)
    best = table.loc[rec["config_id"]]
    finished = table[table["status"] == "ok"]
    unknown = [cid for cid in extra if cid not in finished.index]
    if unknown:
        raise ValueError(f"{store.dir}: no finished configuration {unknown[0]!r} in results.csv")
    presets = rivals(finished[finished["preset"].fillna("") != ""], best)
    dense = [rec["dense_rival"]["config_id"]] if rec.get("dense_rival") else []
    chosen = [rec["config_id"], *presets["config_id"], *dense, *extra]
    # The recommendation judged by the verifier too: on 2 cores the presets' long chunks cost the
    # verifier minutes per held-out set, and the verifier's preset comparison is made on the sweep's claims.
    twin = store.read_manifest().get("verified", {}).get(rec["config_id"])
    chosen += [twin] if twin in finished.index else []
    points = store.points()
    return [
        Configuration.from_dict({**points[cid].to_dict(), "threshold": float(table.loc[cid, "threshold"])})
        for cid in dict.fromkeys(chosen)
    ]


def held_out_targets(
    config: SweepConfig, sampling: Sampling, also_check: Sequence[str] = ()
) -> list[tuple[SweepConfig, Sampling]]:
    """The held-out sets of a sweep, as (store config, sampling): holdout, confirm, then each --also-check."""
    targets = []
    if config.holdout:
        targets.append(
            (dataclasses.replace(config, name="holdout"), dataclasses.replace(sampling, part="holdout"))
        )
    whole = dict(claims={}, corpus={}, holdout=0.0)
    if config.confirm:
        targets.append(
            (dataclasses.replace(config, name="confirm", dataset=config.confirm, **whole),
             Sampling(documents=config.confirm_documents))
        )  # fmt: skip
    for path in also_check:
        name = f"check-{Path(path).resolve().name}"
        targets.append((dataclasses.replace(config, name=name, dataset=str(path), **whole), Sampling()))
    return targets


def confirm(
    store: ResultsStore,
    config: SweepConfig,
    sampling: Sampling,
    cache_dir: str | Path,
    executor: Executor | None = None,
    progress: bool = True,
    also_check: Sequence[str] = (),
) -> list[dict[str, Any]]:
    """Compare the chosen configurations on every held-out set of the sweep.

    ``confirmation.json`` gets one entry per set, and the recommendation its figures on the first.
    """
    points = confirmation_points(store)
    targets = held_out_targets(config, sampling, also_check)
    if not points or not targets:
        return []
    entries = [
        _held_out(store, held_out, part, points, cache_dir, executor, progress, (config.dataset, sampling))
        for held_out, part in targets
    ]
    store.write_json("confirmation.json", {"confirmations": entries})
    rec = store.read_json("recommendation.json")
    first = entries[0]["rows"][0]  # the recommended config on the first held-out set
    store.write_json(
        "recommendation.json", {**rec, "held_out": {"data": entries[0]["held_out_data"], **first["held_out"]}}
    )
    return entries


def _held_out(
    store: ResultsStore,
    config: SweepConfig,
    sampling: Sampling,
    points: list[Configuration],
    cache_dir: str | Path,
    executor: Executor | None,
    progress: bool,
    verifier_source: tuple[str, Sampling],
) -> dict[str, Any]:
    # A verifier learns from the sweep's claims only; the held-out claims are never trained on.
    runner = SweepRunner(config, store.dir, cache_dir, executor, progress, sampling, verifier_source)
    sweep_rows = store.rows().set_index("config_id")
    sweep_ids = {p.config_id: sweep_id(p, sweep_rows) for p in points}
    result = run_comparison(runner, points, config.metric, roles_of(store, points))
    if "error" in result:
        raise RuntimeError(f"{runner.store.dir}: {result['error']}")
    rows = [
        {
            "config_id": sweep_ids[row["config_id"]],  # the sweep's id: the report labels by it
            "held_out_config_id": row["config_id"],  # the id in this held-out store
            "role": row["role"],
            "scorer": row["scorer"],
            "preset": row["preset"],
            "threshold": row["threshold"],
            "sweep": figures(sweep_rows.loc[sweep_ids[row["config_id"]]], COMPARED_METRICS),
            "held_out": row["figures"],
            "vs_recommended": row["vs_reference"],
        }
        for row in result["rows"]
    ]
    suffix = " (held-out claims)" if sampling.part == "holdout" else ""
    return {
        "store": config.name,
        "sweep_data": store.read_manifest()["data"]["name"] + (" (selection claims)" if suffix else ""),
        "held_out_data": result["data"] + suffix,
        "held_out_fingerprint": result["data_fingerprint"],
        "claims": result["claims"],
        "resampling": result["resampling"],
        "holds": result["holds"],
        **({"by_source": result["by_source"]} if "by_source" in result else {}),
        "rows": rows,
        "note": "Every configuration keeps the threshold it was calibrated to on the sweep's claims; "
        "nothing is fitted on the held-out claims.",
    }


def sweep_id(point: Configuration, sweep_rows: pd.DataFrame) -> str:
    """The sweep's config id of a confirmation point (the same configuration, threshold 'calibrate')."""
    for threshold in ("calibrate", point.threshold):
        candidate = dataclasses.replace(point, threshold=threshold).config_id
        if candidate in sweep_rows.index:
            return candidate
    raise KeyError(f"no sweep row for confirmation config {point.config_id}")


def compare_on(
    run_dir: str | Path,
    dataset: str | Path,
    extra: Sequence[str] = (),
    name: str | None = None,
    cache_dir: str | Path = ".cache/vera_lab",
    progress: bool = True,
) -> tuple[Path, dict[str, Any]]:
    """The one-command held-out check: a stored sweep's choice and the presets on another dataset.

    Runs the recommendation (first, with its fitted threshold), the presets at its scorer settings and
    the configurations ``extra`` names into ``<run>/<name>/`` (default ``compare-<dataset folder>``),
    and returns that folder and its comparison. A verifier learns from the sweep's claims only.
    """
    name = name or f"compare-{re.sub(r'[^A-Za-z0-9._-]+', '-', Path(dataset).resolve().name)}"[:100]
    if not SAFE_NAME.fullmatch(name) or name in (".", ".."):
        raise ValueError(
            f"--name {name!r}: a folder name under the run (a letter or digit first, then letters, digits, "
            "'.', '_' and '-', at most 100 characters); paths such as ../x or /abs are refused"
        )
    store = ResultsStore(run_dir)
    if not (store.dir / "recommendation.json").exists():
        raise ValueError(f"{store.dir}: no recommendation.json (give the folder of a finished sweep)")
    if "config_id" not in store.read_json("recommendation.json"):
        raise ValueError(
            f"{store.dir}: the sweep recommended nothing (no configuration finished: see the error column "
            "of its results.csv), so there is nothing to compare; fix the cause and run the sweep again"
        )
    manifest = store.read_manifest()
    known = {f.name for f in dataclasses.fields(SweepConfig)}
    stored = {k: tuple(v) if isinstance(v, list) else v for k, v in manifest["config"].items() if k in known}
    config = dataclasses.replace(SweepConfig(**stored), name=name, dataset=str(dataset), claims={}, corpus={},
                                 holdout=0.0, confirm="", halving={})  # fmt: skip
    chose_on = store.dataset()  # the sweep's data, unchanged: an adapted verifier learns from it
    sweep_data = store.data_source()
    points = confirmation_points(store, extra)
    runner = SweepRunner(config, store.dir, cache_dir, None, progress, Sampling(), sweep_data)
    result = run_comparison(runner, points, config.metric, roles_of(store, points))
    seen = {(c.claim_id, c.text) for c in chose_on.claims}
    compared = list(runner.store.dataset().claims)
    result["claims_seen_by_sweep"] = sum((c.claim_id, c.text) in seen for c in compared)
    return runner.store.dir, result


def roles_of(store: ResultsStore, points: Sequence[Configuration]) -> dict[str, str]:
    """Recommended (the recommendation or its verifier twin), preset, best dense, or compared, by point id."""
    sweep_rows = store.rows().set_index("config_id")
    rec = store.read_json("recommendation.json")
    recommended = {rec["config_id"], store.read_manifest().get("verified", {}).get(rec["config_id"])}
    dense = (rec.get("dense_rival") or {}).get("config_id")

    def role(point: Configuration) -> str:
        origin = sweep_id(point, sweep_rows)
        if origin in recommended:
            return "recommended"
        return "preset" if point.presets else "best dense" if origin == dense else "compared"

    return {p.config_id: role(p) for p in points}
