"""Training pairs for the verifier: (claim, passage) with a three-way label, drawn from labelled claims.

- The gold evidence of a supported claim is *supported*, of a contradicted claim *contradicted*: the
  span alone and once more inside a window of random surrounding text, as a retrieved chunk holds it.
- *Not mentioned*: sentences of the claim's own documents that do not overlap its evidence, nearest to
  the claim by tf-idf first (hard negatives: same topic, not stating it); for a claim labelled
  unsupported, its documents' nearest sentences (the claim is about them and they do not state it);
  and sentences of other documents of the same training set, drawn at random. Each is used alone or
  widened like the evidence (never into the evidence), so a passage's length gives its label away
  no more than its position does.

Seeded per claim and deterministic; only the claims given and their documents are read. The verifier
draws once from every claim and gives each fold's model the pairs of its own claims whose passages lie
outside the documents it holds out; the tf-idf that ranks hard negatives is then fitted on every
document's sentences (word statistics only: no held-out passage is ever a training pair).
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from vera_lab.data.clusters import claim_documents
from vera_lab.grounding.base import VERDICTS
from vera_lab.language import document_language
from vera_lab.types import Claim, Corpus, Span

SUPPORTED, CONTRADICTED, NOT_MENTIONED = range(3)


@dataclass(frozen=True)
class Pair:
    """A claim and a passage ``[start, end)`` of ``doc_id``, labelled by index into ``VERDICTS``."""

    claim_id: str
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
    context_chars: int = 400  # most surrounding text added on each side of an anchor
    seed: int = 0


def _overlaps(start: int, end: int, spans: Sequence[Span], doc_id: str) -> bool:
    return any(s.doc_id == doc_id and start < s.end and s.start < end for s in spans)


def _widened(
    start: int, end: int, text_len: int, most: int, rng: np.random.Generator, avoid: Sequence[tuple[int, int]]
) -> tuple[int, int]:
    """``[start, end)`` widened by up to ``most`` random characters on each side.

    The window never reaches into an ``avoid`` range (the claim's evidence, for a negative).
    """
    left_wall = max([e for s, e in avoid if e <= start], default=0)
    right_wall = min([s for s, e in avoid if s >= end], default=text_len)
    left, right = rng.integers(0, most + 1, size=2)
    return max(left_wall, start - int(left)), min(right_wall, end + int(right))


def training_pairs(claims: Sequence[Claim], corpus: Corpus, recipe: PairRecipe = PairRecipe()) -> list[Pair]:
    """Every pair the recipe draws from ``claims``; their documents are the only text read.

    Positives and negatives are cut alike, so length tells the model nothing: an anchor (an evidence
    span, or a sentence that does not overlap the evidence) alone, or widened by random surrounding
    text as a chunk would hold it. Each evidence span gives both views; each negative one of them.
    """
    from sklearn.feature_extraction.text import TfidfVectorizer

    from vera_lab.chunking import sentence_spans

    docs = list(dict.fromkeys(d for c in claims for d in claim_documents(c) if d in corpus))
    sentences = {d: sentence_spans(corpus[d].text, document_language(corpus[d])) for d in docs}
    flat = [(d, s, e) for d in docs for s, e in sentences[d]]
    first_row = {}
    for row, (d, _, _) in enumerate(flat):
        first_row.setdefault(d, row)
    texts = [corpus[d].text[s:e] for d, s, e in flat]
    vectorizer = TfidfVectorizer(sublinear_tf=True).fit(texts + [c.text for c in claims]) if flat else None
    matrix = vectorizer.transform(texts) if vectorizer else None

    pairs: list[Pair] = []
    for claim in claims:
        # one generator per claim: a claim's pairs never depend on which other claims are drawn with it
        rng = np.random.default_rng(
            [recipe.seed, zlib.crc32(claim.claim_id.encode("utf-8", "surrogatepass"))]
        )
        own = [d for d in claim_documents(claim) if d in sentences]

        def negative(d: str, s: int, e: int, kind: str) -> None:
            avoid = [(x.start, x.end) for x in claim.evidence if x.doc_id == d]  # noqa: B023 - used at once
            if rng.random() < 0.5:  # noqa: B023
                s, e = _widened(s, e, len(corpus[d].text), recipe.context_chars, rng, avoid)  # noqa: B023
            text = corpus[d].text[s:e]
            pairs.append(Pair(claim.claim_id, claim.text, text, NOT_MENTIONED, d, s, e, kind))  # noqa: B023

        for span in claim.evidence if claim.label != "unsupported" else ():
            label = SUPPORTED if claim.label == "supported" else CONTRADICTED
            text = corpus[span.doc_id].text
            pairs.append(Pair(claim.claim_id, claim.text, text[span.start : span.end], label, span.doc_id,
                              span.start, span.end, "evidence"))  # fmt: skip
            start, end = _widened(span.start, span.end, len(text), recipe.context_chars, rng, ())
            pairs.append(Pair(claim.claim_id, claim.text, text[start:end], label, span.doc_id, start, end,
                              "context"))  # fmt: skip
        rows = [first_row[d] + i for d in own for i in range(len(sentences[d]))]
        rows = [r for r in rows if not _overlaps(flat[r][1], flat[r][2], claim.evidence, flat[r][0])]
        if rows and matrix is not None:
            sims = (matrix[rows] @ vectorizer.transform([claim.text]).T).toarray().ravel()
            wanted = recipe.hard_negatives + (1 if claim.label == "unsupported" else 0)
            kind = "unsupported" if claim.label == "unsupported" else "hard"
            for j in np.argsort(-sims, kind="stable")[:wanted]:
                negative(*flat[rows[j]], kind)
        others = [d for d in docs if d not in own and sentences[d]]
        for _ in range(recipe.random_negatives if others else 0):
            d = others[int(rng.integers(len(others)))]
            negative(d, *sentences[d][int(rng.integers(len(sentences[d])))], "random")
    return pairs


def pair_counts(pairs: Sequence[Pair]) -> dict[str, int]:
    """Pairs per verdict, in the order of ``VERDICTS``."""
    return {v: sum(p.label == i for p in pairs) for i, v in enumerate(VERDICTS)}
