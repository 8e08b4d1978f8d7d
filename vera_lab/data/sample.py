"""Deterministic subsets of a dataset: fewer claims, and a corpus of the cited documents plus distractors."""

from __future__ import annotations

import random

from vera_lab.types import ClaimSet, Dataset


def sample_dataset(
    dataset: Dataset, claims: int | None = None, distractors: int | None = None, seed: int = 0
) -> Dataset:
    """Keep ``claims`` random claims (all if None); with ``distractors``, keep only their documents.

    The kept documents are those the kept claims cite or use as evidence, plus ``distractors``
    other documents drawn at random with ``seed``.
    """
    rng = random.Random(seed)
    kept = list(dataset.claims)
    if claims is not None and claims < len(kept):
        chosen = set(rng.sample(range(len(kept)), claims))
        kept = [c for i, c in enumerate(kept) if i in chosen]
    corpus = dataset.corpus
    if distractors is not None:
        needed = {d for c in kept for d in (*c.cited_doc_ids, *(s.doc_id for s in c.evidence))}
        others = [d.doc_id for d in corpus if d.doc_id not in needed]
        extra = set(rng.sample(others, min(distractors, len(others))))
        corpus = corpus.subset([d.doc_id for d in corpus if d.doc_id in needed or d.doc_id in extra])
    return Dataset(dataset.name, corpus, ClaimSet(tuple(kept), dataset.claims.name))
