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
# # 03 · The recommendation against the seed presets
#
# A stored sweep (from `02-sweep` or `make sweep`): how the recommended configuration compares with
# each seed preset on quality, per-label behaviour, the claims each misses, and cost.

# %% tags=["parameters"]
run_dir = "../results/notebook-sweep"
missed_limit = 10

# %%
from IPython.display import display

from vera_lab.report import compare_configs, confusion_table, load_run, missed_claims, recommended_and_presets

run = load_run(run_dir)
config_ids = recommended_and_presets(run)

# %% [markdown]
# ## Quality and cost side by side
# The first row is the recommendation; the rest are the seed presets that were evaluated.

# %%
compare_configs(run, config_ids).round(4)

# %% [markdown]
# ## Per-label confusion
# A cosine scorer measures topical similarity, not entailment: contradicted claims look as
# "grounded" as supported ones. This table shows how often each label is called grounded.

# %%
confusion_table(run, config_ids)

# %% [markdown]
# ## The claims each configuration misses
# Claims with gold evidence whose top-k retrieved chunks touch none of it: the claim, its gold
# evidence, and what was retrieved first instead.

# %%
for config_id in config_ids:
    print(config_id, run.table.set_index("config_id").loc[config_id, "preset"] or "(recommended)")
    display(missed_claims(run, config_id, limit=missed_limit))
