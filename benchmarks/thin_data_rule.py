"""How often each decision rule picks a configuration that is worse on held-out claims, when data is thin.

Run: .venv/bin/python benchmarks/thin_data_rule.py [--seeds 10] [--sizes 30 60 120]

The grid is fixed, sentence and recursive chunks of 300 and 1,000 characters under dense retrieval
and the seed presets. For each
size, ``--seeds`` random subsamples of ContractNLI dev's claims are swept; on each, two rules choose:
today's (the best point estimate when the recommendation is inconclusive) and last round's (always the
cheapest configuration not significantly worse than the best). Every configuration is also run on
ContractNLI test; a pick's regret is the test budget recall of the full-dev choice minus the pick's.
Printed per size and rule: how often the pick is worse on test by more than 0.02, and the mean regret.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

from vera_lab.sweep import parse_config, run_sweep

ROOT = Path(__file__).resolve().parents[1]
WORSE = 0.02  # budget recall: a pick this far below the full-data choice on test counts as worse
# The main job's strongest chunkers and the seed presets, dense retrieval: ten configurations whose
# dev figures span 0.34-0.56, several of them close to each other.
GRID = [{"strategy": s, "size": [300, 1000], "overlap": 0} for s in ("fixed", "sentence", "recursive")]


def sweep(folder: Path, name: str, dataset: str, cache: str, claims: dict | None = None):
    raw = {"name": name, "dataset": dataset, "embedders": ["minilm-int8"], "metric": "budget_recall",
           "presets": ["vera-000", "docuchat-001", "vera-003", "kaizen-004"], "grid": GRID,
           **({"claims": claims} if claims else {})}  # fmt: skip
    run = run_sweep(parse_config(raw), folder, cache_dir=cache, progress=False)
    return run, json.loads((run.directory / "recommendation.json").read_text())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--sizes", type=int, nargs="+", default=[30, 60, 120])
    parser.add_argument("--cache-dir", default=".cache/vera_lab")
    args = parser.parse_args()
    dev, test = str(ROOT / "datasets" / "contractnli-dev"), str(ROOT / "datasets" / "contractnli-test")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        full, full_rec = sweep(folder, "full", dev, args.cache_dir)
        held, _ = sweep(folder, "test", test, args.cache_dir)
        params = full.table.set_index("config_id")["params"]
        on_test = held.table.assign(key=held.table.params).set_index("key")["budget_recall"]
        test_of = {cid: float(on_test[params[cid]]) for cid in params.index}
        reference = test_of[full_rec["config_id"]]
        print(f"full dev choice {full_rec['config_id']}: test budget recall {reference:.3f}")
        print(f"{'claims':>7} {'rule':<28} {'worse on test':>14} {'mean regret':>12} {'thin':>6}")
        for size in args.sizes:
            picks: dict[str, list[float]] = {"best estimate when thin": [], "always the cheapest": []}
            thin = 0
            for seed in range(args.seeds):
                _, rec = sweep(folder, f"s{size}-{seed}", dev, args.cache_dir, {"sample": size, "seed": seed})
                thin += bool(rec.get("thin_data"))
                picks["best estimate when thin"].append(reference - test_of[rec["config_id"]])
                picks["always the cheapest"].append(reference - test_of[rec["cheapest_by_rule"]])
            for rule, regrets in picks.items():
                regrets_a = np.array(regrets)
                print(f"{size:>7} {rule:<28} {(regrets_a > WORSE).mean():>13.0%} {regrets_a.mean():>12.3f} "
                      f"{thin:>3}/{args.seeds}")  # fmt: skip


if __name__ == "__main__":
    pd.set_option("display.width", 160)
    main()
