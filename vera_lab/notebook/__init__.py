"""Notebook helpers: HTML views of chunks, and the interactive explorer.

``display`` draws chunks and boundaries; ``widgets`` is the ipywidgets explorer. The display
helpers are importable from here.
"""

from vera_lab.notebook.display import (
    boundaries_html,
    chunk_lengths,
    compare_chunkers,
    seed_chunkers,
    seed_table,
    side_by_side,
    warnings_as_lines,
)

__all__ = [
    "boundaries_html",
    "chunk_lengths",
    "compare_chunkers",
    "seed_chunkers",
    "seed_table",
    "side_by_side",
    "warnings_as_lines",
]
