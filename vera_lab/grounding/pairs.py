"""Training pairs for the verifier: (claim, passage) with a three-way label, drawn from labelled claims.

- The gold evidence of a supported claim is *supported*, of a contradicted claim *contradicted*: the
  span alone and once more inside a window of random surrounding text, as a retrieved chunk holds it.
- *Not mentioned*: passages of the claim's own documents that do not overlap its evidence, nearest to
  the claim by tf-idf first (hard negatives: same topic, not stating it); for a claim labelled
  unsupported, its documents' nearest passages (the claim is about them and they do not state it);
  and passages of other documents of the same training set, drawn at random.

Seeded and deterministic; only the claims given (and their documents) are ever read, which is what
lets a fold's model be trained without the documents it will score.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from vera_lab.grounding.base import VERDICTS, claim_documents
from vera_lab.types import Claim, Corpus, Span

SUPPORTED, CONTRADICTED, NOT_MENTIONED = range(3)


@dataclass(frozen=True)
class Pair:
    """A claim and a passage ``[start, end)`` of ``doc_id``, labelled by index into ``VERDICTS``."""

    claim: str
    passage: str
    label: int
    doc_id: str
    start: int
    end: int
    kind: str  # evidence | context | hard | unsupported | random: how it was drawn

    @property
    def verdict(self) -> str:
        return VERDICTS[self.label]


@dataclass(frozen=True)
class PairRecipe:
    """How many pairs of each kind a claim contributes, and how passages are cut."""

    hard_negatives: int = 2  # nearest non-evidence passages of the claim's documents
    random_negatives: int = 1  # passages of other documents
    context_chars: int = 400  # most surrounding text added on each side of an evidence span
    passage_chars: int = 300  # size of the sentence-packed passages negatives are drawn from
    seed: int = 0


def _overlaps(start: int, end: int, spans: Sequence[Span], doc_id: str) -> bool:
    return any(s.doc_id == doc_id and start < s.end and s.start < end for s in spans)


def document_passages(corpus: Corpus, doc_ids: Sequence[str], size: int) -> dict[str, list[tuple[int, int]]]:
    """Sentence-packed passages of about ``size`` characters, as ``(start, end)`` per document."""
    from vera_lab.chunking import SentenceChunker

    chunker = SentenceChunker(size=size, overlap=0)
    return {d: [(c.start, c.end) for c in chunker.chunk(corpus[d])] for d in doc_ids if d in corpus}


def training_pairs(claims: Sequence[Claim], corpus: Corpus, recipe: PairRecipe = PairRecipe()) -> list[Pair]:
    """Every pair the recipe draws from ``claims``; their documents are the only text read."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    rng = np.random.default_rng(recipe.seed)
    docs = list(dict.fromkeys(d for c in claims for d in claim_documents(c) if d in corpus))
    passages = document_passages(corpus, docs, recipe.passage_chars)
    flat = [(d, s, e) for d in docs for s, e in passages[d]]
    first_row = {}
    for row, (d, _, _) in enumerate(flat):
        first_row.setdefault(d, row)
    texts = [corpus[d].text[s:e] for d, s, e in flat]
    vectorizer = TfidfVectorizer(sublinear_tf=True).fit(texts + [c.text for c in claims]) if flat else None
    matrix = vectorizer.transform(texts) if vectorizer else None

    pairs: list[Pair] = []
    for claim in claims:
        own = [d for d in claim_documents(claim) if d in passages]
        for span in claim.evidence if claim.label != "unsupported" else ():
            label = SUPPORTED if claim.label == "supported" else CONTRADICTED
            text = corpus[span.doc_id].text
            pairs.append(Pair(claim.text, text[span.start : span.end], label, span.doc_id, span.start,
                              span.end, "evidence"))  # fmt: skip
            left, right = rng.integers(0, recipe.context_chars + 1, size=2)
            start, end = max(0, span.start - int(left)), min(len(text), span.end + int(right))
            pairs.append(Pair(claim.text, text[start:end], label, span.doc_id, start, end, "context"))
        rows = [first_row[d] + i for d in own for i in range(len(passages[d]))]
        rows = [r for r in rows if not _overlaps(flat[r][1], flat[r][2], claim.evidence, flat[r][0])]
        if rows and matrix is not None:
            sims = (matrix[rows] @ vectorizer.transform([claim.text]).T).toarray().ravel()
            wanted = recipe.hard_negatives + (1 if claim.label == "unsupported" else 0)
            kind = "unsupported" if claim.label == "unsupported" else "hard"
            for j in np.argsort(-sims, kind="stable")[:wanted]:
                d, s, e = flat[rows[j]]
                pairs.append(Pair(claim.text, texts[rows[j]], NOT_MENTIONED, d, s, e, kind))
        others = [d for d in docs if d not in own]
        for _ in range(recipe.random_negatives if others else 0):
            d = others[int(rng.integers(len(others)))]
            s, e = passages[d][int(rng.integers(len(passages[d])))] if passages[d] else (0, 0)
            if e > s:
                pairs.append(Pair(claim.text, corpus[d].text[s:e], NOT_MENTIONED, d, s, e, "random"))
    return pairs


def pair_counts(pairs: Sequence[Pair]) -> dict[str, int]:
    """Pairs per verdict, in the order of ``VERDICTS``."""
    return {v: sum(p.label == i for p in pairs) for i, v in enumerate(VERDICTS)}
