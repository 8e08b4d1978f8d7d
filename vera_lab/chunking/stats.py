"""Statistics of a list of chunks: sizes, realised overlap, sentence-aligned ends, storage overhead."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from vera_lab.chunking.segment import sentence_spans
from vera_lab.tokens import Tokenizer
from vera_lab.types import Chunk, Document


def _distribution(prefix: str, values: Sequence[int]) -> dict[str, float]:
    arr = np.asarray(values, dtype=np.float64)
    if arr.size == 0:
        return {f"{prefix}_{k}": 0.0 for k in ("mean", "p5", "p50", "p95", "max")}
    p5, p50, p95 = np.percentile(arr, [5, 50, 95])
    return {
        f"{prefix}_mean": float(arr.mean()),
        f"{prefix}_p5": float(p5),
        f"{prefix}_p50": float(p50),
        f"{prefix}_p95": float(p95),
        f"{prefix}_max": float(arr.max()),
    }


def chunk_stats(
    chunks: Sequence[Chunk], documents: Iterable[Document], tokenizer: Tokenizer | None = None
) -> dict[str, float]:
    """One flat row of statistics; token sizes come from ``n_tokens`` or else from ``tokenizer``."""
    docs = {d.doc_id: d for d in documents}
    stats: dict[str, float] = {"n_chunks": float(len(chunks)), "n_documents": float(len(docs))}
    stats.update(_distribution("chars", [c.end - c.start for c in chunks]))
    if chunks and all(c.n_tokens is not None for c in chunks):
        stats.update(_distribution("tokens", [c.n_tokens for c in chunks]))  # type: ignore[misc]
    elif tokenizer is not None:
        stats.update(_distribution("tokens", tokenizer.count_many([c.text for c in chunks])))

    overlaps = [
        max(0, prev.end - cur.start)
        for prev, cur in zip(chunks, chunks[1:], strict=False)
        if prev.doc_id == cur.doc_id
    ]
    stats["overlap_chars_mean"] = float(np.mean(overlaps)) if overlaps else 0.0
    stats["overlap_chars_max"] = float(max(overlaps, default=0))

    sentence_ends: dict[str, set[int]] = {}
    aligned = 0
    for c in chunks:
        if c.doc_id not in sentence_ends:
            language = c.metadata.get("lang")  # the sentences the chunker read, not a new detection
            sentence_ends[c.doc_id] = {e for _, e in sentence_spans(docs[c.doc_id].text, language)}
        aligned += c.end in sentence_ends[c.doc_id]
    stats["sentence_end_share"] = aligned / len(chunks) if chunks else 0.0

    doc_chars = sum(len(d.text) for d in docs.values())
    stats["storage_overhead"] = sum(c.end - c.start for c in chunks) / doc_chars if doc_chars else 0.0
    return stats
