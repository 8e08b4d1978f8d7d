"""Compare configurations on one dataset: every metric with its interval, and paired differences.

Each configuration runs once into a results store (per-claim rows saved). Every metric gets a 95%
bootstrap interval and every configuration a paired difference against the reference (the
recommendation), on the same resampled clusters of claims, Holm-corrected over the configurations
compared. Where the claims come from several sources, the reference's main-metric difference is
also tested within each source: does the choice transfer?

This is the held-out check a user runs in one command (``vera-lab compare RUN --dataset DIR``), and
the confirmation step of a sweep runs the same code, so ids agree between the two.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from vera_lab.metrics.bootstrap import holm_adjusted, paired_bootstrap
from vera_lab.sweep.config import Configuration
from vera_lab.sweep.recommend import ALPHA, clusters_of, resampling
from vera_lab.sweep.runner import SweepRunner
from vera_lab.sweep.store import ResultsStore

# Shown side by side, each with its 95% bootstrap interval and its difference from the reference.
COMPARED_METRICS = ("budget_recall", "recall_at_500", "recall_at_1000", "recall_at_2000", "recall_at_4000",
                    "hit", "mrr", "grounding_f1")  # fmt: skip


def run_comparison(
    runner: SweepRunner,
    points: Sequence[Configuration],
    metric: str,
    roles: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """Run ``points`` (the first is the reference) into ``runner``'s store and compare them.

    ``roles`` labels configurations by id (default: ``reference`` for the first, ``rival`` for the
    rest). Writes ``comparison.json`` and ``comparison.csv`` in the store and returns the former.
    """
    points = list(points)
    runner.check_stored_data(points)
    runner.write_manifest(points)
    runner.run(points, desc=f"held-out ({runner.config.name})")
    manifest = runner.store.read_manifest()
    runner.store.write_manifest({**manifest, "final_config_ids": [p.config_id for p in points]})
    runner.store.write_table()
    result = comparison(runner.store, [p.config_id for p in points], metric, roles)
    runner.store.write_json("comparison.json", result)
    comparison_frame(result).to_csv(runner.store.dir / "comparison.csv", index=False)
    return result


def comparison(
    store: ResultsStore, config_ids: Sequence[str], metric: str, roles: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """Figures and paired differences of stored configurations against the first of ``config_ids``."""
    table = store.rows().set_index("config_id", drop=False)
    ok = [cid for cid in config_ids if cid in table.index and table.loc[cid, "status"] == "ok"]
    if not ok or ok[0] != config_ids[0]:
        error = "the reference configuration did not finish" if ok else "no configuration finished"
        return {"metric": metric, "error": f"{error}; see {store.dir / 'results.csv'}"}
    reference = store.per_claim(ok[0])
    clusters = clusters_of(reference)
    manifest = store.read_manifest()
    metrics = [m for m in dict.fromkeys((metric, *COMPARED_METRICS)) if m in table.columns]
    rows = []
    for cid in ok:
        row = table.loc[cid]
        rows.append(
            {
                "config_id": cid,
                "role": (roles or {}).get(cid, "reference" if cid == ok[0] else "rival"),
                "preset": row.get("preset") or "",
                "scorer": row.get("param_scorer"),
                "threshold": _plain(row.get("threshold")),
                "figures": figures(row, metrics),
                "vs_reference": {} if cid == ok[0] else _differences(reference, store.per_claim(cid), metrics,
                                                                     clusters),
            }
        )  # fmt: skip
    for m in metrics:  # one family per metric: every rival against the reference
        others = [r["vs_reference"][m] for r in rows[1:] if m in r["vs_reference"]]
        for item, p in zip(others, holm_adjusted([o["p_value"] for o in others]), strict=True):
            item["p_holm"], item["significant"] = float(p), bool(p <= ALPHA)
    out = {
        "metric": metric,
        "reference": ok[0],
        "data": manifest["data"]["name"],
        "data_fingerprint": manifest["data"]["fingerprint"],
        "claims": manifest["data"]["claims"],
        "resampling": resampling(reference, manifest["data"].get("cluster_by")),
        "rows": rows,
        "holds": holds(rows, metric),
        "failed": [cid for cid in config_ids if cid not in ok],
    }
    if "source" in reference and reference["source"].nunique() > 1:
        out["by_source"] = _by_source(store, reference, ok, metric)
    return out


def holds(rows: Sequence[Mapping[str, Any]], metric: str) -> dict[str, Any]:
    """Whether the reference holds on this data: no rival significantly better by ``metric`` (Holm)."""
    better = [r["config_id"] for r in rows[1:] if _significant(r, metric, lambda d: d < 0)]
    beaten = [r["config_id"] for r in rows[1:] if _significant(r, metric, lambda d: d > 0)]
    return {"metric": metric, "holds": not better, "rivals_better": better, "rivals_beaten": beaten}


def _significant(row: Mapping[str, Any], metric: str, direction) -> bool:
    test = row["vs_reference"].get(metric)
    return bool(test and test.get("significant") and direction(test["diff"]))


def figures(row: pd.Series, metrics: Sequence[str]) -> dict[str, dict[str, float | None]]:
    """Each metric of a stored row as ``{value, ci_low, ci_high}`` (None where a bound is unknown)."""
    out: dict[str, dict[str, float | None]] = {}
    for metric in metrics:
        if metric in row and pd.notna(row[metric]):
            low, high = (row.get(f"{metric}_{end}") for end in ("ci_low", "ci_high"))
            out[metric] = {"value": float(row[metric]), "ci_low": float(low) if pd.notna(low) else None,
                           "ci_high": float(high) if pd.notna(high) else None}  # fmt: skip
    return out


def interval(figure: Mapping[str, Any] | Sequence[float | None]) -> tuple[float, float | None, float | None]:
    """``(value, ci_low, ci_high)`` of a figure as :func:`figures` writes it.

    Runs stored before the bounds were named hold a bare ``[value, low, high]`` list: read as well.
    """
    if isinstance(figure, Mapping):
        return figure["value"], figure.get("ci_low"), figure.get("ci_high")
    value, low, high = (list(figure) + [None, None])[:3]
    return value, low, high


def _differences(
    reference: pd.DataFrame, rival: pd.DataFrame, metrics: Sequence[str], clusters: np.ndarray | None
) -> dict[str, dict[str, Any]]:
    """Reference minus rival for each metric, on the same resampled clusters."""
    out = {}
    for metric in metrics:
        result = paired_bootstrap(reference, rival, metric, clusters=clusters)
        out[metric] = {k: result[k] for k in ("diff", "ci_low", "ci_high", "p_value")}
    return out


def _by_source(store: ResultsStore, reference: pd.DataFrame, ids: Sequence[str], metric: str) -> dict:
    """The main metric's paired differences within each source of the claims (Holm within a source)."""
    out = {}
    for source in sorted(reference["source"].unique()):
        mask = (reference["source"] == source).to_numpy()
        ref = reference[mask].reset_index(drop=True)
        rows = [{"config_id": ids[0], "vs_reference": {}}]
        for cid in ids[1:]:
            rival = store.per_claim(cid)
            rows.append(
                {"config_id": cid, "vs_reference": _differences(ref, rival, [metric], clusters_of(ref))}
            )
        tests = [r["vs_reference"][metric] for r in rows[1:]]
        for item, p in zip(tests, holm_adjusted([t["p_value"] for t in tests]), strict=True):
            item["p_holm"], item["significant"] = float(p), bool(p <= ALPHA)
        differences = {r["config_id"]: r["vs_reference"][metric] for r in rows[1:]}
        out[source] = {"claims": int(mask.sum()), **holds(rows, metric), "differences": differences}
    return out


def comparison_frame(result: Mapping[str, Any]) -> pd.DataFrame:
    """``comparison.json`` as a long table: one row per configuration and metric."""
    records = []
    for row in result.get("rows", []):
        for metric, figure in row["figures"].items():
            value, low, high = interval(figure)
            test = row["vs_reference"].get(metric, {})
            records.append(
                {"config_id": row["config_id"], "role": row["role"], "preset": row["preset"],
                 "metric": metric, "value": value, "ci_low": low, "ci_high": high,
                 "reference_minus_this": test.get("diff"), "diff_ci_low": test.get("ci_low"),
                 "diff_ci_high": test.get("ci_high"), "p_holm": test.get("p_holm")}
            )  # fmt: skip
    return pd.DataFrame(records)


def _plain(value: Any) -> Any:
    value = value.item() if hasattr(value, "item") else value
    return None if isinstance(value, float) and value != value else value
