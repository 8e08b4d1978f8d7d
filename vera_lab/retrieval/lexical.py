"""BM25 over chunks: a sparse term-weight matrix searched by the same exact top-k as dense vectors.

Each chunk's BM25 weight of a term is computed once (Lucene's formula: ``idf * tf * (k1 + 1) /
(tf + k1 * (1 - b + b * len / avg_len))``, ``idf = ln(1 + (N - df + 0.5) / (df + 0.5))``), so a
query's score is the sum of its distinct terms' weights: one sparse product, scoped to a claim's
documents exactly as dense search is. Tokens are lower-cased letter/digit runs; Chinese, Japanese and
Korean text, written without spaces, becomes its characters and character pairs. Words of English,
German, French, Spanish, Italian, Portuguese, Dutch and Russian are stemmed (Snowball): "disclose",
"disclosed" and "disclosure" meet, as do "Verträge" and "Vertrag". ``benchmarks/bm25_stemming.py``
measured English on the labelled sets there are, and the others, which have none here, by gold lemmas
looking for their sentence in the UD treebanks: stemming raised MRR in each, by 0.07 (German) to
0.29 (Russian). Chinese and Japanese have no stems.

Written here rather than taken from bm25s: the contract needs the corpus-wide index scoped per query
to a claim's documents and ties broken by chunk order, which bm25s does not expose;
``benchmarks/retrievers.py`` checks the two agree and times both.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence

import numpy as np
import scipy.sparse as sp

from vera_lab.retrieval.index import Index
from vera_lab.tokens import CJK_RUN, cjk_split, stemmer

K1, B = 1.5, 0.75
_WORD = re.compile(r"[^\W_]+")


def tokenize(text: str, stem: Callable[[str], str] | None = None) -> list[str]:
    """Lower-cased words (stemmed by ``stem``); a run of CJK characters as its characters and pairs."""
    words = _WORD.findall(text.lower())
    if CJK_RUN.search(text):
        words = [t for word in words for t in cjk_split(word)]
    return [stem(w) for w in words] if stem else words


class BM25:
    """A BM25 index of texts; :meth:`search` returns an :class:`Index`-style top k (BM25 scores)."""

    def __init__(
        self,
        texts: Sequence[str],
        doc_ids: Sequence[str],
        k1: float = K1,
        b: float = B,
        language: str | None = None,
    ) -> None:
        from sklearn.feature_extraction.text import CountVectorizer

        self.vectorizer = CountVectorizer(analyzer=functools.partial(tokenize, stem=stemmer(language)))
        tf = self.vectorizer.fit_transform(list(texts)).tocsr().astype(np.float64)
        lengths = np.asarray(tf.sum(axis=1)).ravel()
        n = tf.shape[0]
        df = np.bincount(tf.indices, minlength=tf.shape[1])
        self.idf = np.log1p((n - df + 0.5) / (df + 0.5))
        norm = k1 * (1 - b + b * lengths / max(lengths.mean(), 1e-9)) if n else lengths
        weights = tf.copy()
        rows = np.repeat(np.arange(n), np.diff(tf.indptr))
        weights.data = self.idf[tf.indices] * tf.data * (k1 + 1) / (tf.data + norm[rows])
        self.index = Index(weights, doc_ids)

    @property
    def nbytes(self) -> int:
        w = self.index.vectors
        return int(w.data.nbytes + w.indices.nbytes + w.indptr.nbytes)

    def queries(self, texts: Sequence[str]) -> sp.csr_matrix:
        """Each query's distinct known terms as a 0/1 row (a term counts once per query)."""
        q = self.vectorizer.transform(list(texts)).tocsr()
        q.data[:] = 1.0
        return q.astype(np.float64)

    def search(self, texts: Sequence[str], k: int, allowed_docs: Sequence[Sequence[str]] | None = None):
        """Top-``k`` chunks per query text by BM25 score (within ``allowed_docs`` when given)."""
        return self.index.search(self.queries(texts), k, allowed_docs)
