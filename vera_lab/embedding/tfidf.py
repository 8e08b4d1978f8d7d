"""TF-IDF vectors (scikit-learn): the fast lexical baseline. Sparse rows; fitted on the chunk texts."""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Sequence

import numpy as np
import scipy.sparse as sp
from sklearn.base import clone

from vera_lab.language import majority_language
from vera_lab.tokens import stemmed_words, word_tokens


class TfidfEmbedder:
    """Word unigram + bigram TF-IDF with sublinear term frequency, L2-normalised rows.

    Words are scikit-learn's, except that Chinese, Japanese and Korean runs become characters and
    character pairs (``tokens.word_tokens``): a Chinese claim no longer scores 0. They are stemmed in
    the language most of the fitted texts are written in, as BM25's are (``tokens.stemmed_words``):
    on the English sets stemming raised budget recall by 0.012-0.036.

    Vectors depend on the texts it was fitted on, so they are never cached and ``name`` carries a
    hash of that fit. ``embed`` before ``fit`` fits on the texts it is given.
    """

    sparse = True
    fits_corpus = True
    input_limit = None

    def __init__(self, max_features: int = 200_000) -> None:
        from sklearn.feature_extraction.text import TfidfVectorizer

        self._vectorizer = TfidfVectorizer(
            ngram_range=(1, 2), sublinear_tf=True, min_df=1, max_features=max_features, dtype=np.float32,
            tokenizer=word_tokens, token_pattern=None,  # CJK split into characters and pairs
        )  # fmt: skip
        self._fitted = False
        self.name, self.dim = "tfidf", 0

    def fit(self, texts: Sequence[str]) -> TfidfEmbedder:
        """Learn vocabulary and IDF from ``texts`` (the chunks to be searched)."""
        texts = list(texts)
        digest = hashlib.sha256("\0".join(texts).encode("utf-8", "surrogatepass")).hexdigest()
        key = (digest, repr(self._vectorizer.get_params()))
        fitted = _LAST_FIT.get(key)  # one chunking under several pipelines is fitted once
        if fitted is None:
            vectorizer = clone(self._vectorizer)
            # words stemmed in the texts' language (a function of the texts: the digest covers it), as BM25's
            words = functools.partial(stemmed_words, language=majority_language(texts))
            vectorizer.set_params(tokenizer=words)
            fitted = (vectorizer, vectorizer.fit_transform(texts).tocsr())
            _LAST_FIT.clear()  # threads may race here: each keeps the fit it holds, none is lost
            _LAST_FIT[key] = fitted
        self._vectorizer, self._fitted_matrix = fitted
        self._fitted_digest = digest
        self._fitted = True
        self.dim = len(self._vectorizer.vocabulary_)
        self.name = f"tfidf-{self.dim}-{digest[:8]}"
        return self

    def embed(self, texts: Sequence[str]) -> sp.csr_matrix:
        texts = list(texts)
        if not self._fitted:
            self.fit(texts)
        if texts and len(texts) == self._fitted_matrix.shape[0]:  # the fitted texts: already transformed
            digest = hashlib.sha256("\0".join(texts).encode("utf-8", "surrogatepass")).hexdigest()
            if digest == self._fitted_digest:
                return self._fitted_matrix.copy()
        return self._vectorizer.transform(texts).tocsr()


# The last fit, by (sha256 of the texts, vectorizer parameters): a sweep runs one chunking under
# several retrieval pipelines in a row, and each would otherwise analyse every text twice again.
_LAST_FIT: dict[tuple[str, str], tuple] = {}
