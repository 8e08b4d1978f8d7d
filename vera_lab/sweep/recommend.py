"""Pick a configuration honestly: the cheapest of those the data cannot tell from the best.

Rivals are configurations that differ in the chunker only: the same embedder, k, threshold rule,
scope, aggregate and scorer (a chunker at another k answers a different question). Each rival is
compared with the best by a paired bootstrap that resamples the dataset's clusters (claims about one
document are not independent; see :mod:`vera_lab.data.clusters`); Holm's correction accounts for how
many were compared. The configurations not significantly worse than the best form the
indistinguishable set, and the recommendation is its cheapest member by the cost the user prefers:
the smallest retrieval index, then the fewest forward tokens embedded to retrieve (``prefer:
smallest_index``, the default: a dense pipeline stores vectors, BM25 its postings, hybrid both, and
BM25 embeds nothing), fewest vectors then tokens (``fewest_vectors``), the other way round
(``fewest_tokens``), or simply the best (``best``).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from vera_lab.data.clusters import describe_clusters
from vera_lab.metrics.bootstrap import holm_adjusted, paired_bootstrap
from vera_lab.sweep.config import PREFER, SCORER_PARAMS, Configuration
from vera_lab.sweep.stability import rank_stability
from vera_lab.sweep.store import ResultsStore

ALPHA = 0.05
MIN_CLAIMS = 100  # fewer claims with evidence than this: the recommendation is inconclusive
MAX_CI_WIDTH = 0.2  # a 95% interval wider than this share of the metric's 0-1 range: inconclusive
MIN_CLUSTERS = 20  # fewer independent clusters than this: the recommendation is inconclusive
# How the indistinguishable set is ordered to pick the recommendation (ties: the better metric value).
COST_ORDER = {
    "smallest_index": ("cost_stored_mb", "cost_retrieval_tokens"),
    "fewest_vectors": ("cost_n_chunks", "cost_forward_tokens"),
    "fewest_tokens": ("cost_forward_tokens", "cost_n_chunks"),
    "best": (),
}
PREFERRED = {
    "smallest_index": "the smallest retrieval index stored (vectors for dense retrieval, postings for BM25, "
    "both for hybrid), then the fewest forward tokens embedded to retrieve,",
    "fewest_vectors": "the fewest vectors stored (chunks), then the fewest forward tokens embedded,",
    "fewest_tokens": "the fewest forward tokens embedded, then the fewest vectors stored (chunks),",
    "best": "the best value of the metric",
}
RULE = (
    "the configuration with {preferred} among those not significantly worse than the best by {metric} "
    f"(paired bootstrap over {{resampled}}, Holm-corrected for the number of rivals compared, "
    f"alpha {ALPHA}); rivals share embedder, k, threshold rule, scope, aggregate and scorer"
)


def ranked(table: pd.DataFrame, metric: str, final_ids: list[str] | None = None) -> pd.DataFrame:
    """Finished configs, best first: by ``metric``, ties broken by cost (fewer chunks, fewer chars)."""
    if table.empty or "status" not in table:
        return table.iloc[:0]
    ok = table[table["status"] == "ok"]
    if metric not in ok:  # nothing that measures it finished: there is no column to rank by
        return ok.iloc[:0]
    if final_ids is not None:
        ok = ok[ok["config_id"].isin(final_ids)]
    ok = ok.loc[ok[metric].map(lambda v: isinstance(v, int | float) and math.isfinite(v)).astype(bool)]
    return ok.sort_values(
        [metric, "cost_n_chunks", "cost_chunk_chars"], ascending=[False, True, True], kind="stable"
    )


def rivals(order: pd.DataFrame, best: pd.Series) -> pd.DataFrame:
    """The configs of ``order`` other than ``best`` that share its embedder, k and scorer settings."""
    return order[_same_scorer(order, best) & (order["config_id"] != best["config_id"])]


def clusters_of(per_claim: pd.DataFrame) -> np.ndarray | None:
    """The cluster of each per-claim row, as the sweep stored it (None: a store from before clusters)."""
    return per_claim["cluster"].to_numpy() if "cluster" in per_claim else None


def resampling(per_claim: pd.DataFrame, cluster_by: str | None) -> dict[str, Any]:
    """What the bootstrap resampled for these rows: the unit and how many clusters."""
    clusters = clusters_of(per_claim)
    if clusters is None:
        return {"cluster_by": "claim", "resampled": "claims", "clusters": len(per_claim),
                "claims": len(per_claim), "largest_cluster": 1,
                "note": "stored before clusters were recorded: claims resampled one by one"}  # fmt: skip
    return describe_clusters(clusters, cluster_by or "document")


def indistinguishable(
    store: ResultsStore, best: pd.Series, others: pd.DataFrame, metric: str
) -> pd.DataFrame:
    """Each rival against the best, the best itself first (never compared with itself).

    Columns: difference (best - rival), its 95% CI, p-value, Holm-adjusted p, and ``worse``. The
    bootstrap resamples the clusters stored with the best's per-claim rows.
    """
    best_claims = store.per_claim(best.config_id)
    clusters = clusters_of(best_claims)
    rows = [{"config_id": best.config_id, "diff": 0.0, "ci_low": 0.0, "ci_high": 0.0, "p_value": 1.0}]
    for _, row in others.iterrows():
        result = paired_bootstrap(best_claims, store.per_claim(row.config_id), metric, clusters=clusters)
        rows.append(
            {"config_id": row.config_id, **{k: result[k] for k in ("diff", "ci_low", "ci_high", "p_value")}}
        )
    out = pd.DataFrame(rows)
    out["p_holm"] = np.r_[1.0, holm_adjusted(out["p_value"].to_numpy()[1:])] if len(out) > 1 else [1.0]
    out["worse"] = (out["p_holm"] <= ALPHA) & (out["diff"] > 0)
    return out


THIN_RULE = (
    "the best point estimate by {metric}: the data are too thin to tell the configurations apart "
    "(inconclusive), so the cheapest of those not significantly worse than the best would be a guess; "
    "once conclusive, the rule is the configuration with {preferred} among those not significantly worse "
    "than the best (paired bootstrap over {resampled}, Holm-corrected, alpha 0.05)"
)


def thin_data(best: pd.Series, best_claims: pd.DataFrame, metric: str, cluster_by: str | None) -> list[str]:
    """Why the data cannot yet choose by cost (empty when they can): the best's inconclusive reasons."""
    sampled = resampling(best_claims, cluster_by)
    n_claims = int(best_claims["hit"].notna().sum()) if "hit" in best_claims else len(best_claims)
    n_clusters = sampled["clusters"] if sampled["resampled"] != "claims" else None
    return inconclusive_reasons(best, metric, n_claims, n_clusters)


def inconclusive_reasons(
    best: pd.Series, metric: str, n_claims: int, n_clusters: int | None = None
) -> list[str]:
    """Why a recommendation cannot be trusted yet (empty when it can)."""
    reasons = []
    if n_claims < MIN_CLAIMS:
        reasons.append(f"only {n_claims} claims with evidence (fewer than {MIN_CLAIMS})")
    if n_clusters is not None and n_clusters < MIN_CLUSTERS:
        reasons.append(
            f"only {n_clusters} independent clusters of claims (fewer than {MIN_CLUSTERS}): "
            "the intervals resample too few units to be trusted"
        )
    low, high = best.get(f"{metric}_ci_low"), best.get(f"{metric}_ci_high")
    if low is not None and high is not None and pd.notna(low) and high - low > MAX_CI_WIDTH:
        reasons.append(f"the 95% CI of {metric} is {high - low:.2f} wide (more than {MAX_CI_WIDTH})")
    return reasons


NOTE = (
    "Grounding figures are out of fold; the threshold above is fitted on all the sweep's claims for use. "
    "Check it and the presets on held-out claims with `vera-lab compare RUN_DIR --dataset OTHER_DIR`."
)


def recommend(store: ResultsStore, metric: str, prefer: str = "smallest_index") -> dict[str, Any]:
    """Write ``recommendation.json`` and return it.

    It holds the recommended config, the best by the metric, the indistinguishable set, the
    comparisons with the presets, the grounding baseline, what was resampled, and how sure we are.
    """
    if prefer not in PREFER:
        raise ValueError(f"prefer {prefer!r}: one of {', '.join(PREFER)}")
    manifest = store.read_manifest()
    order = ranked(store.rows(), metric, manifest.get("final_config_ids"))
    if order.empty:
        return _no_recommendation(store, metric)
    prefer = applied_preference(order, prefer)
    best, compared, cheapest = choose(store, order, metric, prefer)
    thin = thin_data(best, store.per_claim(best.config_id), metric, manifest["data"].get("cluster_by"))
    chosen = best if thin else cheapest  # the cheapest of a set this wide is a guess: the best is better
    point = store.point(chosen.config_id)
    chosen_claims = store.per_claim(chosen.config_id)
    sampled = resampling(chosen_claims, manifest["data"].get("cluster_by"))
    compare = _comparer(store, chosen_claims, metric)
    n_claims = int(chosen_claims["hit"].notna().sum()) if "hit" in chosen_claims else len(chosen_claims)
    n_clusters = sampled["clusters"] if sampled["resampled"] != "claims" else None
    runners = rivals(order, chosen)
    payload = {
        "metric": metric,
        "rule": (THIN_RULE if thin else RULE).format(
            metric=metric, preferred=PREFERRED[prefer], resampled=sampled["resampled"]
        ),
        "thin_data": thin,
        "cheapest_by_rule": cheapest.config_id,
        "runner_up": compare(runners.iloc[0]) if len(runners) else None,
        "prefer": prefer,
        "resampling": sampled,
        "config_id": chosen.config_id,
        "preset": point.preset,
        "value": float(chosen[metric]),
        "ci_95": _interval(chosen, metric),
        "config": _configuration(point, chosen),
        "cost": cost_of(chosen),
        "best_by_metric": _summary(best, metric),
        "indistinguishable": list(members_of(order, compared)["config_id"]),
        "comparisons_with_best": {
            cid: {k: _plain(v) for k, v in row.items()} for cid, row in compared.iloc[1:].iterrows()
        },
        "vs_best": compare(best) if best.config_id != chosen.config_id else None,
        "vs_presets": _vs_presets(order, chosen, compare),
        "grounding": _grounding(chosen),
        "n_compared": len(compared),
        "n_claims_with_evidence": n_claims,
        "compared_at": {c.removeprefix("param_"): _plain(best[c]) for c in SCORER_PARAMS},
        "inconclusive": inconclusive_reasons(chosen, metric, n_claims, n_clusters),
        "stability": rank_stability(order, metric),
        "best_by_pipeline": best_by_pipeline(order, metric),
        "dense_rival": dense_rival(store, order, chosen, metric, prefer, compare),
        "dataset": manifest["data"]["path"],
        "data_fingerprint": manifest["data"]["fingerprint"],
        "note": NOTE,
    }
    store.write_json("recommendation.json", payload)
    return payload


def _comparer(store: ResultsStore, chosen_claims: pd.DataFrame, metric: str):
    """A function pairing a configuration's row with the choice: its value and the paired bootstrap."""
    clusters = clusters_of(chosen_claims)

    def compare(row: pd.Series) -> dict[str, Any]:
        result = paired_bootstrap(chosen_claims, store.per_claim(row.config_id), metric, clusters=clusters)
        return {"config_id": row.config_id, "preset": row.preset or "", "value": float(row[metric]), **result}

    return compare


def _no_recommendation(store: ResultsStore, metric: str) -> dict[str, Any]:
    """``recommendation.json`` saying why there is none: nothing finished, or no gold evidence."""
    rows = store.rows()
    finished = int((rows["status"] == "ok").sum()) if "status" in rows else 0
    error = (
        f"no configuration has a value of {metric}: it needs claims with gold evidence, and none of "
        f"the {finished} finished configurations had any (choose metric grounding_f1, or add evidence)"
        if finished
        else "no configuration finished"
    )
    payload: dict[str, Any] = {"metric": metric, "error": error}
    store.write_json("recommendation.json", payload)
    return payload


def _vs_presets(order: pd.DataFrame, chosen: pd.Series, compare) -> dict[str, dict[str, Any]]:
    """The choice against each seed preset, Holm-corrected: the presets are a family of comparisons."""
    preset_rows = rivals(order, chosen)
    preset_rows = preset_rows[preset_rows["preset"].fillna("") != ""]
    presets = {
        name: compare(row) for _, row in preset_rows.iterrows() for name in str(row.preset).split(", ")
    }
    if presets:
        adjusted = holm_adjusted([c["p_value"] for c in presets.values()])
        for c, p in zip(presets.values(), adjusted, strict=True):
            c["p_holm"], c["significant"] = float(p), bool(p <= ALPHA)
    return presets


def _configuration(point: Configuration, chosen: pd.Series) -> dict[str, Any]:
    """The recommended configuration's parameters, with the threshold fitted on every claim."""
    return {
        "chunker": point.chunker_params,
        "embedder": point.embedder,
        "k": point.k,
        "aggregate": point.aggregate,
        "scope": point.scope,
        "threshold": float(chosen["threshold"]),
        "threshold_rule": point.threshold,
        "scorer": point.scorer,
        **({"retrieval": point.pipeline.identity()} if point.pipeline.identity() else {}),
    }


def _summary(row: pd.Series, metric: str) -> dict[str, Any]:
    return {
        "config_id": row.config_id,
        "preset": row.preset or "",
        "value": float(row[metric]),
        "ci_95": _interval(row, metric),
        "cost": cost_of(row),
    }


def _interval(row: pd.Series, metric: str) -> list:
    return [_plain(row.get(f"{metric}_ci_low")), _plain(row.get(f"{metric}_ci_high"))]


COST_COLUMNS = {"vectors": "cost_n_chunks", "forward_tokens": "cost_forward_tokens",
                "truncated_chars": "cost_truncated_chars", "embed_seconds": "cost_embed_seconds",
                "chunk_chars": "cost_chunk_chars"}  # fmt: skip


def cost_of(row: pd.Series) -> dict[str, Any]:
    """A configuration's cost as plain data: vectors, forward tokens, characters never read, seconds.

    ``stored_mb`` is what its retrieval index stores: vectors, postings or both (absent in older runs).
    """
    out = {name: _plain(row.get(column)) for name, column in COST_COLUMNS.items() if column in row}
    out = {k: int(v) if isinstance(v, float) and k != "embed_seconds" else v for k, v in out.items()}
    stored = pipeline_costs(row.to_frame().T)
    if "cost_stored_mb" in stored:
        out["stored_mb"] = round(float(stored["cost_stored_mb"].iloc[0]), 3)
    return out


def applied_preference(rows: pd.DataFrame, prefer: str) -> str:
    """``prefer``, or ``fewest_vectors`` for ``smallest_index`` on a run from before index sizes."""
    return "fewest_vectors" if prefer == "smallest_index" and "cost_index_mb" not in rows else prefer


def pipeline_costs(rows: pd.DataFrame) -> pd.DataFrame:
    """``rows`` with what retrieval stores and embeds: ``cost_stored_mb`` and ``cost_retrieval_tokens``.

    A dense pipeline stores its vectors, BM25 its postings, hybrid both; BM25 embeds nothing to
    retrieve. Rows stored before the index sizes were recorded are returned unchanged.
    """
    if "cost_index_mb" not in rows or "cost_forward_tokens" not in rows:
        return rows
    retriever = rows.get("param_retriever", pd.Series("dense", index=rows.index)).fillna("dense").astype(str)
    dense, lexical = retriever != "bm25", retriever != "dense"  # hybrid is both
    postings = rows.get("cost_bm25_index_mb", pd.Series(0.0, index=rows.index)).astype(float).fillna(0.0)
    return rows.assign(
        cost_stored_mb=rows["cost_index_mb"].astype(float).where(dense, 0.0) + postings.where(lexical, 0.0),
        cost_retrieval_tokens=rows["cost_forward_tokens"].astype(float).where(dense, 0.0),
    )


# After the embedding cost: what a pipeline adds (verifier pairs read per query set, BM25 index size).
PIPELINE_COST = ("cost_rerank_pairs", "cost_bm25_index_mb")


def by_preference(members: pd.DataFrame, metric: str, prefer: str) -> pd.DataFrame:
    """Members in the order the rule prefers them.

    The preferred cost first, then the cheaper pipeline, the better metric last. Unknown embedding
    costs sort last; a pipeline without reranking or BM25 adds nothing.
    """
    extra = [c for c in PIPELINE_COST if c in members]
    filled = pipeline_costs(members.assign(**{c: members[c].fillna(0.0) for c in extra}))
    prefer = applied_preference(filled, prefer)
    keys = [c for c in COST_ORDER[prefer] if c in filled] + ([] if prefer == "best" else extra)
    order = filled.sort_values(
        [*keys, metric], ascending=[True] * len(keys) + [False], kind="stable", na_position="last"
    )
    return members.loc[order.index]


def choose(
    store: ResultsStore, order: pd.DataFrame, metric: str, prefer: str
) -> tuple[pd.Series, pd.DataFrame, pd.Series]:
    """The rule on a ranked table: (the best, its rivals' comparisons indexed by id, the choice)."""
    best = order.iloc[0]
    compared = indistinguishable(store, best, rivals(order, best), metric).set_index("config_id")
    return best, compared, cheapest(members_of(order, compared), metric, prefer)


def members_of(order: pd.DataFrame, compared: pd.DataFrame) -> pd.DataFrame:
    """The rows of ``order`` not significantly worse than the best, best first."""
    return order[order["config_id"].isin(compared.index[~compared["worse"]])]


def dense_rival(
    store: ResultsStore, order: pd.DataFrame, chosen: pd.Series, metric: str, prefer: str, compare
) -> dict[str, Any] | None:
    """What the rule would choose under plain dense retrieval alone, against the choice.

    None when the sweep has no other pipeline, or the choice is dense: then nothing is added.
    """
    if "param_retriever" not in order:
        return None
    dense = order[(order["param_pipeline"] == "dense") & _same_scorer(order, chosen)]
    if dense.empty or chosen["param_pipeline"] == "dense" or order["param_pipeline"].nunique() < 2:
        return None
    _, _, rival = choose(store, dense, metric, prefer)
    return {
        **compare(rival),
        "ci_95": [_plain(rival.get(f"{metric}_ci_low")), _plain(rival.get(f"{metric}_ci_high"))],
        "cost": cost_of(rival),
        "note": "the same rule among dense-retrieval configurations only: what choosing the pipeline adds "
        "(diff = recommendation - this)",
    }


def _same_scorer(order: pd.DataFrame, row: pd.Series) -> pd.Series:
    same = pd.Series(True, index=order.index)
    for column in SCORER_PARAMS:
        same &= order[column].astype(str) == str(row[column])
    return same


def cheapest(members: pd.DataFrame, metric: str, prefer: str) -> pd.Series:
    """The member the rule prefers (see :func:`by_preference`)."""
    return by_preference(members, metric, prefer).iloc[0]


def best_by_pipeline(order: pd.DataFrame, metric: str) -> dict[str, dict[str, Any]]:
    """With more than one retrieval pipeline: each one's best configuration (the order is best first)."""
    if "param_pipeline" not in order or order["param_pipeline"].nunique() < 2:
        return {}
    out = {}
    for pipeline, group in order.groupby("param_pipeline", sort=False):
        best = group.iloc[0]
        chunker = json.loads(best["params"])["chunker"]
        out[str(pipeline)] = {
            "config_id": best["config_id"],
            "value": float(best[metric]),
            "chunker": chunker,
        }
    return out


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


def recommended_point(path: str | Path) -> Configuration:
    """The configuration a ``recommendation.json`` recommends, with its fitted threshold.

    ``path`` is the file or the run folder holding it; a file that is not a recommendation raises a
    ValueError naming it.
    """
    path = Path(path)
    if path.is_dir():
        path = path / "recommendation.json"
    try:
        config = json.loads(path.read_text(encoding="utf-8"))["config"]
        return Configuration.create(
            dict(config["chunker"]), config["embedder"], config["k"], config["threshold"],
            config["scope"], config["aggregate"], config.get("scorer", "cosine"),
            retrieval=config.get("retrieval"),
        )  # fmt: skip
    except (OSError, ValueError, KeyError, TypeError) as exc:
        problem = f"{type(exc).__name__}: {exc}"
        raise ValueError(f"{path}: not a readable recommendation.json ({problem})") from None
