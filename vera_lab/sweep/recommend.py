"""Pick the best configuration and say, with a paired bootstrap, whether it really beats the others."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from vera_lab.bootstrap import paired_bootstrap
from vera_lab.sweep.store import ResultsStore


def ranked(table: pd.DataFrame, metric: str, final_ids: list[str] | None = None) -> pd.DataFrame:
    """Finished configs, best first: by ``metric``, ties broken by cost (fewer chunks, fewer chars)."""
    ok = table[table["status"] == "ok"]
    if final_ids is not None:
        ok = ok[ok["config_id"].isin(final_ids)]
    ok = ok[ok[metric].map(lambda v: isinstance(v, int | float) and math.isfinite(v))]
    return ok.sort_values(
        [metric, "cost_n_chunks", "cost_chunk_chars"], ascending=[False, True, True], kind="stable"
    )


def chunker_params(row: pd.Series) -> dict[str, Any]:
    """The chunker parameters of a row's ``param_*`` columns (whole floats back to ints)."""
    params = {}
    for key, value in row.items():
        if key.startswith("param_") and not (isinstance(value, float) and math.isnan(value)):
            value = value.item() if hasattr(value, "item") else value
            if isinstance(value, float) and value.is_integer() and value >= 1:  # pandas widened it
                value = int(value)
            params[key.removeprefix("param_")] = value
    return params


def recommend(store: ResultsStore, metric: str) -> dict[str, Any]:
    """Write ``recommendation.json``: the best config, its threshold and how sure we are."""
    manifest = store.read_manifest()
    order = ranked(store.rows(), metric, manifest.get("final_config_ids"))
    if order.empty:
        payload: dict[str, Any] = {"metric": metric, "error": "no configuration finished"}
        store.write_json("recommendation.json", payload)
        return payload
    best = order.iloc[0]
    best_claims = store.per_claim(best.config_id)

    def compare(row: pd.Series) -> dict[str, Any]:
        result = paired_bootstrap(best_claims, store.per_claim(row.config_id), metric)
        return {"config_id": row.config_id, "preset": row.preset or "", "value": float(row[metric]), **result}

    presets = {}
    for _, row in order[order["preset"].fillna("") != ""].iterrows():
        if row.config_id != best.config_id:
            presets[row.preset] = compare(row)
    payload = {
        "metric": metric,
        "config_id": best.config_id,
        "preset": best.preset or "",
        "value": float(best[metric]),
        "ci_95": [best.get(f"{metric}_ci_low"), best.get(f"{metric}_ci_high")],
        "config": {
            "chunker": dict(manifest["points"][best.config_id]["chunker"]),  # exact types, unlike the table
            "embedder": best["embedder"],
            "k": int(best["k"]),
            "aggregate": best["aggregate"],
            "scope": best["scope"],
            "threshold": float(best["threshold"]),
        },
        "cost": {"n_chunks": int(best.cost_n_chunks), "chunk_chars": int(best.cost_chunk_chars)},
        "vs_runner_up": compare(order.iloc[1]) if len(order) > 1 else None,
        "vs_presets": presets,
        "n_compared": len(order),
        "dataset": manifest["dataset"]["path"],
        "note": "Threshold calibrated on the sweep's claims; check it on held-out claims with "
        "`vera-lab evaluate --config recommendation.json --dataset OTHER_DIR`.",
    }
    store.write_json("recommendation.json", payload)
    return payload
