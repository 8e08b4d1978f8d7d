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
# # 02 · Sweep chunking parameters
#
# Define a grid, run it (resumable: finished configurations are not recomputed), and read the
# results table, the report figures and the recommendation with its confidence intervals.

# %% tags=["parameters"]
# Either a sweep file, used as it is, or the same keys a sweep YAML holds:
sweep_file = None  # e.g. "../sweeps/scifact.yaml"
results_dir = "../results"
name = "notebook-sweep"
dataset = "../datasets/scifact"
embedders = ["minilm"]
claims = {"sample": 200}  # {} for every claim
corpus = {"distractors": 200}  # documents beyond the cited ones; {} for the whole corpus
k = [5]
metric = "budget_recall"  # evidence within 500-4,000 characters retrieved: a fixed k (mrr, hit) favours big chunks
grid = [
    {"strategy": "fixed", "size": [500, 1000], "overlap": [0, 0.2]},
    {"strategy": "sentence", "size": [500, 1000], "overlap": [0.2]},
    {"strategy": "token", "size": [128, 256], "overlap": [0.2]},
]
presets = ["vera-000", "docuchat-001", "vera-003", "kaizen-004"]

# %%
from IPython.display import Markdown, display

from vera_lab.notebook import warnings_as_lines
from vera_lab.report import FIGURES, load_run, recommendation_lines, summary_table
from vera_lab.sweep import load_config, parse_config, run_sweep
from vera_lab.notebook.widgets import ranking_explorer

# %% [markdown]
# ## The sweep definition
# The same plain data a YAML file would hold; every point gets a stable `config_id`.

# %%
if sweep_file:
    config = load_config(sweep_file)
else:
    config = parse_config(
        {"name": name, "dataset": dataset, "embedders": embedders, "claims": claims, "corpus": corpus,
         "k": k, "metric": metric, "grid": grid, "presets": presets}
    )  # fmt: skip
print(f"{len(config.points())} configurations")

# %% [markdown]
# ## Run it
# Progress bars show configurations and embedding; embeddings are cached on disk.

# %%
with warnings_as_lines():  # the sweep's validity warnings, as plain lines
    sweep = run_sweep(config, results_dir, cache_dir="../.cache/vera_lab")
run = load_run(sweep.directory)

# %% [markdown]
# ## Results, best first
# Ties on the metric are broken by cost (fewer chunks). The CI is a 95% bootstrap over claims.

# %%
summary_table(run)

# %% [markdown]
# ## Figures

# %%
for name, make_figure in FIGURES.items():
    make_figure(run)

# %% [markdown]
# ## Re-rank
# Choose another metric, or a budget for the characters a configuration may embed (its index size):
# the table and the figure re-rank.

# %%
ranking_explorer(run)

# %% [markdown]
# ## Recommendation
# The best configuration, and whether its lead over the runner-up and each seed preset survives a
# paired bootstrap.

# %%
display(Markdown("\n".join(f"- {line}" for line in recommendation_lines(run))))
