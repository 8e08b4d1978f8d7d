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
# # 06 · Your own documents and claims
#
# A folder of your files (text, Markdown, HTML, PDF, code) and a claims file that *quotes* its
# evidence become a dataset; a small sweep then says how to chunk them. The same three steps on the
# command line:
#
# ```sh
# vera-lab ingest FOLDER --out datasets/mine
# vera-lab claims claims.csv --dataset datasets/mine --report
# vera-lab sweep mine.yaml
# ```

# %% tags=["parameters"]
folder = "../tests/data/own/docs"
claims_file = "../tests/data/own/claims.csv"
candidates_file = "../tests/data/own/candidates.csv"  # unlabelled claims: which to label first?
labelled_file = "../tests/data/own/candidates-labelled.csv"  # your review of the planned claims
llm = None  # "ollama:MODEL" or "openai:MODEL@BASE_URL": draft candidates with your own server
results_dir = "../results"
embedders = ["minilm"]

# %%
from pathlib import Path

import pandas as pd

from vera_lab.data.ingest import ingest_folder
from vera_lab.data.user_claims import import_claims
from vera_lab.notebook import warnings_as_lines
from vera_lab.report import export, load_run, plot_budget_curves, recommendation_lines, summary_table
from vera_lab.sweep import parse_config, run_sweep

dataset_dir = Path(results_dir) / "own-data-dataset"

# %% [markdown]
# ## 1. Ingest: every file becomes a document, its path relative to the folder is its id

# %%
ingested = ingest_folder(folder)
print(ingested.write(dataset_dir), "-", ingested.summary())
for path, reason in ingested.skipped:
    print(f"skipped {path}: {reason}")
pd.DataFrame([{"doc_id": d.doc_id, "format": d.format, "characters": len(d.text)} for d in ingested.documents])

# %% [markdown]
# ## 2. Claims: each quote is found in its document (exactly, after normalising whitespace, quotes,
# dashes and line-break hyphens, or by fuzzy alignment) and stored as a character span

# %%
claims, located = import_claims(claims_file, dataset_dir)
texts = {d.doc_id: d.text for d in ingested.documents}
pd.DataFrame(
    [
        {"claim": q.claim_id, "document": q.doc_id, "matched": q.match.method,
         "passage": " ".join(texts[q.doc_id][q.match.start : q.match.end].split())}
        for q in located
    ]
)  # fmt: skip

# %% [markdown]
# ## 3. A small sweep, selected by evidence recall at fixed context budgets

# %%
definition = {
    "name": "own-data",
    "dataset": str(dataset_dir),
    "embedders": embedders,
    "metric": "budget_recall",
    "presets": ["docuchat-001", "kaizen-004"],
    "grid": [
        {"strategy": "fixed", "size": [150, 400], "overlap": [0, 0.2]},
        {"strategy": "sentence", "size": [150, 400], "overlap": [0]},
        {"strategy": "recursive", "size": [150, 400], "overlap": [0]},
    ],
}
with warnings_as_lines():  # the sweep's validity warnings, as plain lines
    run = load_run(run_sweep(parse_config(definition), results_dir, cache_dir="../.cache/vera_lab").directory)
summary_table(run, top=8)

# %%
print("\n".join(recommendation_lines(run)))
plot_budget_curves(run);  # the semicolon: shown once (pyplot shows it), not twice

# %% [markdown]
# ## 4. Fewer labels for the same confidence
# Writing claims is the costly step. Three helpers, none of which needs labels to run:
#
# - **Draft** claims with your own LLM (Ollama or any OpenAI-compatible server), each quoting its
#   evidence; quotes not found in the document are dropped and counted, and the drafts are a CSV to
#   review: `vera-lab claims drafts.csv --dataset DATASET --draft 30 --llm ollama:llama3.1`
#   (not run here: it needs your server).
# - **Contrast**: rules turn each supported claim into contradicted twins on the same evidence
#   (`vera-lab contrast --dataset DATASET --out contrast.jsonl`).
# - **Plan**: which candidate claims to label next: those likely to carry evidence (learnt from the
#   claims labelled so far) on which the best configuration and its cheaper rivals hand the reader
#   different text, spread over documents (`vera-lab plan RUN --claims candidates.csv`). The order is
#   chosen, not random: confirm the choice on held-out claims.

# %%
if llm:  # drafts replace the bundled candidates; review them before labelling
    from vera_lab.labelling.drafting import asker, draft_claims, write_drafts

    ask, model = asker(llm)
    drafts = draft_claims(run.dataset().corpus, 10, ask, model, "../.cache/vera_lab")
    candidates_file = write_drafts(drafts, Path(results_dir) / "own-drafts.csv")
    print(f"{candidates_file}: {drafts.summary()}")
else:
    print(f"no LLM given (parameter llm): {candidates_file} stands in for the drafts")

# %%
from vera_lab.data.contrast import contrastive_claims
from vera_lab.labelling.plan import plan_labels, read_candidates

twins = contrastive_claims(list(run.dataset().claims), run.dataset().corpus)
pd.DataFrame([{"claim_id": c.claim_id, "label": c.label, "claim": c.text} for c in twins[:8]])

# %%
plan = plan_labels(run.store, read_candidates(candidates_file), "../.cache/vera_lab")
print(f"about {plan['labels_needed']} more claims with evidence (about {plan['labels_to_write']} labels) "
      "would make this sweep conclusive")  # fmt: skip
pd.DataFrame(plan["ranked"])

# %% [markdown]
# ## 5. Label the planned claims and sweep again
# Label the plan's first claims (a quote for each, as in step 2; `unsupported` where the document is
# silent), add them to the claims, and run the same sweep on the grown set. Here the bundled file is
# that review. The new sweep gets its own name: the first one stays tied to the claims it measured.

# %%
grown_dir = Path(results_dir) / "own-data-relabelled-dataset"
ingested.write(grown_dir)
grown_file = Path(results_dir) / "own-claims-grown.csv"
pd.concat([pd.read_csv(claims_file), pd.read_csv(labelled_file)]).to_csv(grown_file, index=False)
grown, _ = import_claims(grown_file, grown_dir)
with warnings_as_lines():
    grown_run = load_run(
        run_sweep(
            parse_config({**definition, "name": "own-data-relabelled", "dataset": str(grown_dir)}),
            results_dir,
            cache_dir="../.cache/vera_lab",
        ).directory
    )
before, after = (r.store.read_json("recommendation.json") for r in (run, grown_run))
pd.DataFrame(
    [
        {"claims": len(r.dataset().claims), "with evidence": rec["n_claims_with_evidence"],
         "recommended": rec["config_id"], "95% CI": "[{:.2f}, {:.2f}]".format(*rec["ci_95"]),
         "inconclusive because": "; ".join(rec.get("inconclusive", [])) or "conclusive"}
        for r, rec in ((run, before), (grown_run, after))
    ],
    index=["before", "after labelling"],
)  # fmt: skip

# %% [markdown]
# ## 6. The report to keep

# %%
for fmt in ("html", "md"):
    print(export(run, fmt))
