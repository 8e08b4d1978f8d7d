"""Reranking: the trained verifier reads each claim with its top N candidates and reorders them.

A candidate's relevance is the verifier's probability that the passage says something about the
claim, supporting or contradicting it (1 - P(not mentioned)). Each claim is read by the fold model
that never saw its documents, so reranking the sweep's own claims is out of fold too. Candidates past
N keep their order behind the reranked ones (budget-matched metrics read that deep).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from vera_lab.retrieval import Hits
from vera_lab.types import Chunk, Claim


def rerank(claims: Sequence[Claim], ranking: Hits, chunks: Sequence[Chunk], verifier, n: int) -> Hits:
    """``ranking`` with each claim's first ``n`` candidates reordered by the verifier (ties: first stage)."""
    head = ranking.indices[:, :n]
    passages = [[chunks[r].text for r in row if r >= 0] for row in head]
    probabilities, _ = verifier.pair_probabilities(claims, passages)
    indices, scores = ranking.indices.copy(), ranking.scores.copy()
    for i, (row, probs) in enumerate(zip(head, probabilities, strict=True)):
        found = row[row >= 0]
        relevance = 1.0 - probs[:, 2]
        order = np.argsort(-relevance, kind="stable")
        indices[i, : len(found)] = found[order]
        scores[i, : len(found)] = relevance[order]
    return Hits(indices, scores)
