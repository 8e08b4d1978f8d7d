# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 04 · The grounding threshold
#
# Seed ADR-003 calls a claim grounded when its best chunk's cosine similarity is at least 0.7. That
# number belongs to one embedding model. Here: the score distributions by label, ROC and PR curves,
# the F1-calibrated threshold against 0.7, and what changes with k and the aggregation.

# %% tags=["parameters"]
dataset = "../datasets/scifact"
embedders = ["minilm"]  # the first is used
claims = {"sample": 300}
corpus = {"distractors": 200}
strategy = {"strategy": "sentence", "size": 1000, "overlap": 0.2}
k = [1, 3, 5]

# %%
import pandas as pd

from vera_lab import load_dataset, make_chunker
from vera_lab.data import sample_dataset
from vera_lab.embedding import get_embedder
from vera_lab.evaluation import evaluate
from vera_lab.grounding import GroundingScorer
from vera_lab.metrics import grounding_scores
from vera_lab.report import plot_roc_pr, plot_score_distributions

data = sample_dataset(load_dataset(dataset), claims=claims.get("sample"), distractors=corpus.get("distractors"))
params = dict(strategy)
chunker = make_chunker(params.pop("strategy"), **params)
model = get_embedder(embedders[0], cache_dir="../.cache/vera_lab")
print(f"{len(data.claims)} claims {data.claims.label_counts()}, {len(data.corpus)} documents")

# %% [markdown]
# ## Score distributions by label
# If supported and unsupported claims overlap heavily, no threshold separates them well.

# %%
calibrated = evaluate(data, chunker, model, GroundingScorer(k=5, threshold="calibrate"))
rows = calibrated.per_claim
plot_score_distributions(rows, {"seed 0.7": 0.7, "calibrated": calibrated.threshold});

# %% [markdown]
# ## The calibrated threshold against 0.7
# The same scores, two thresholds: what each does to precision, recall and F1.

# %%
y_true = (rows.label == "supported").to_numpy()
pd.DataFrame(
    {
        name: grounding_scores(y_true, rows.score.to_numpy() >= t, rows.score.to_numpy())
        for name, t in {"0.7 (seed)": 0.7, f"{calibrated.threshold:.3f} (calibrated)": calibrated.threshold}.items()
    }
).round(3)

# %% [markdown]
# ## k and aggregation
# Max of the top-k is the seed's rule; the mean of the top-k rewards claims whose support is spread
# over several chunks. Each setting is calibrated on the same claims.

# %%
settings = {f"k={top} {agg}": GroundingScorer(k=top, aggregate=agg, threshold="calibrate")
            for top in k for agg in ("max", "mean")}  # fmt: skip
results = {name: evaluate(data, chunker, model, scorer) for name, scorer in settings.items()}
pd.DataFrame({name: {"threshold": r.threshold, **r.metrics} for name, r in results.items()}).T[
    ["threshold", "hit", "mrr", "grounding_f1", "grounding_roc_auc", "grounding_pr_auc"]
].round(3)

# %% [markdown]
# ## ROC and precision-recall curves

# %%
plot_roc_pr({name: r.per_claim for name, r in results.items()});
