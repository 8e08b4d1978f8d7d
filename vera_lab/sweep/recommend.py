"""Pick a configuration honestly: the cheapest of those the data cannot tell from the best.

Rivals are configurations that differ in the chunker only: the same embedder, k, threshold rule,
scope, aggregate and scorer (a chunker at another k answers a different question). Each rival is
compared with the best by a paired bootstrap over claims; Holm's correction accounts for how many
were compared. The configurations not significantly worse than the best form the indistinguishable
set, and the recommendation is its cheapest member: fewest characters embedded, then fewest chunks.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from vera_lab.bootstrap import holm_adjusted, paired_bootstrap
from vera_lab.sweep.config import SCORER_PARAMS, SweepPoint
from vera_lab.sweep.stability import rank_stability
from vera_lab.sweep.store import ResultsStore

ALPHA = 0.05
MIN_CLAIMS = 100  # fewer claims with evidence than this: the recommendation is inconclusive
MAX_CI_WIDTH = 0.2  # a 95% interval wider than this share of the metric's 0-1 range: inconclusive
RULE = (
    "the cheapest configuration (fewest characters embedded, then fewest chunks) among those not "
    f"significantly worse than the best by {{metric}} (paired bootstrap over claims, Holm-corrected for "
    f"the number of rivals compared, alpha {ALPHA}); rivals share embedder, k, threshold rule, scope, "
    "aggregate and scorer"
)


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


def indistinguishable(
    store: ResultsStore, best: pd.Series, others: pd.DataFrame, metric: str
) -> pd.DataFrame:
    """Each rival against the best, the best itself first (never compared with itself).

    Columns: difference (best - rival), its 95% CI, p-value, Holm-adjusted p, and ``worse``.
    """
    best_claims = store.per_claim(best.config_id)
    rows = [{"config_id": best.config_id, "diff": 0.0, "ci_low": 0.0, "ci_high": 0.0, "p_value": 1.0}]
    for _, row in others.iterrows():
        result = paired_bootstrap(best_claims, store.per_claim(row.config_id), metric)
        rows.append(
            {"config_id": row.config_id, **{k: result[k] for k in ("diff", "ci_low", "ci_high", "p_value")}}
        )
    out = pd.DataFrame(rows)
    out["p_holm"] = np.r_[1.0, holm_adjusted(out["p_value"].to_numpy()[1:])] if len(out) > 1 else [1.0]
    out["worse"] = (out["p_holm"] <= ALPHA) & (out["diff"] > 0)
    return out


def inconclusive_reasons(best: pd.Series, metric: str, n_claims: int) -> list[str]:
    """Why a recommendation cannot be trusted yet (empty when it can)."""
    reasons = []
    if n_claims < MIN_CLAIMS:
        reasons.append(f"only {n_claims} claims with evidence (fewer than {MIN_CLAIMS})")
    low, high = best.get(f"{metric}_ci_low"), best.get(f"{metric}_ci_high")
    if low is not None and high is not None and pd.notna(low) and high - low > MAX_CI_WIDTH:
        reasons.append(f"the 95% CI of {metric} is {high - low:.2f} wide (more than {MAX_CI_WIDTH})")
    return reasons


def recommend(store: ResultsStore, metric: str) -> dict[str, Any]:
    """Write ``recommendation.json`` and return it.

    It holds the recommended config, the best by the metric, the indistinguishable set, the
    comparisons with the presets, the grounding baseline, and how sure we are.
    """
    manifest = store.read_manifest()
    order = ranked(store.rows(), metric, manifest.get("final_config_ids"))
    if order.empty:
        payload: dict[str, Any] = {"metric": metric, "error": "no configuration finished"}
        store.write_json("recommendation.json", payload)
        return payload
    best = order.iloc[0]
    competitors = rivals(order, best)
    compared = indistinguishable(store, best, competitors, metric).set_index("config_id")
    members = order[order["config_id"].isin(compared.index[~compared["worse"]])]
    chosen = members.sort_values(["cost_chunk_chars", "cost_n_chunks", metric], ascending=[True, True, False],
                                 kind="stable").iloc[0]  # fmt: skip
    point = store.point(chosen.config_id)
    chosen_claims = store.per_claim(chosen.config_id)

    def compare(row: pd.Series) -> dict[str, Any]:
        result = paired_bootstrap(chosen_claims, store.per_claim(row.config_id), metric)
        return {"config_id": row.config_id, "preset": row.preset or "", "value": float(row[metric]), **result}

    preset_rows = rivals(order, chosen)
    preset_rows = preset_rows[preset_rows["preset"].fillna("") != ""]
    presets = {
        name: compare(row) for _, row in preset_rows.iterrows() for name in str(row.preset).split(", ")
    }
    if presets:  # the presets are a family of comparisons too
        adjusted = holm_adjusted([c["p_value"] for c in presets.values()])
        for c, p in zip(presets.values(), adjusted, strict=True):
            c["p_holm"], c["significant"] = float(p), bool(p <= ALPHA)
    n_claims = int(chosen_claims["hit"].notna().sum()) if "hit" in chosen_claims else len(chosen_claims)
    payload = {
        "metric": metric,
        "rule": RULE.format(metric=metric),
        "config_id": chosen.config_id,
        "preset": point.preset,
        "value": float(chosen[metric]),
        "ci_95": [_plain(chosen.get(f"{metric}_ci_low")), _plain(chosen.get(f"{metric}_ci_high"))],
        "config": {
            "chunker": point.chunker_params,
            "embedder": point.embedder,
            "k": point.k,
            "aggregate": point.aggregate,
            "scope": point.scope,
            "threshold": float(chosen["threshold"]),
            "threshold_rule": point.threshold,
            "scorer": point.scorer,
        },
        "cost": {"n_chunks": int(chosen.cost_n_chunks), "chunk_chars": int(chosen.cost_chunk_chars)},
        "best_by_metric": {
            "config_id": best.config_id,
            "preset": best.preset or "",
            "value": float(best[metric]),
            "ci_95": [_plain(best.get(f"{metric}_ci_low")), _plain(best.get(f"{metric}_ci_high"))],
            "cost": {"n_chunks": int(best.cost_n_chunks), "chunk_chars": int(best.cost_chunk_chars)},
        },
        "indistinguishable": list(members["config_id"]),
        "comparisons_with_best": {
            cid: {k: _plain(v) for k, v in row.items()} for cid, row in compared.iloc[1:].iterrows()
        },
        "vs_best": compare(best) if best.config_id != chosen.config_id else None,
        "vs_presets": presets,
        "grounding": _grounding(chosen),
        "n_compared": len(competitors) + 1,
        "n_claims_with_evidence": n_claims,
        "compared_at": {c.removeprefix("param_"): _plain(best[c]) for c in SCORER_PARAMS},
        "inconclusive": inconclusive_reasons(chosen, metric, n_claims),
        "stability": rank_stability(order, metric),
        "dataset": manifest["data"]["path"],
        "data_fingerprint": manifest["data"]["fingerprint"],
        "note": "Grounding figures are out of fold; the threshold above is fitted on all the sweep's claims "
        "for use. Check it on held-out claims with `vera-lab evaluate --config recommendation.json "
        "--dataset OTHER_DIR`.",
    }
    store.write_json("recommendation.json", payload)
    return payload


def _grounding(row: pd.Series) -> dict[str, Any]:
    """The recommendation's grounding figures beside calling every claim grounded."""
    keys = ("grounding_f1", "grounding_f1_in_sample", "grounding_f1_trivial", "grounding_f1_lift",
            "grounding_f1_lift_ci_low", "grounding_f1_lift_ci_high", "grounding_roc_auc")  # fmt: skip
    out = {k: _plain(row[k]) for k in keys if k in row}
    if "grounding_f1_lift_ci_low" in row:
        out["beats_trivial"] = bool(row["grounding_f1_lift_ci_low"] > 0)
    return out


def _plain(value: Any) -> Any:
    value = value.item() if hasattr(value, "item") else value
    return None if isinstance(value, float) and math.isnan(value) else value


def recommended_point(path: str | Path) -> SweepPoint:
    """The configuration a ``recommendation.json`` recommends, with its fitted threshold.

    ``path`` is the file or the run folder holding it; a file that is not a recommendation raises a
    ValueError naming it.
    """
    path = Path(path)
    if path.is_dir():
        path = path / "recommendation.json"
    try:
        config = json.loads(path.read_text(encoding="utf-8"))["config"]
        return SweepPoint.create(
            dict(config["chunker"]), config["embedder"], config["k"], config["threshold"],
            config["scope"], config["aggregate"], config.get("scorer", "cosine"),
        )  # fmt: skip
    except (OSError, ValueError, KeyError, TypeError) as exc:
        problem = f"{type(exc).__name__}: {exc}"
        raise ValueError(f"{path}: not a readable recommendation.json ({problem})") from None
