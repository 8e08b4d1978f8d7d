"""Exact top-k by inner product over one matrix of chunk vectors (dense float32 or sparse).

Dense vectors are unit rows, so the product is their cosine; BM25 rows are term weights.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

SCOPES = ("corpus", "cited")
_QUERY_BLOCK = 256  # queries scored at once: bounds the (queries x chunks) score matrix


@dataclass(frozen=True)
class Hits:
    """Top-k chunk indices and cosine scores per query, best first; -1 / -inf pad short lists."""

    indices: np.ndarray  # (n_queries, k) int64
    scores: np.ndarray  # (n_queries, k) float32


def _dense(scores) -> np.ndarray:
    return scores.toarray() if sp.issparse(scores) else np.asarray(scores)


def _top_k(scores: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Row-wise top-k; ties go to the lower index, also at the k-th place (BM25 has many equal scores).

    A partial sort finds each row's k-th best value; every entry at least that good (ties included)
    is then sorted by score and index, and the first k are kept.
    """
    n = scores.shape[1]
    if k >= n:
        part = np.broadcast_to(np.arange(n), (scores.shape[0], n))
        picked = np.take_along_axis(scores, part, axis=1)
        order = np.lexsort((part, -picked), axis=1)
        return np.take_along_axis(part, order, axis=1), np.take_along_axis(picked, order, axis=1)
    kth = -np.partition(-scores, k - 1, axis=1)[:, k - 1]
    indices = np.empty((scores.shape[0], k), dtype=np.int64)
    for i, row in enumerate(scores):
        candidates = np.flatnonzero(row >= kth[i])
        indices[i] = candidates[np.lexsort((candidates, -row[candidates]))[:k]]
    return indices, np.take_along_axis(scores, indices, axis=1)


class Index:
    """All chunk vectors of a corpus; search the whole corpus or, per query, a set of documents."""

    def __init__(self, vectors, doc_ids: Sequence[str]) -> None:
        if vectors.shape[0] != len(doc_ids):
            raise ValueError(f"{vectors.shape[0]} vectors for {len(doc_ids)} chunks")
        self.vectors = vectors.tocsr() if sp.issparse(vectors) else np.ascontiguousarray(vectors, np.float32)
        self.doc_ids = list(doc_ids)
        self._rows_of_doc: dict[str, list[int]] = {}
        for row, doc_id in enumerate(self.doc_ids):
            self._rows_of_doc.setdefault(doc_id, []).append(row)

    def __len__(self) -> int:
        return len(self.doc_ids)

    def search(self, queries, k: int, allowed_docs: Sequence[Sequence[str]] | None = None) -> Hits:
        """Top-``k`` chunks per query; with ``allowed_docs``, query i sees only chunks of those documents."""
        if k <= 0:
            raise ValueError(f"k={k}: must be positive")
        n_queries = queries.shape[0]
        indices = np.full((n_queries, k), -1, dtype=np.int64)
        scores = np.full((n_queries, k), -np.inf, dtype=np.float32)
        if allowed_docs is None:
            kk = min(k, len(self))
            for lo in range(0, n_queries, _QUERY_BLOCK):
                block = _dense(queries[lo : lo + _QUERY_BLOCK] @ self.vectors.T).astype(np.float32)
                idx, val = _top_k(block, kk)
                indices[lo : lo + len(idx), :kk], scores[lo : lo + len(idx), :kk] = idx, val
            return Hits(indices, scores)
        # Queries that see the same documents (the claims about one contract) are scored in one product.
        groups: dict[tuple[str, ...], list[int]] = {}
        for i, docs in enumerate(allowed_docs):
            groups.setdefault(tuple(docs), []).append(i)
        for docs, members in groups.items():
            rows = np.array([r for d in docs for r in self._rows_of_doc.get(d, ())], dtype=np.int64)
            if rows.size == 0:
                continue
            kk = min(k, rows.size)
            for lo in range(0, len(members), _QUERY_BLOCK):
                block = np.array(members[lo : lo + _QUERY_BLOCK])
                row_scores = _dense(queries[block] @ self.vectors[rows].T).astype(np.float32)
                idx, val = _top_k(row_scores, kk)
                indices[block, :kk], scores[block, :kk] = rows[idx], val
        return Hits(indices, scores)
