"""Pick the best configuration and say, with a paired bootstrap, whether it really beats its rivals.

Rivals are configurations that differ in the chunker only: the same embedder, k, threshold rule,
scope and aggregate. A chunker at another k is a different question, not a competitor.
"""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from vera_lab.bootstrap import paired_bootstrap
from vera_lab.sweep.store import ResultsStore

SCORER_PARAMS = ("param_embedder", "param_k", "param_threshold", "param_scope", "param_aggregate")


def ranked(table: pd.DataFrame, metric: str, final_ids: list[str] | None = None) -> pd.DataFrame:
    """Finished configs, best first: by ``metric``, ties broken by cost (fewer chunks, fewer chars)."""
    if table.empty or "status" not in table:
        return table.iloc[:0]
    ok = table[table["status"] == "ok"]
    if metric not in ok:  # nothing finished: there is no metric column to rank by
        return ok
    if final_ids is not None:
        ok = ok[ok["config_id"].isin(final_ids)]
    ok = ok[ok[metric].map(lambda v: isinstance(v, int | float) and math.isfinite(v))]
    return ok.sort_values(
        [metric, "cost_n_chunks", "cost_chunk_chars"], ascending=[False, True, True], kind="stable"
    )


def rivals(order: pd.DataFrame, best: pd.Series) -> pd.DataFrame:
    """The configs of ``order`` other than ``best`` that share its embedder, k and scorer settings."""
    same = pd.Series(True, index=order.index)
    for column in SCORER_PARAMS:
        same &= order[column].astype(str) == str(best[column])
    return order[same & (order["config_id"] != best["config_id"])]


def recommend(store: ResultsStore, metric: str) -> dict[str, Any]:
    """Write ``recommendation.json``: the best config, its threshold and how sure we are."""
    manifest = store.read_manifest()
    order = ranked(store.rows(), metric, manifest.get("final_config_ids"))
    if order.empty:
        payload: dict[str, Any] = {"metric": metric, "error": "no configuration finished"}
        store.write_json("recommendation.json", payload)
        return payload
    best = order.iloc[0]
    point = store.point(best.config_id)
    best_claims = store.per_claim(best.config_id)

    def compare(row: pd.Series) -> dict[str, Any]:
        result = paired_bootstrap(best_claims, store.per_claim(row.config_id), metric)
        return {"config_id": row.config_id, "preset": row.preset or "", "value": float(row[metric]), **result}

    competitors = rivals(order, best)
    presets = {
        name: compare(row)
        for _, row in competitors[competitors["preset"].fillna("") != ""].iterrows()
        for name in str(row.preset).split(", ")
    }
    payload = {
        "metric": metric,
        "config_id": best.config_id,
        "preset": point.preset,
        "value": float(best[metric]),
        "ci_95": [best.get(f"{metric}_ci_low"), best.get(f"{metric}_ci_high")],
        "config": {
            "chunker": point.chunker_params,
            "embedder": point.embedder,
            "k": point.k,
            "aggregate": point.aggregate,
            "scope": point.scope,
            "threshold": float(best["threshold"]),
            "threshold_rule": point.threshold,
        },
        "cost": {"n_chunks": int(best.cost_n_chunks), "chunk_chars": int(best.cost_chunk_chars)},
        "vs_runner_up": compare(competitors.iloc[0]) if len(competitors) else None,
        "vs_presets": presets,
        "n_compared": len(competitors) + 1,
        "compared_at": {c.removeprefix("param_"): _plain(best[c]) for c in SCORER_PARAMS},
        "dataset": manifest["data"]["path"],
        "data_fingerprint": manifest["data"]["fingerprint"],
        "note": "Threshold calibrated on the sweep's claims; check it on held-out claims with "
        "`vera-lab evaluate --config recommendation.json --dataset OTHER_DIR`.",
    }
    store.write_json("recommendation.json", payload)
    return payload


def _plain(value: Any) -> Any:
    return value.item() if hasattr(value, "item") else value
