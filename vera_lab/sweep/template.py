"""The sweep file `vera-lab init` writes: commented, beside the data, its grid sized to a time budget.

Grids from large to small are priced by :func:`~vera_lab.sweep.estimate.estimate_sweep` (chunk texts
to embed at a rate measured now); the largest that fits the budget is written, with the seed presets
listed explicitly and every choice explained in a comment.
"""

from __future__ import annotations

import re
import shlex
from datetime import date
from pathlib import Path
from typing import Any

from vera_lab.chunking import PRESETS
from vera_lab.data import load_dataset
from vera_lab.data.dataset import atomic_write
from vera_lab.sweep.config import parse_config
from vera_lab.sweep.estimate import Estimate, estimate_sweep

EMBEDDER = "minilm-int8"
CHARS = [100, 300, 1000, 3000]
# Retrieval costs no embedding beyond the chunks': every grid measures BM25 and a fusion too, which
# won on every long-document set measured here (ContractNLI, web pages, medical articles, filings).
RETRIEVERS = ["dense", "bm25", "hybrid:0.5"]


def grids(formats: set[str]) -> list[list[dict[str, Any]]]:
    """Grids from largest to smallest; each keeps the likeliest winners of the one before.

    Sentence-aligned and recursive chunks won most often here, so they stay longest; the structure-
    aware chunker of each format in the folder (Markdown headings, PDF pages) is in every grid;
    overlap, token and fixed chunks go first when time is short.
    """
    structure = []
    if "markdown" in formats:
        structure.append({"strategy": "markdown", "size": [128, 512], "min_size": [0]})
    if "pdf" in formats:
        structure.append({"strategy": "pdf", "size": [128, 512]})
    core = ("sentence", "recursive", "fixed")
    return [
        [{"strategy": s, "size": CHARS, "overlap": [0, 0.1, 0.25]} for s in core]
        + [{"strategy": "token", "size": [24, 64, 256, 640], "overlap": [0, 0.1, 0.25]}, *structure],
        [{"strategy": s, "size": CHARS, "overlap": [0, 0.25]} for s in core] + structure,
        [{"strategy": s, "size": CHARS, "overlap": [0]} for s in core[:2]] + structure,
        [{"strategy": "sentence", "size": [300, 1000], "overlap": [0]}, *structure],
    ]


def _name(folder: Path) -> str:
    name = re.sub(r"[^A-Za-z0-9._-]+", "-", folder.resolve().name).strip("-.") or "mine"
    return name[:100] if name[0].isalnum() else f"s{name}"[:100]


def write_sweep_file(
    dataset_dir: str | Path, minutes: float, cache_dir: str = ".cache/vera_lab", replace: bool = False
) -> tuple[Path, Estimate | None]:
    """Write ``<dataset>/sweep.yaml`` with the largest grid whose embedding fits ``minutes``; return it.

    An existing ``sweep.yaml`` may be the user's own or edited: it is kept (estimate ``None``) unless
    ``replace``.
    """
    dataset_dir = Path(dataset_dir)
    path = dataset_dir / "sweep.yaml"
    if path.exists() and not replace:
        return path, None
    dataset = load_dataset(dataset_dir)
    options = grids({d.format for d in dataset.corpus})
    chosen, estimate = options[-1], None
    for grid in options:
        raw = {"name": _name(dataset_dir), "dataset": str(dataset_dir), "embedders": [EMBEDDER],
               "metric": "budget_recall", "presets": list(PRESETS), "grid": grid,
               "retriever": RETRIEVERS}  # fmt: skip
        estimate = estimate_sweep(parse_config(raw), cache_dir=cache_dir)
        chosen = grid
        if estimate.seconds <= minutes * 60:
            break
    with_evidence = sum(bool(c.evidence) for c in dataset.claims)
    atomic_write(path, _render(dataset_dir, dataset, with_evidence, chosen, minutes, estimate))
    return path, estimate


def _render(folder: Path, dataset, with_evidence: int, grid, minutes: float, estimate: Estimate) -> str:
    chunkers = sum(len(g["size"]) * len(g.get("overlap", [0])) for g in grid)
    configs = chunkers * len(RETRIEVERS) + len(PRESETS)
    counts = f"{len(dataset.corpus)} documents, {len(dataset.claims)} claims ({with_evidence} with evidence)"
    lines = [
        f"# Written by `vera-lab init` on {date.today().isoformat()} for {folder.name}: {counts}.",
        f"# {configs} configurations, sized to fit {minutes:g} minutes of embedding on this machine.",
        f"# {estimate.sentence()}.",
        f"# Run it: vera-lab sweep {shlex.quote(str(folder / 'sweep.yaml'))}",
        f"name: {_name(folder)}",
        "dataset: .                    # this folder (a relative path is relative to this file)",
        f"embedders: [{EMBEDDER}]       # MiniLM int8 (ONNX Runtime); yours: st:FOLDER or openai:MODEL@URL",
        "k: 5",
        "threshold: calibrate          # the F1-best grounding threshold, judged out of fold",
        "metric: budget_recall         # gold evidence in the first 500-4,000 characters retrieved",
        "                              # (a fixed k favours big chunks)",
        f"presets: [{', '.join(PRESETS)}]   # the seed presets (dense retrieval), for comparison",
        f"retriever: [{', '.join(RETRIEVERS)}]   # cosine, BM25, and their fusion (0.5 each)",
        "# verify: choice              # judge the choice with the shipped verifier (reads each chunk)",
        "grid:",
    ]
    for entry in grid:
        lines += [f"  - strategy: {entry['strategy']}"]
        lines += [f"    {key}: {value}" for key, value in entry.items() if key != "strategy"]
    if estimate.separation():
        lines.insert(3, f"# Note: {estimate.separation()}.")
    return "\n".join(lines) + "\n"
