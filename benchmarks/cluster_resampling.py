"""How much does resampling clusters instead of claims change a sweep's verdicts?

Run: .venv/bin/python benchmarks/cluster_resampling.py [RUN_DIR ...]   (default: results/contractnli)
For a stored sweep, every rival of the best is compared with it twice by the same paired bootstrap
(Holm-corrected): once drawing claims one by one, once drawing the clusters the sweep stored with
each claim (ContractNLI: whole contracts). Printed: the size of the set of configurations not
significantly worse than the best under each, the median width of the 95% intervals of the metric,
and the presets' differences from the recommendation under each.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
from common import ROOT

from vera_lab.metrics.bootstrap import bootstrap_ci, holm_adjusted, paired_bootstrap
from vera_lab.sweep import ResultsStore
from vera_lab.sweep.recommend import ALPHA, clusters_of, ranked, rivals


def verdicts(store: ResultsStore, clustered: bool) -> dict:
    manifest, rec = store.read_manifest(), store.read_json("recommendation.json")
    metric = rec["metric"]
    order = ranked(store.rows(), metric, manifest.get("final_config_ids"))
    best = order.iloc[0]
    best_claims = store.per_claim(best.config_id)
    clusters = clusters_of(best_claims) if clustered else None
    others = rivals(order, best)
    tests = [
        paired_bootstrap(best_claims, store.per_claim(cid), metric, clusters=clusters)
        for cid in others.config_id
    ]
    adjusted = holm_adjusted([t["p_value"] for t in tests]) if tests else []
    members = 1 + sum(not (p <= ALPHA and t["diff"] > 0) for t, p in zip(tests, adjusted, strict=True))
    widths = []
    for cid in order.config_id:
        low, high = bootstrap_ci(store.per_claim(cid), metric, clusters=clusters)
        widths.append(high - low)
    chosen = store.per_claim(rec["config_id"])
    chosen_row = order[order.config_id == rec["config_id"]].iloc[0]
    presets = {}
    for _, row in rivals(order, chosen_row).iterrows():
        if isinstance(row.preset, str) and row.preset:
            c = clusters_of(chosen) if clustered else None
            presets[row.preset] = paired_bootstrap(chosen, store.per_claim(row.config_id), metric, clusters=c)
    return {"metric": metric, "members": members, "compared": len(others) + 1,
            "median_ci_width": float(np.median(widths)), "presets": presets}  # fmt: skip


def main(paths: list[str]) -> None:
    for path in paths or [str(ROOT / "results" / "contractnli")]:
        store = ResultsStore(Path(path))
        if not (store.dir / "recommendation.json").exists():
            raise SystemExit(f"{path}: no finished sweep there (run `make sweep` first)")
        sampled = store.read_json("recommendation.json").get("resampling", {})
        shown = ", ".join(
            f"{k} {sampled.get(k)}" for k in ("claims", "clusters", "cluster_by", "largest_cluster")
        )
        print(f"{path}: {shown}")
        for clustered in (False, True):
            out = verdicts(store, clustered)
            unit = "clusters" if clustered else "claims"
            print(
                f"  resampling {unit:8s}: {out['members']} of {out['compared']} "
                f"configurations not significantly worse than the best by {out['metric']}; "
                f"median 95% CI width {out['median_ci_width']:.4f}"
            )
            for name, c in out["presets"].items():
                interval = f"[{c['ci_low']:+.4f}, {c['ci_high']:+.4f}]"
                print(f"    recommendation - {name}: {c['diff']:+.4f} {interval} p={c['p_value']:.4f}")


if __name__ == "__main__":
    main(sys.argv[1:])
