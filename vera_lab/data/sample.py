"""Deterministic subsets of a dataset: fewer claims, and a corpus of the cited documents plus distractors."""

from __future__ import annotations

import dataclasses
import random

from vera_lab.types import Claim, ClaimSet, Dataset


def sample_dataset(
    dataset: Dataset,
    claims: int | None = None,
    distractors: int | None = None,
    seed: int = 0,
    documents: int | None = None,
) -> Dataset:
    """Keep ``claims`` random claims (all if None); with ``distractors``, keep only their documents.

    The kept documents are those the kept claims cite or use as evidence, plus ``distractors``
    other documents drawn at random with ``seed``. ``documents`` first keeps that many random
    documents and only the claims whose documents are all among them (a sample of contracts).
    """
    rng = random.Random(seed)
    if documents is not None and documents < len(dataset.corpus):
        keep = set(rng.sample([d.doc_id for d in dataset.corpus], documents))
        inside = [c for c in dataset.claims if set(_needed(c)) <= keep]
        subset = dataset.corpus.subset([d.doc_id for d in dataset.corpus if d.doc_id in keep])
        dataset = dataclasses.replace(
            dataset, corpus=subset, claims=ClaimSet(tuple(inside), dataset.claims.name)
        )
    kept = list(dataset.claims)
    if claims is not None and claims < len(kept):
        chosen = set(rng.sample(range(len(kept)), claims))
        kept = [c for i, c in enumerate(kept) if i in chosen]
    corpus = dataset.corpus
    if distractors is not None:
        needed = {d for c in kept for d in _needed(c)}
        others = [d.doc_id for d in corpus if d.doc_id not in needed]
        extra = set(rng.sample(others, min(distractors, len(others))))
        corpus = corpus.subset([d.doc_id for d in corpus if d.doc_id in needed or d.doc_id in extra])
    return dataclasses.replace(dataset, corpus=corpus, claims=ClaimSet(tuple(kept), dataset.claims.name))


def _needed(claim: Claim) -> tuple[str, ...]:
    """The documents a claim cites or takes evidence from."""
    return (*claim.cited_doc_ids, *(s.doc_id for s in claim.evidence))
