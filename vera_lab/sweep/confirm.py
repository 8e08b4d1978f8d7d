"""Confirm a sweep's choice on held-out claims: the recommendation and the seed presets, unchanged.

Each configuration keeps everything the sweep fitted, its calibrated threshold included, and is
evaluated once on held-out claims: the share of the sweep's own claims set aside before it ran
(``holdout:``, store ``<run>/holdout/``) and/or another dataset (``confirm:``, ``<run>/confirm/``).
``confirmation.json`` puts the sweep's estimate and the held-out figures side by side, and the
recommendation reports its held-out figures.
"""

from __future__ import annotations

import dataclasses
from concurrent.futures import Executor
from pathlib import Path
from typing import Any

import pandas as pd

from vera_lab.sweep.config import SweepConfig, SweepPoint
from vera_lab.sweep.data import Sampling
from vera_lab.sweep.recommend import rivals
from vera_lab.sweep.store import ResultsStore

# Shown side by side, each with its 95% bootstrap interval.
CONFIRMED_METRICS = ("budget_recall", "recall_at_500", "recall_at_1000", "recall_at_2000", "recall_at_4000",
                     "hit", "mrr", "grounding_f1")  # fmt: skip


def confirmation_points(store: ResultsStore) -> list[SweepPoint]:
    """The recommendation and the presets run at its scorer settings, each with its fitted threshold.

    The recommendation's verifier twin joins them where the sweep verified it.
    """
    rec = store.read_json("recommendation.json")
    if "config_id" not in rec:
        return []
    table = store.rows().set_index("config_id", drop=False)
    best = table.loc[rec["config_id"]]
    finished = table[table["status"] == "ok"]
    presets = rivals(finished[finished["preset"].fillna("") != ""], best)
    chosen = [rec["config_id"], *presets["config_id"]]
    # The recommendation judged by the verifier too: on 2 cores the presets' long chunks cost the
    # verifier minutes per held-out set, and the verifier's preset comparison is made on the sweep's claims.
    twin = store.read_manifest().get("verified", {}).get(rec["config_id"])
    chosen += [twin] if twin in finished.index else []
    points = store.points()
    return [
        SweepPoint.from_dict({**points[cid].to_dict(), "threshold": float(table.loc[cid, "threshold"])})
        for cid in chosen
    ]


def confirm(
    store: ResultsStore,
    config: SweepConfig,
    sampling: Sampling,
    cache_dir: str | Path,
    executor: Executor | None = None,
    progress: bool = True,
) -> list[dict[str, Any]]:
    """Evaluate the chosen configurations on every held-out set of the sweep.

    The held-out sets are the claims set aside from the sweep's own dataset (``holdout``) and the
    ``confirm`` dataset; ``confirmation.json`` gets one entry each, and the recommendation its
    figures on the first.
    """
    points = confirmation_points(store)
    if not points:
        return []
    targets = []
    if config.holdout:
        part = dataclasses.replace(sampling, part="holdout")
        targets.append((dataclasses.replace(config, name="holdout"), part))
    if config.confirm:
        whole = dataclasses.replace(
            config, name="confirm", dataset=config.confirm, claims={}, corpus={}, holdout=0.0
        )
        targets.append((whole, Sampling(documents=config.confirm_documents)))
    entries = [
        _run_held_out(
            store, held_out, part, points, cache_dir, executor, progress, (config.dataset, sampling)
        )
        for held_out, part in targets
    ]
    store.write_json("confirmation.json", {"confirmations": entries})
    rec = store.read_json("recommendation.json")
    first = entries[0]["rows"][0]  # the recommended config on the first held-out set
    store.write_json(
        "recommendation.json", {**rec, "held_out": {"data": entries[0]["held_out_data"], **first["held_out"]}}
    )
    return entries


def _run_held_out(
    store: ResultsStore,
    config: SweepConfig,
    sampling: Sampling,
    points: list[SweepPoint],
    cache_dir: str | Path,
    executor: Executor | None,
    progress: bool,
    verifier_source: tuple[str, Sampling],
) -> dict[str, Any]:
    from vera_lab.sweep.runner import SweepRunner

    # A verifier learns from the sweep's claims only; the held-out claims are never trained on.
    runner = SweepRunner(config, store.dir, cache_dir, executor, progress, sampling, verifier_source)
    runner.check_stored_data(points)
    runner.write_manifest(points)
    runner.run(points, desc=config.name)
    manifest = runner.store.read_manifest()
    runner.store.write_manifest({**manifest, "final_config_ids": [p.config_id for p in points]})
    held_out_rows = runner.store.write_table().set_index("config_id")
    sweep_rows = store.rows().set_index("config_id")
    rec_id = store.read_json("recommendation.json")["config_id"]
    recommended = {rec_id, store.read_manifest().get("verified", {}).get(rec_id)}
    rows = []
    for point in points:
        sweep_id = _sweep_id(point, sweep_rows)
        rows.append(
            {
                "config_id": sweep_id,
                "role": "recommended" if sweep_id in recommended else "preset",
                "scorer": point.scorer,
                "preset": point.preset,
                "threshold": point.threshold,
                "sweep": _figures(sweep_rows.loc[sweep_id]),
                "held_out": _figures(held_out_rows.loc[point.config_id]),
            }
        )
    name = manifest["data"]["name"] + (" (held-out claims)" if sampling.part == "holdout" else "")
    return {
        "store": config.name,
        "sweep_data": store.read_manifest()["data"]["name"]
        + (" (selection claims)" if sampling.part == "holdout" else ""),
        "held_out_data": name,
        "held_out_fingerprint": manifest["data"]["fingerprint"],
        "claims": manifest["data"]["claims"],
        "rows": rows,
        "note": "Every configuration keeps the threshold it was calibrated to on the sweep's claims; "
        "nothing is fitted on the held-out claims.",
    }


def _sweep_id(point: SweepPoint, sweep_rows: pd.DataFrame) -> str:
    """The sweep's config id of a confirmation point (the same configuration, threshold 'calibrate')."""
    for threshold in ("calibrate", point.threshold):
        candidate = dataclasses.replace(point, threshold=threshold).config_id
        if candidate in sweep_rows.index:
            return candidate
    raise KeyError(f"no sweep row for confirmation config {point.config_id}")


def _figures(row: pd.Series) -> dict[str, list[float] | float]:
    out: dict[str, Any] = {}
    for metric in CONFIRMED_METRICS:
        if metric in row and pd.notna(row[metric]):
            ci = [row.get(f"{metric}_ci_low"), row.get(f"{metric}_ci_high")]
            out[metric] = [float(row[metric]), *(float(v) if pd.notna(v) else None for v in ci)]
    return out
