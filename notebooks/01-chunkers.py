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
# # 01 · Chunkers side by side
#
# Chunk one document with every strategy and see where the boundaries fall, how large the chunks
# are, how much they overlap and how often they end on a sentence. Point `own_file` at a file of
# yours (text, Markdown, HTML or PDF), or type its path into the explorer below, to look at your data.

# %% tags=["parameters"]
dataset = "../datasets/chroma-eval"
doc_id = "state_of_the_union"
own_file = ""  # a .txt, .md, .html or .pdf file of yours; overrides dataset/doc_id
size_chars = 1000
size_tokens = 256
overlap = 0.2
preview_chars = 1200

# %%
from pathlib import Path

from IPython.display import HTML, display

from vera_lab import load_dataset, make_chunker
from vera_lab.data.ingest import load_file
from vera_lab.notebook import chunk_lengths, compare_chunkers, seed_chunkers, seed_table, side_by_side
from vera_lab.report import plot_lengths
from vera_lab.notebook.widgets import chunker_explorer

# %% [markdown]
# ## The document
# Where the text comes from and how long it is.

# %%
corpus = load_dataset(dataset).corpus
document = load_file(Path(own_file), Path(own_file).name) if own_file else corpus[doc_id]
print(f"{document.doc_id}: {len(document.text):,} characters")

# %% [markdown]
# ## Explore
# Move the sliders: the boundaries, the realised overlap and the statistics update in place. Pick a
# bundled document or type the path of a file of yours (text, Markdown, HTML, PDF).

# %%
chunker_explorer({document.doc_id: document, **{d.doc_id: d for d in corpus}})

# %% [markdown]
# ## Four strategies at comparable sizes
# Fixed and recursive in characters, sentence packing in characters, token windows in MiniLM
# WordPiece tokens (about 4-5 characters each).

# %%
chunkers = {
    "fixed": make_chunker("fixed", size=size_chars, overlap=overlap),
    "sentence": make_chunker("sentence", size=size_chars, overlap=overlap),
    "recursive": make_chunker("recursive", size=size_chars, overlap=overlap),
    "token": make_chunker("token", size=size_tokens, overlap=overlap),
}

# %% [markdown]
# ## Where the boundaries fall
# Each shaded run is a chunk; a red bar marks where a chunk starts; underlined text belongs to two
# chunks (the overlap). Fixed windows cut through words and sentences; the others do not.

# %%
display(HTML(side_by_side(document, chunkers, preview_chars)))

# %% [markdown]
# ## Statistics
# Sizes in characters and tokens, the overlap actually realised, the share of chunks that end on
# a sentence boundary, and the storage overhead (characters stored / characters in the document).

# %%
compare_chunkers(document, chunkers).round(2)

# %% [markdown]
# ## Chunk size distributions

# %%
plot_lengths(chunk_lengths(document, chunkers));

# %% [markdown]
# ## A plot of your own
# vera_lab's figures leave matplotlib's backend alone, so plots of your own keep showing inline.

# %%
import matplotlib.pyplot as plt

lengths = chunk_lengths(document, chunkers)
plt.figure(figsize=(6, 3))
plt.boxplot(list(lengths.values()), tick_labels=list(lengths))
plt.ylabel("chunk length (chars)");

# %% [markdown]
# ## How the seed defaults differ
# The five teams' choices (see `../shared/seeds/`): the same document under each preset.

# %%
seed_table()

# %%
compare_chunkers(document, seed_chunkers()).round(2)

# %% [markdown]
# ## Other languages
# Each document's language is detected (or named in `dataset.json`) and the sentence rules follow it;
# every chunk records it as `lang`. Four short documents in German, French, Spanish and Japanese
# (`tests/data/multilingual/`): the first sentences each sentence chunker sees.

# %%
import pandas as pd

from vera_lab import sentence_spans
from vera_lab.language import detect_language

multilingual = Path("../tests/data/multilingual/docs")
rows = []
for path in sorted(multilingual.iterdir()):
    text = path.read_text(encoding="utf-8")
    spans = sentence_spans(text)
    rows.append({"file": path.name, "language": detect_language(text), "sentences": len(spans),
                 "first sentences": " | ".join(text[a:b] for a, b in spans[1:3])})  # fmt: skip
pd.DataFrame(rows)
