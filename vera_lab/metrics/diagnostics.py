"""Why a configuration loses: what its embedder never sees, and why each missed claim was missed.

Pure functions over chunk spans and gold spans (no I/O). An embedder reads at most ``max_tokens``
word pieces of a chunk; the rest of the chunk is an unseen tail that still counts as "retrieved
text". Every claim whose evidence is not retrieved gets one reason, checked in this order:

- ``straddle``: no single chunk holds at least ``hold_share`` of any gold span: a boundary cut it;
- ``truncated``: chunks hold the evidence, but in the tail the embedder never saw;
- ``diluted``: a chunk holds and sees the evidence but is at least ``dilution`` times longer than
  it, and ranked below k;
- ``ranking``: otherwise (the chunk was there, seen and focused, and still ranked below k).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from vera_lab.metrics import union
from vera_lab.tokens import Tokenizer
from vera_lab.types import Chunk, Span

MISS_REASONS = ("straddle", "truncated", "diluted", "ranking")


@dataclass(frozen=True)
class MissThresholds:
    """The documented defaults of miss attribution."""

    hold_share: float = 0.5  # a chunk "holds" a gold span when it contains at least this share of it
    dilution: float = 4.0  # a holding chunk this many times longer than the span dilutes it


def seen_ends(
    chunks: Sequence[Chunk],
    tokenizer: Tokenizer,
    max_tokens: int | None,
    reserved: Sequence[int] | None = None,
) -> np.ndarray:
    """For each chunk, the document offset where the embedder stops reading (its end when it reads all).

    ``max_tokens`` counts the model's two special tokens ([CLS], [SEP]), as sentence-transformers does;
    ``reserved`` word pieces per chunk go to text embedded before it (a context header).
    """
    ends = np.array([c.end for c in chunks], dtype=np.int64)
    if not max_tokens:
        return ends
    for i, chunk in enumerate(chunks):
        budget = max(0, max_tokens - 2 - (reserved[i] if reserved is not None else 0))
        if len(chunk.text) <= budget and chunk.text.isascii():  # an ASCII character: at most one piece
            continue
        spans = tokenizer.spans(chunk.text)
        if spans is not None and len(spans.ends) > budget:
            ends[i] = chunk.start + (int(spans.ends[budget - 1]) if budget else 0)
    return ends


def truncation_audit(chunks: Sequence[Chunk], seen: np.ndarray, gold: Sequence[Span]) -> dict[str, float]:
    """What the model's input limit hides, as three shares.

    Of chunks cut by the limit, of chunk characters never seen, and of gold evidence characters that
    appear only in unseen tails (seen by no chunk).
    """
    lengths = np.array([c.end - c.start for c in chunks], dtype=np.int64)
    starts = np.array([c.start for c in chunks], dtype=np.int64)
    unseen = lengths - (seen - starts)
    seen_by_doc: dict[str, list[tuple[int, int]]] = {}
    for chunk, end in zip(chunks, seen, strict=True):
        seen_by_doc.setdefault(chunk.doc_id, []).append((chunk.start, int(end)))
    merged = {d: union(v) for d, v in seen_by_doc.items()}
    gold_spans = {(g.doc_id, g.start, g.end) for g in gold}
    total = sum(e - s for _, s, e in gold_spans)
    visible = sum(max(0, min(e, b) - max(s, a)) for d, s, e in gold_spans for a, b in merged.get(d, ()))
    return {
        "trunc_chunk_share": float((unseen > 0).mean()) if len(chunks) else 0.0,
        "trunc_char_share": float(unseen.sum() / lengths.sum()) if lengths.sum() else 0.0,
        "trunc_gold_share": float(1 - visible / total) if total else 0.0,
    }


def miss_reason(
    gold: Sequence[Span],
    candidates: Sequence[Chunk],
    seen: Sequence[int],
    thresholds: MissThresholds = MissThresholds(),
) -> str:
    """Why a claim's evidence was not in its top k, given the chunks it could have retrieved."""
    holders = []  # (chunk, seen end, gold span) where the chunk holds the span
    for chunk, end in zip(candidates, seen, strict=True):
        for g in gold:
            if g.doc_id == chunk.doc_id and len(g):
                inside = min(chunk.end, g.end) - max(chunk.start, g.start)
                if inside >= thresholds.hold_share * len(g):
                    holders.append((chunk, int(end), g))
    if not holders:
        return "straddle"
    seeing = [
        (chunk, g)
        for chunk, end, g in holders
        if min(end, g.end) - max(chunk.start, g.start) >= thresholds.hold_share * len(g)
    ]
    if not seeing:
        return "truncated"
    if all(len(chunk.text) >= thresholds.dilution * len(g) for chunk, g in seeing):
        return "diluted"
    return "ranking"
