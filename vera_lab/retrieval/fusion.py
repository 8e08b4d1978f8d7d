"""Fuse two rankings of chunks into one: reciprocal-rank fusion, or a weighted sum of normalised scores.

Both take per query the ranked chunk rows and scores of each retriever (-1 pads a short list) and
return a ranking ``depth`` deep. Ties go to the lower chunk row, so a fusion is deterministic.

- ``rrf``: ``sum 1 / (k + rank)`` over the lists a chunk appears in (rank from 1, ``k`` = 60, as in
  Cormack et al. 2009 and LangChain's EnsembleRetriever);
- ``weighted``: each list's scores min-max normalised to [0, 1] within the query's candidates (a chunk
  missing from a list gets 0 from it), then ``weight * dense + (1 - weight) * lexical`` (LlamaIndex's
  relative-score fusion).
"""

from __future__ import annotations

import numpy as np

from vera_lab.retrieval.index import Hits

RRF_K = 60


def _ranked(scores: dict[int, float], depth: int) -> tuple[list[int], list[float]]:
    order = sorted(scores, key=lambda row: (-scores[row], row))[:depth]
    return order, [scores[row] for row in order]


def _pack(rows: list[list[int]], values: list[list[float]], depth: int) -> Hits:
    indices = np.full((len(rows), depth), -1, dtype=np.int64)
    scores = np.full((len(rows), depth), -np.inf, dtype=np.float32)
    for i, (r, v) in enumerate(zip(rows, values, strict=True)):
        indices[i, : len(r)], scores[i, : len(v)] = r, v
    return Hits(indices, scores)


def rrf(lists: list[Hits], depth: int, k: int = RRF_K) -> Hits:
    """Reciprocal-rank fusion of several rankings (each an :class:`Hits`), ``depth`` deep."""
    rows, values = [], []
    for q in range(lists[0].indices.shape[0]):
        fused: dict[int, float] = {}
        for hits in lists:
            for rank, row in enumerate(hits.indices[q], 1):
                if row >= 0:
                    fused[int(row)] = fused.get(int(row), 0.0) + 1.0 / (k + rank)
        r, v = _ranked(fused, depth)
        rows.append(r)
        values.append(v)
    return _pack(rows, values, depth)


def weighted(dense: Hits, lexical: Hits, weight: float, depth: int) -> Hits:
    """``weight * dense + (1 - weight) * lexical`` of min-max normalised scores, ``depth`` deep."""
    if not 0 <= weight <= 1:
        raise ValueError(f"hybrid weight {weight!r}: the dense share, in [0, 1]")
    rows, values = [], []
    for q in range(dense.indices.shape[0]):
        fused: dict[int, float] = {}
        for hits, share in ((dense, weight), (lexical, 1 - weight)):
            found = hits.indices[q] >= 0
            picked, raw = hits.indices[q][found], hits.scores[q][found].astype(np.float64)
            if not len(raw):
                continue
            span = raw.max() - raw.min()
            norm = (raw - raw.min()) / span if span > 0 else np.ones_like(raw)
            for row, value in zip(picked, norm, strict=True):
                fused[int(row)] = fused.get(int(row), 0.0) + share * float(value)
        r, v = _ranked(fused, depth)
        rows.append(r)
        values.append(v)
    return _pack(rows, values, depth)
