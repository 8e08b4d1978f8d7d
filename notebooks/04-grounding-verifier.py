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
# # 04 · Grounding that reads: the verifier against cosine similarity
#
# Seed ADR-003 calls a claim grounded when its best chunk is similar enough to it. Similarity cannot
# tell "X may be disclosed" from "X may not be disclosed". The verifier is a cross-encoder trained
# once here, from the packaged MiniLM weights, on public claim-verification and NLI pairs, and shipped
# with vera_lab: it reads the claim with each retrieved chunk and says supported, contradicted or not
# mentioned, with no training on your data. With `verifier = {"adapt": True}` it is fine-tuned on the
# claims below, cross-fitted by document: every claim is then scored by a model that never saw its
# documents.

# %% tags=["parameters"]
dataset = "../datasets/scifact"
embedders = ["minilm"]  # the first is used
claims = {"sample": 300}
corpus = {"distractors": 200}
strategy = {"strategy": "sentence", "size": 300, "overlap": 0}
k = [1, 3, 5]
verifier = {}  # {} the shipped general verifier; {"adapt": True} (+ recipe options) adapts it to these claims

# %%
import pandas as pd

from vera_lab import load_dataset
from vera_lab.data import sample_dataset
from vera_lab.evaluation import Configuration, Resources, evaluate
from vera_lab.report import plot_roc_pr, plot_score_distributions

data = sample_dataset(load_dataset(dataset), claims=claims.get("sample"), distractors=corpus.get("distractors"))
resources = Resources(cache_dir="../.cache/vera_lab")


def configuration(scorer: str, top: int = 5) -> Configuration:
    """The one configuration a sweep would run: this chunker and embedder, with ``scorer`` reading ``top`` chunks."""
    return Configuration.create(strategy, embedders[0], top, "calibrate", scorer=scorer,
                                verifier=verifier if scorer == "verifier" else None)  # fmt: skip


print(f"{len(data.claims)} claims {data.claims.label_counts()}, {len(data.corpus)} documents")

# %% [markdown]
# ## The verifier: shipped, or adapted to these claims
# Building the configuration builds its verifier: the shipped one once from its few trained tensors into
# `.cache/vera_lab/verifier/`; an adapting one prints a time estimate first and caches its models there
# too. The table: what it was trained on.

# %%
verifying = configuration("verifier").build(resources, labelled=data)
pd.DataFrame(verifying.verifier.describe()["trained_on"]).T

# %% [markdown]
# ## Cosine, learned features and the verifier on the same retrieved chunks
# Thresholds are calibrated for F1 out of fold; "trivial" calls every claim grounded.

# %%
results = {name: evaluate(data, configuration(name), resources=resources) for name in ("cosine", "learned")}
results["verifier"] = evaluate(data, verifying)  # built above: its verifier is not built again
columns = ["grounding_roc_auc", "grounding_f1", "grounding_f1_trivial", "grounding_precision", "grounding_recall"]
pd.DataFrame({name: r.metrics for name, r in results.items()}).T[columns].round(3)

# %% [markdown]
# ## What each scorer makes of each label
# Cosine scores contradicted claims like supported ones; the verifier's probability of support should not.

# %%
plot_score_distributions(results["cosine"].per_claim, {"calibrated": results["cosine"].threshold});

# %%
plot_score_distributions(
    results["verifier"].per_claim, {"calibrated": results["verifier"].threshold}, "probability of support"
);

# %% [markdown]
# ## The verifier's three-way verdicts by gold label

# %%
pd.DataFrame(results["verifier"].confusion_three_way).T

# %% [markdown]
# ## ROC and precision-recall curves

# %%
plot_roc_pr({name: r.per_claim for name, r in results.items()});

# %% [markdown]
# ## What the verifier gets to read: k
# More chunks give it more chances to find the evidence, and more passages that do not state the claim.

# %%
by_k = {f"k={top}": evaluate(data, configuration("verifier", top), resources=resources) for top in k}
pd.DataFrame({name: r.metrics for name, r in by_k.items()}).T[
    ["hit", "grounding_roc_auc", "grounding_f1", "verdict_macro_f1", "verdict_contradicted_recall"]
].round(3)
