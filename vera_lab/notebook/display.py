"""Display helpers for the notebooks: chunk boundaries as HTML, side-by-side tables, seed presets.

Notebooks only call the package; whatever two notebooks would both need lives here.
"""

from __future__ import annotations

import contextlib
import html
import warnings
from collections.abc import Iterator, Mapping, Sequence

import numpy as np
import pandas as pd

from vera_lab.chunking import PRESETS, Chunker, chunk_stats, preset_chunker
from vera_lab.tokens import get_tokenizer
from vera_lab.types import Chunk, Document

_COLOURS = ("#fde2e4", "#e2ece9", "#dfe7fd", "#fff1c1", "#e8dff5", "#d7f2e3")


def seed_chunkers() -> dict[str, Chunker]:
    """The seeds' chunking choices as chunkers, by preset name."""
    return {name: preset_chunker(name) for name in PRESETS}


def seed_table() -> pd.DataFrame:
    """How the seed defaults differ: one row per preset with its parameters."""
    rows = [{"preset": name, **params} for name, params in PRESETS.items()]
    return pd.DataFrame(rows).fillna("").set_index("preset")


def compare_chunkers(document: Document, chunkers: Mapping[str, Chunker]) -> pd.DataFrame:
    """Chunk statistics of one document under each chunker, one row per chunker."""
    tokenizer = get_tokenizer()
    rows = {name: chunk_stats(c.chunk(document), [document], tokenizer) for name, c in chunkers.items()}
    return pd.DataFrame(rows).T


def chunk_lengths(document: Document, chunkers: Mapping[str, Chunker]) -> dict[str, np.ndarray]:
    """Chunk lengths in characters per chunker (for histograms)."""
    return {name: np.array([c.end - c.start for c in ch.chunk(document)]) for name, ch in chunkers.items()}


def boundaries_html(text: str, chunks: Sequence[Chunk], limit: int = 3000) -> str:
    """The first ``limit`` characters with each chunk shaded and its start marked (overlaps darker)."""
    depth = np.zeros(min(len(text), limit) + 1, dtype=int)
    starts = set()
    for c in chunks:
        if c.start >= limit:
            break
        depth[c.start : min(c.end, limit)] += 1
        starts.add(c.start)
    parts, i = [], 0
    for j in range(1, len(depth)):
        if j == len(depth) - 1 or depth[j] != depth[i] or j in starts:
            piece = html.escape(text[i:j])
            colour = _COLOURS[min(depth[i], len(_COLOURS) - 1)] if depth[i] else "transparent"
            marker = '<b style="color:#c00">&#x2503;</b>' if i in starts else ""
            weight = "border-bottom:2px solid #999;" if depth[i] > 1 else ""
            parts.append(f'{marker}<span style="background:{colour};{weight}">{piece}</span>')
            i = j
    return (
        '<div style="white-space:pre-wrap;text-align:left;font:12px monospace;line-height:1.5">'
        f"{''.join(parts)}</div>"
    )


def side_by_side(document: Document, chunkers: Mapping[str, Chunker], limit: int = 1500) -> str:
    """One column per chunker showing the same opening of the document with its chunk boundaries.

    Left-aligned (JupyterLab right-aligns table cells, so this is a grid, not a table); columns wrap
    onto new rows on narrow screens.
    """
    columns = "".join(
        f'<div style="min-width:0"><h4 style="margin:0 0 4px">{html.escape(name)}</h4>'
        f"{boundaries_html(document.text, chunker.chunk(document), limit)}</div>"
        for name, chunker in chunkers.items()
    )
    return (
        '<div style="display:grid;grid-template-columns:repeat(auto-fit,minmax(260px,1fr));gap:12px;'
        f'text-align:left">{columns}</div>'
    )


@contextlib.contextmanager
def warnings_as_lines() -> Iterator[None]:
    """Warnings raised inside, printed as plain lines after it (not as a notebook's red blocks)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield
    for warning in caught:
        print(f"warning: {warning.message}")
