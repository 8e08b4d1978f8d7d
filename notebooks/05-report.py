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
# # 05 · Export the evidence
#
# Load a stored sweep and write its report: one self-contained HTML file (figures embedded, every
# text escaped) and a Markdown twin with its figures beside it, ready to attach to a design record.

# %% tags=["parameters"]
run_dir = "../results/notebook-sweep"

# %%
from vera_lab.report import export, load_run, recommendation_lines, summary_table
from vera_lab.notebook.widgets import ranking_explorer

run = load_run(run_dir)

# %% [markdown]
# ## What the report says

# %%
print("\n".join(recommendation_lines(run)))
summary_table(run, top=10)

# %% [markdown]
# ## Re-rank before you write
# The report ranks by the sweep's metric; here a metric and an embedding budget can be tried first.

# %%
ranking_explorer(run)

# %% [markdown]
# ## Write it

# %%
for fmt in ("html", "md"):
    print(export(run, fmt))
