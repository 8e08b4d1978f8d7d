"""Does successive halving keep the winner? Each screen against the full grid, on two datasets.

Run: .venv/bin/python benchmarks/halving_fidelity.py [--cache-dir DIR] [--only scifact|contractnli-dev]
For SciFact (the grid of sweeps/scifact.yaml) and ContractNLI dev (the grid of the main job,
sweeps/contractnli.yaml), the full grid runs with MiniLM, then each screen (tf-idf on all the data;
MiniLM on a 25% sample of the documents) runs halving into its own results folder. Printed per
screen: embedding work (chunk texts handed to MiniLM, screen and confirmation together) as a share
of the full grid's; Spearman correlation of screen and full scores over every configuration; whether
the halving run's recommendation is inside the full grid's set of configurations not significantly
worse than the best; the screen's own fidelity flag. Goal: inside the set on both, at most 35% work.
"""

from __future__ import annotations

import argparse
import dataclasses
import tempfile
from pathlib import Path

from common import ROOT
from scipy.stats import spearmanr

from vera_lab.sweep import ResultsStore, load_config, run_sweep

SWEEPS = {
    "scifact": ROOT / "sweeps" / "scifact.yaml",
    "contractnli-dev": ROOT / "sweeps" / "contractnli.yaml",
}
SCREENS = (
    {"screen": "tfidf", "keep": 0.2, "calibration": 4},
    {"screen": "sample", "share": 0.25, "keep": 0.2, "calibration": 4},
)


def minilm_texts(directory: Path) -> float:
    """Chunk texts handed to MiniLM by a stored run (and its sample screen, when it has one)."""
    total = 0.0
    for store in (ResultsStore(directory), ResultsStore(directory / "screen")):
        if store.exists():
            rows = store.rows()
            total += float(rows.loc[rows.param_embedder == "minilm", "cost_n_chunks"].sum())
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache-dir", default=str(ROOT / ".cache" / "vera_lab"))
    parser.add_argument("--only", choices=sorted(SWEEPS))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as root:
        for name, path in SWEEPS.items():
            if args.only and name != args.only:
                continue
            base = load_config(path)
            full_config = dataclasses.replace(base, name=f"{name}-full", halving={}, confirm="")
            full = run_sweep(full_config, root, cache_dir=args.cache_dir, progress=False)
            full_rec = ResultsStore(full.directory).read_json("recommendation.json")
            full_values = full.table.set_index("config_id")[base.metric]
            full_work = minilm_texts(full.directory)
            best, same = full_rec["best_by_metric"]["value"], len(full_rec["indistinguishable"])
            print(
                f"\n{name}: {len(full.table)} configurations by {base.metric}; full grid best {best:.4f}, "
                f"{same} not worse; {full_work:,.0f} chunk texts embedded"
            )
            header = f"{'screen':<8}{'work share':>11}{'spearman':>10}{'winner in set':>15}{'confirmed':>11}"
            print(f"{header}  fidelity")
            for options in SCREENS:
                config = dataclasses.replace(
                    base, name=f"{name}-{options['screen']}", halving=options, confirm=""
                )
                run = run_sweep(config, root, cache_dir=args.cache_dir, progress=False)
                report = ResultsStore(run.directory).read_json("halving.json")
                rec = ResultsStore(run.directory).read_json("recommendation.json")
                screen = report["screen_values"]
                common = [c for c in screen if c in full_values.index]
                rho = spearmanr([screen[c] for c in common], [full_values[c] for c in common]).statistic
                work = minilm_texts(run.directory) / full_work
                inside = rec["config_id"] in full_rec["indistinguishable"]
                flag = report["fidelity"]
                print(
                    f"{options['screen']:<8}{work:>11.0%}{rho:>10.2f}{str(inside):>15}{len(run.table):>11}  "
                    f"{'FLAGGED: ' if flag['flagged'] else ''}{flag['message']}"
                )


if __name__ == "__main__":
    main()
