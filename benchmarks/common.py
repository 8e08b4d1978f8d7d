"""Helpers shared by the benchmarks: the bundled corpus, timing, printing."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from vera_lab import load_dataset
from vera_lab.types import Document

ROOT = Path(__file__).resolve().parents[1]


def bundled_documents(min_bytes: int = 0) -> list[Document]:
    """All documents of datasets/, repeated (with new ids) until they hold ``min_bytes`` of UTF-8."""
    base = [d for name in ("scifact", "chroma-eval") for d in load_dataset(ROOT / "datasets" / name).corpus]
    docs = list(base)
    size = sum(len(d.text.encode()) for d in docs)
    k = 0
    while size < min_bytes:  # repeat documents one by one, under new ids, until large enough
        d = base[k % len(base)]
        docs.append(Document(f"{d.doc_id}~{k // len(base) + 1}", d.text))
        size += len(d.text.encode())
        k += 1
    return docs


def long_text(n_chars: int) -> str:
    """One document of exactly ``n_chars`` characters made of the bundled texts."""
    parts, total = [], 0
    for d in bundled_documents():
        parts.append(d.text)
        total += len(d.text) + 2
        if total >= n_chars:
            break
    return "\n\n".join(parts)[:n_chars]


def best_time(fn: Callable[[], object], repeat: int = 3) -> float:
    """Fastest wall time of ``repeat`` runs, in seconds (the least disturbed by a busy machine)."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def best_times(fns: dict[str, Callable[[], object]], repeat: int = 3) -> dict[str, float]:
    """Fastest wall time of each function over ``repeat`` rounds that run every function once.

    Interleaving makes a slow spell of a shared machine fall on all of them alike, where timing one
    after the other would favour whichever ran in a quiet moment.
    """
    best = dict.fromkeys(fns, float("inf"))
    for _ in range(repeat):
        for name, fn in fns.items():
            start = time.perf_counter()
            fn()
            best[name] = min(best[name], time.perf_counter() - start)
    return best


def table(rows: list[dict], columns: list[str]) -> str:
    """A plain-text table."""
    widths = [max(len(c), *(len(str(r.get(c, ""))) for r in rows)) for c in columns]
    lines = ["  ".join(c.ljust(w) for c, w in zip(columns, widths, strict=True))]
    lines.append("  ".join("-" * w for w in widths))
    for r in rows:
        lines.append("  ".join(str(r.get(c, "")).ljust(w) for c, w in zip(columns, widths, strict=True)))
    return "\n".join(lines)
