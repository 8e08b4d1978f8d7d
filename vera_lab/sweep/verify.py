"""Judge the chosen chunkings by the verifier: which chunking grounds claims best.

After the choice by retrieval, the configurations named by ``verify:`` (the choice: the recommendation
and every preset; or every configuration of the final stage) run again with ``scorer: verifier`` on the
sweep's claims: the shipped general verifier, or one adapted to the sweep's claims where
``verifier: {adapt: true}`` asks (each claim then scored by a fold model that never saw its
documents). The best by grounding F1 and the configurations not significantly worse (paired
bootstrap over the dataset's clusters, Holm-corrected) are
written to ``recommendation.json`` as ``grounding_choice``, with whether one chunking is in both the
retrieval set and the grounding set.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from vera_lab.sweep.config import Configuration, SweepConfig
from vera_lab.sweep.recommend import ALPHA, indistinguishable, ranked, rivals
from vera_lab.sweep.store import ResultsStore

METRIC = "grounding_f1"
SHOWN = ("grounding_f1", "grounding_f1_ci_low", "grounding_f1_ci_high", "grounding_f1_trivial",
         "grounding_f1_lift", "grounding_f1_lift_ci_low", "grounding_f1_lift_ci_high", "grounding_roc_auc",
         "verdict_macro_f1", "verdict_contradicted_recall", "verifier_truncated_share", "verifier_model",
         "verifier_seen_documents")  # fmt: skip


def verified_points(
    store: ResultsStore, config: SweepConfig, rec: dict[str, Any]
) -> dict[str, Configuration]:
    """The verifier twin of each configuration ``verify:`` names, by the id of the configuration it twins."""
    if config.verify == "none" or "config_id" not in rec:
        return {}
    table = store.rows()
    finished = table[table["status"] == "ok"]
    if config.verify == "final":
        final = store.read_manifest().get("final_config_ids") or list(finished["config_id"])
        ids = [cid for cid in final if cid in set(finished["config_id"])]
    else:
        best = finished.set_index("config_id", drop=False).loc[rec["config_id"]]
        presets = rivals(finished[finished["preset"].fillna("") != ""], best)
        ids = [rec["config_id"], *presets["config_id"]]
    points = store.points()
    return {cid: points[cid].with_scorer("verifier", config.verifier) for cid in dict.fromkeys(ids)}


def grounding_choice(
    store: ResultsStore, twins: dict[str, Configuration], retrieval_set: list[str]
) -> dict[str, Any]:
    """The best chunking by the verifier's grounding F1 and the configurations not worse than it.

    Also whether one of them is in the retrieval choice's set; ids are those of the configurations
    the twins were made from.
    """
    base_of = {p.config_id: cid for cid, p in twins.items()}
    table = store.rows()
    order = ranked(table, METRIC, list(base_of))
    if order.empty:
        failed = table[table["config_id"].isin(list(base_of))]
        errors = [e for e in failed.get("error", pd.Series(dtype=str)).fillna("") if e]
        why = f": {errors[0]}" if errors else ""
        return {"metric": METRIC, "error": f"no configuration judged by the verifier finished{why}"}
    best = order.iloc[0]
    compared = indistinguishable(store, best, rivals(order, best), METRIC).set_index("config_id")
    members = [
        base_of[cid] for cid in order["config_id"] if cid in compared.index and not compared.loc[cid, "worse"]
    ]
    rows = {
        base_of[row.config_id]: {"preset": row.preset or "", **{k: _plain(row.get(k)) for k in SHOWN}}
        for _, row in order.iterrows()
    }
    in_both = [cid for cid in members if cid in retrieval_set]
    return {
        "metric": METRIC,
        "scorer": "verifier",
        "rule": f"the best by out-of-fold grounding F1 with the verifier, and every configuration not "
        f"significantly worse (paired bootstrap over the dataset's clusters, Holm-corrected, alpha {ALPHA})",
        "best": base_of[best.config_id],
        "indistinguishable": members,
        "in_both": in_both,
        "one_choice_for_both": bool(in_both),
        "configurations": rows,
    }


def _plain(value: Any) -> Any:
    value = value.item() if hasattr(value, "item") else value
    return None if isinstance(value, float) and value != value else value


def verify(runner, config: SweepConfig, rec: dict[str, Any]) -> dict[str, Any]:
    """Run the verifier twins of the configurations ``verify:`` names.

    Adds ``grounding_choice`` to the recommendation and returns it.
    """
    twins = verified_points(runner.store, config, rec)
    if not twins:
        return {}
    runner.write_manifest(list(twins.values()), {"verified": {cid: p.config_id for cid, p in twins.items()}})
    runner.run(list(twins.values()), desc="verify")
    choice = grounding_choice(runner.store, twins, rec.get("indistinguishable", []))
    runner.store.write_json("recommendation.json", {**rec, "grounding_choice": choice})
    return choice
