"""How honest the grounding figures are, and whether a learned scorer beats cosine similarity.

Run: .venv/bin/python benchmarks/grounding_honesty.py [--cache-dir DIR]
For SciFact (all 809 claims; cited abstracts + 300 distractors, corpus scope, as sweeps/scifact.yaml)
and ContractNLI dev (1,037 claims, each in its own contract), the four seed presets with MiniLM,
k=5, threshold calibrated, under both scorers. Prints per preset: grounding F1 at the in-sample
optimum, out of fold, calling everything grounded, the lift with its paired-bootstrap CI; then the
out-of-fold ROC-AUC of cosine vs learned scores. Embeddings come from the cache when present.
"""

from __future__ import annotations

import argparse
import tempfile

from common import ROOT

from vera_lab.sweep import parse_config, run_sweep

DATASETS = {
    "scifact": {"dataset": str(ROOT / "datasets" / "scifact"), "corpus": {"distractors": 300, "seed": 0}},
    "contractnli-dev": {"dataset": str(ROOT / "datasets" / "contractnli-dev")},
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache-dir", default=str(ROOT / ".cache" / "vera_lab"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as results:
        for name, data in DATASETS.items():
            config = parse_config({"name": name, **data, "embedders": ["minilm"], "k": 5, "grid": [],
                                   "scorer": ["cosine", "learned"], "metric": "hit"})  # fmt: skip
            table = run_sweep(config, results, cache_dir=args.cache_dir, progress=False).table
            print(f"\n{name}")
            print(f"{'preset':<14}{'scorer':<9}{'F1 in-sample':>13}{'F1 out of fold':>16}{'F1 trivial':>12}"
                  f"{'lift [95% CI]':>28}{'ROC-AUC (oof)':>15}")  # fmt: skip
            for _, row in table.sort_values(["preset", "param_scorer"]).iterrows():
                lift = (
                    f"{row.grounding_f1_lift:+.3f} [{row.grounding_f1_lift_ci_low:+.3f}, "
                    f"{row.grounding_f1_lift_ci_high:+.3f}]"
                )
                print(f"{row.preset:<14}{row.param_scorer:<9}{row.grounding_f1_in_sample:>13.3f}"
                      f"{row.grounding_f1:>16.3f}{row.grounding_f1_trivial:>12.3f}{lift:>28}"
                      f"{row.grounding_roc_auc:>15.3f}")  # fmt: skip
            auc = table.pivot_table(index="preset", columns="param_scorer", values="grounding_roc_auc")
            auc["learned - cosine"] = auc["learned"] - auc["cosine"]
            print(auc.round(3).to_string())


if __name__ == "__main__":
    main()
