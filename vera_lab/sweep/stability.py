"""Whether the ranking of chunkers survives a change of embedder, k, scorer or retrieval pipeline.

Chunkers are ranked by the metric within each group of scorer settings; Kendall's tau compares the
rankings of every two groups over the chunkers both ran. The robust choice is the chunker whose worst
shortfall from the best of a group (its regret) is smallest over all groups.
"""

from __future__ import annotations

import itertools
import json
from typing import Any

import pandas as pd

from vera_lab.sweep.config import SCORER_PARAMS

# Groups a chunker ranking is compared across: the scorer settings and the retrieval pipeline.
GROUPS = (*SCORER_PARAMS, "param_pipeline")


def rank_stability(order: pd.DataFrame, metric: str) -> dict[str, Any]:
    """Kendall's tau between groups and the least-worst-regret chunker; {} with fewer than 2 groups."""
    from scipy.stats import kendalltau

    keys = [c for c in GROUPS if c in order and order[c].astype(str).nunique() > 1]
    if not keys or order.empty:
        return {}
    table = order.assign(
        chunker=order["params"].map(lambda p: json.dumps(json.loads(p)["chunker"], sort_keys=True))
    )
    values = table.pivot_table(index="chunker", columns=keys, values=metric, aggfunc="first").dropna()
    if values.shape[1] < 2 or len(values) < 2:
        return {}
    columns = [col if isinstance(col, tuple) else (col,) for col in values.columns]
    names = [
        ", ".join(f"{k.removeprefix('param_')}={v}" for k, v in zip(keys, col, strict=True))
        for col in columns
    ]
    taus = []
    for (i, a), (j, b) in itertools.combinations(enumerate(names), 2):
        tau = kendalltau(values.iloc[:, i], values.iloc[:, j]).statistic
        taus.append({"a": a, "b": b, "tau": float(tau), "chunkers": len(values)})
    regret = (values.max(axis=0) - values).max(axis=1)
    robust = regret.idxmin()
    return {
        "groups": names,
        "kendall_tau": taus,
        "robust_chunker": json.loads(robust),
        "robust_worst_regret": float(regret[robust]),
        "regret_of_best_in_first_group": float(regret[values.iloc[:, 0].idxmax()]),
    }
