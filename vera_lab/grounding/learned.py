"""A learned grounding scorer: features of what retrieval found, a logistic model fitted out of fold.

Cosine similarity says a chunk is about the same thing as the claim, not that it states it. The
features add what a reader checks: how far the best chunk stands out, whether the claim's words and
numbers are in it, whether one side negates what the other affirms. Every claim's score comes from a
model fitted without it, and its threshold from claims that model's fitting never saw scored.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from vera_lab.metrics import best_f1_threshold
from vera_lab.retrieval import Hits
from vera_lab.types import Chunk, Claim

FEATURES = (
    "sim_1", "sim_2", "sim_3", "sim_mean", "gap_1_2", "gap_1_mean", "distinct_docs", "tfidf_cosine",
    "content_share_best", "content_share_top3", "number_share", "claim_has_numbers",
    "claim_negations", "chunk_negations", "negation_mismatch", "antonym_cue", "log_chunk_chars",
)  # fmt: skip
_WORD = re.compile(r"[a-z][a-z'-]+|\d+(?:[.,]\d+)*")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_NEGATIONS = {"not", "no", "never", "none", "nor", "neither", "without", "cannot", "n't", "nothing",
              "nobody", "lack", "lacks", "absent", "fail", "fails", "unable"}  # fmt: skip
_ANTONYMS = [("increase", "decrease"), ("increases", "decreases"), ("increased", "decreased"),
             ("higher", "lower"), ("more", "less"), ("positive", "negative"), ("may", "shall"),
             ("allowed", "prohibited"), ("permitted", "prohibited"), ("must", "may"), ("all", "some"),
             ("reduces", "increases"), ("reduced", "increased"), ("risk", "protection")]  # fmt: skip
_STOP = {"the", "a", "an", "of", "and", "or", "to", "in", "on", "for", "by", "with", "is", "are", "be",
         "as", "at", "that", "this", "it", "its", "from", "any", "such", "shall", "may", "which", "was",
         "were", "has", "have", "had", "their", "there", "than", "into", "also", "other"}  # fmt: skip


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower().replace("’", "'"))


def _content(words: Sequence[str]) -> set[str]:
    return {w for w in words if w not in _STOP and len(w) > 2 and w not in _NEGATIONS}


def _negations(words: Sequence[str]) -> int:
    return sum(w in _NEGATIONS or w.endswith("n't") for w in words)


def claim_features(claims: Sequence[Claim], hits: Hits, chunks: Sequence[Chunk]) -> np.ndarray:
    """One row of :data:`FEATURES` per claim, from its top-k hits."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    sims = np.where(np.isfinite(hits.scores), hits.scores, 0.0).astype(np.float64)
    sims = np.pad(sims, ((0, 0), (0, max(0, 3 - sims.shape[1]))))
    best_rows = hits.indices[:, 0]
    best_texts = [chunks[r].text if r >= 0 else "" for r in best_rows]
    vectorizer = TfidfVectorizer(sublinear_tf=True).fit([c.text for c in claims] + best_texts)
    claim_vecs = vectorizer.transform([c.text for c in claims])
    chunk_vecs = vectorizer.transform(best_texts)
    tfidf_cos = np.asarray(claim_vecs.multiply(chunk_vecs).sum(axis=1)).ravel()
    rows = []
    for i, claim in enumerate(claims):
        found = [r for r in hits.indices[i] if r >= 0]
        claim_words = _words(claim.text)
        best_words = _words(best_texts[i])
        top3 = set().union(*(_words(chunks[r].text) for r in found[:3])) if found else set()
        content = _content(claim_words)
        numbers = set(_NUMBER.findall(claim.text))
        chunk_numbers = set(_NUMBER.findall(best_texts[i]))
        claim_neg, chunk_neg = _negations(claim_words), _negations(best_words)
        claim_set, best_set = set(claim_words), set(best_words)
        antonym = any(
            (a in claim_set and b in best_set) or (b in claim_set and a in best_set) for a, b in _ANTONYMS
        )
        present = sims[i][: max(1, len(found))]
        rows.append([
            sims[i, 0], sims[i, 1], sims[i, 2], present.mean(), sims[i, 0] - sims[i, 1],
            sims[i, 0] - present.mean(), len({chunks[r].doc_id for r in found}), tfidf_cos[i],
            len(content & best_set) / len(content) if content else 1.0,
            len(content & top3) / len(content) if content else 1.0,
            len(numbers & chunk_numbers) / len(numbers) if numbers else 1.0, float(bool(numbers)),
            claim_neg, chunk_neg, float((claim_neg > 0) != (chunk_neg > 0)), float(antonym),
            np.log1p(len(best_texts[i])),
        ])  # fmt: skip
    return np.asarray(rows, dtype=np.float64)


def _model():
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    return make_pipeline(StandardScaler(), LogisticRegression(C=1.0, max_iter=2000))


def fitted_model(features: np.ndarray, y: np.ndarray, classes: int | None = None):
    """A model fitted on ``features``: a function from features to probabilities.

    Without ``classes`` it gives the probability that ``y`` is true; with one class to learn from, that
    class's rate is the best guess. With ``classes`` (``y`` holds 0 .. classes - 1) it gives a row per
    claim, and a class the labels never show gets probability 0.
    """
    if classes is None:
        if y.all() or not y.any():
            rate = float(y.mean()) if len(y) else 0.5
            return lambda x: np.full(len(x), rate)
        binary = _model().fit(features, y)
        return lambda x: binary.predict_proba(x)[:, 1]
    seen = np.unique(y)
    if len(seen) < 2:
        only = np.eye(classes)[seen[0]] if len(seen) else np.full(classes, 1 / classes)
        return lambda x: np.tile(only, (len(x), 1))
    model = _model().fit(features, y)

    def probabilities(x: np.ndarray) -> np.ndarray:
        out = np.zeros((len(x), classes))
        out[:, seen] = model.predict_proba(x)
        return out

    return probabilities


def _fit_predict(x_train: np.ndarray, y_train: np.ndarray, x_test: np.ndarray) -> np.ndarray:
    return fitted_model(x_train, y_train)(x_test)


def out_of_fold(
    features: np.ndarray, y: np.ndarray, folds: np.ndarray, fixed_threshold: float | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Each claim's probability of being supported, and the threshold it is judged by.

    The probability comes from a model fitted on the other folds; the threshold is the F1-best one on
    those folds' own out-of-fold probabilities, so neither the model nor the threshold ever saw the
    claim (``fixed_threshold`` skips the threshold fit).
    """
    scores = np.empty(len(y))
    thresholds = np.empty(len(y))
    for fold in np.unique(folds):
        held, train = folds == fold, folds != fold
        if not train.any():
            scores[held], thresholds[held] = float(y.mean()), fixed_threshold or 0.5
            continue
        scores[held] = _fit_predict(features[train], y[train], features[held])
        if fixed_threshold is not None:
            thresholds[held] = fixed_threshold
            continue
        inner = np.empty(train.sum())
        inner_folds = folds[train]
        for other in np.unique(inner_folds):
            part = inner_folds == other
            fit_on = ~part
            inner[part] = (
                _fit_predict(features[train][fit_on], y[train][fit_on], features[train][part])
                if fit_on.any()
                else float(y[train].mean())
            )
        thresholds[held] = best_f1_threshold(y[train], inner)[0]
    return scores, thresholds


def out_of_fold_verdicts(features: np.ndarray, verdicts: np.ndarray, folds: np.ndarray) -> np.ndarray:
    """Each claim's three-way probabilities (n, 3) from a multinomial model fitted on the other folds.

    ``verdicts`` are gold column indices (0 supported, 1 contradicted, 2 not mentioned). A verdict a
    fold's training claims never show gets probability 0 there; a fold with none to learn from gets
    the overall rates.
    """
    out = np.zeros((len(verdicts), 3))
    rates = np.bincount(verdicts, minlength=3) / max(1, len(verdicts))
    for fold in np.unique(folds):
        held, train = folds == fold, folds != fold
        if not train.any():
            out[held] = rates
            continue
        out[held] = fitted_model(features[train], verdicts[train], 3)(features[held])
    return out


COMBINED_FEATURES = ("verifier_support", "verifier_contradiction", "sim_1", "sim_mean")


def combined_features(probabilities: np.ndarray, hits: Hits) -> np.ndarray:
    """The verifier's aggregated probabilities beside the cosine of the best and of the top k chunks.

    What the verifier reads and what similarity finds disagree most on text the verifier never saw
    (SciFact); a model over both is fitted on the user's own labels, out of fold.
    """
    sims = np.where(np.isfinite(hits.scores), hits.scores, 0.0).astype(np.float64)
    return np.column_stack([probabilities[:, 0], probabilities[:, 1], sims[:, 0], sims.mean(axis=1)])


def document_folds(claims: Sequence[Claim], folds: int = 5, seed: int = 0) -> np.ndarray:
    """Folds that hold whole documents out (claims about one document share a fold)."""
    from vera_lab.data.clusters import document_clusters
    from vera_lab.grounding.base import cluster_folds

    return cluster_folds(document_clusters(claims), folds, seed)
