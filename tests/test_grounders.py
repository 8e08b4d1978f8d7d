"""Every grounding scorer has one shape: fit on labelled claims, then predict; cross_fit for honest figures."""

import dataclasses

import numpy as np
import pytest

from vera_lab.grounding import (
    VERDICTS,
    Found,
    GroundingParameters,
    NotFittedError,
    grounder_for,
)
from vera_lab.grounding.judge import JudgeVerdict
from vera_lab.grounding.verifier import Reading
from vera_lab.metrics import best_f1_threshold
from vera_lab.retrieval import Hits
from vera_lab.types import Chunk, Claim

LABELS = ("supported", "contradicted", "unsupported")


def labelled(n: int, seed: int) -> tuple[list[Claim], Found]:
    """Claims over 12 documents whose retrieved chunk states them (supported) or not, with similarities."""
    rng = np.random.default_rng(seed)
    claims, chunks, sims = [], [], []
    for i in range(n):
        label = LABELS[i % 3]
        text = f"the term of the agreement is {i} years"
        said = text if label == "supported" else f"nothing here about claim {i}"
        claims.append(Claim(f"c{seed}-{i}", text, label, cited_doc_ids=(f"d{i % 12}",)))
        chunks.append(Chunk.at(f"d{i % 12}", i, 0, len(said), said, None, {}))
        sims.append(rng.uniform(0.55, 0.9) if label == "supported" else rng.uniform(0.3, 0.7))
    hits = Hits(np.arange(n)[:, None], np.array(sims, dtype=np.float32)[:, None])
    return claims, Found(hits, chunks)


class Verifier:
    """Reads by the gold label, with class boundaries placed wrongly (contradictions called support)."""

    def __init__(self, claims):
        self.by_id = {c.claim_id: c.label for c in claims}

    def score(self, claims, hits, chunks):
        rows = {
            "supported": [0.7, 0.2, 0.1],
            "contradicted": [0.55, 0.35, 0.1],
            "unsupported": [0.3, 0.1, 0.6],
        }
        probabilities = np.array([rows[self.by_id[c.claim_id]] for c in claims])
        one, none = np.ones(len(claims), dtype=np.int64), np.zeros(len(claims), dtype=np.int64)
        return Reading(probabilities, one, none, probabilities)


def unlabelled(claims):
    return [dataclasses.replace(c, label="unsupported") for c in claims]


@pytest.mark.parametrize("scorer", ["cosine", "learned", "combined"])
def test_a_fitted_grounder_predicts_new_claims_without_reading_their_labels(scorer):
    train, found = labelled(90, seed=0)
    test, test_found = labelled(45, seed=1)
    verifier = Verifier(train + test)
    params = GroundingParameters(k=1, threshold="calibrate", scorer=scorer)
    grounder = grounder_for(params, verifier).fit(train, found)
    scored = grounder.predict(test, test_found)
    # labels are not read at predict (the verifier stub reads its own copy of them)
    again = grounder.predict(unlabelled(test), test_found)
    assert np.array_equal(scored.scores, again.scores)
    y = np.array([c.label == "supported" for c in test])
    grounded = scored.scores >= scored.judged_by
    assert (scored.judged_by == grounder.threshold_).all()
    assert (grounded == y).mean() >= 0.8  # what was learnt on one set holds on another


def test_the_cosine_grounder_fits_the_f1_best_threshold_and_a_fixed_one_needs_no_fit():
    claims, found = labelled(60, seed=2)
    fitted = grounder_for(GroundingParameters(k=1, threshold="calibrate")).fit(claims, found)
    y = np.array([c.label == "supported" for c in claims])
    assert fitted.threshold_ == best_f1_threshold(y, found.hits.scores[:, 0].astype(np.float64))[0]
    with pytest.raises(NotFittedError, match="fit on labelled claims"):
        grounder_for(GroundingParameters(k=1, threshold="calibrate")).predict(claims, found)
    fixed = grounder_for(GroundingParameters(k=1, threshold=0.6)).predict(claims, found)
    assert (fixed.judged_by == 0.6).all()
    assert np.array_equal(fixed.scores, found.hits.scores[:, 0].astype(np.float64))


def test_cross_fit_never_reads_the_label_of_the_claim_it_scores():
    claims, found = labelled(60, seed=3)
    params = GroundingParameters(k=1, threshold="calibrate", scorer="combined")
    verifier = Verifier(claims)  # reads the original labels: only the grounder sees the flipped one
    before = grounder_for(params, verifier).cross_fit(claims, found)
    for i in (0, 1, 2, 31):
        flipped = list(claims)
        flipped[i] = dataclasses.replace(
            claims[i], label="supported" if claims[i].label != "supported" else "unsupported"
        )
        after = grounder_for(params, verifier).cross_fit(flipped, found)
        assert after.scores[i] == before.scores[i]
        assert after.judged_by[i] == before.judged_by[i]
        assert np.array_equal(after.probabilities[i], before.probabilities[i])
        assert not np.array_equal(after.scores, before.scores)  # the label was read, for the others


def test_the_combined_grounder_learns_the_verdict_the_verifier_misplaces():
    train, found = labelled(90, seed=4)
    test, test_found = labelled(45, seed=5)
    verifier = Verifier(train + test)
    params = GroundingParameters(k=1, threshold="calibrate", scorer="combined")
    verifier_alone = grounder_for(dataclasses.replace(params, scorer="verifier"), verifier)
    alone = verifier_alone.fit(train, found).predict(test, test_found).probabilities
    learnt = grounder_for(params, verifier).fit(train, found).predict(test, test_found).probabilities
    gold = [{"unsupported": "not_mentioned"}.get(c.label, c.label) for c in test]
    said = [VERDICTS[i] for i in np.argmax(alone, axis=1)]
    assert said.count("contradicted") == 0  # the verifier alone never says it
    assert [VERDICTS[i] for i in np.argmax(learnt, axis=1)] == gold
    assert np.allclose(learnt.sum(axis=1), 1)


def test_the_judge_reads_the_found_chunks_and_learns_nothing():
    claims, found = labelled(6, seed=6)

    class Judge:
        read = []

        def judge(self, claim, evidence):
            self.read.append(evidence)
            label = "supported" if evidence[0] == claim.text else "not_enough_info"
            return JudgeVerdict(claim.claim_id, label, "")

    grounder = grounder_for(GroundingParameters(k=1), judge=Judge())
    scored = grounder.fit(claims, found).cross_fit(claims, found)
    assert Judge.read == [[found.chunks[i].text] for i in range(6)]
    assert scored.scores.tolist() == [float(c.label == "supported") for c in claims]
    assert scored.probabilities.sum(axis=1).tolist() == [1.0] * 6


def test_a_verifier_scorer_without_a_verifier_is_refused_and_the_old_name_still_imports():
    with pytest.raises(ValueError, match="verifier="):
        grounder_for(GroundingParameters(scorer="verifier"))
    with pytest.warns(DeprecationWarning, match="GroundingParameters"):
        from vera_lab.grounding import GroundingScorer
    assert GroundingScorer is GroundingParameters
    with pytest.warns(DeprecationWarning, match="Configuration"):
        from vera_lab.sweep import SweepPoint
    from vera_lab.sweep import Configuration

    assert SweepPoint is Configuration


def test_the_stages_called_one_by_one_give_what_evaluate_gives():
    from pathlib import Path

    from vera_lab.chunking import make_chunker
    from vera_lab.data import load_dataset
    from vera_lab.embedding.hashing import HashingEmbedder
    from vera_lab.evaluation import chunk_corpus, diagnose, evaluate, ground, measure, reading_ends, retrieve
    from vera_lab.retrieval import DENSE, SearchIndex

    dataset = load_dataset(Path(__file__).parent / "data" / "tiny")
    chunker, embedder = make_chunker("fixed", size=40, overlap=0), HashingEmbedder(64)
    params = GroundingParameters(k=2, threshold="calibrate", scorer="learned")
    claims = list(dataset.claims)
    chunks = chunk_corpus(chunker, dataset)
    search = SearchIndex.build(chunks, dataset.corpus, DENSE, embedder)
    reader = [c.span for c in chunks]
    deep = retrieve(search, claims, embedder.embed([c.text for c in claims]), reader, params, DENSE)
    hits = Hits(deep.indices[:, :2], deep.scores[:, :2])
    grounding = ground(claims, Found(hits, chunks), params, None, dataset.corpus)
    metrics, per_claim, confusion = measure(claims, chunks, reader, deep.indices, grounding, params)
    diagnosis, _ = diagnose(claims, chunks, per_claim, reading_ends(chunks, embedder), params.scope)
    whole = evaluate(dataset, chunker, embedder, params)
    assert {**metrics, **diagnosis} == pytest.approx(whole.metrics, nan_ok=True)
    assert confusion == whole.confusion and grounding.threshold == whole.threshold
    assert [v.evidence for v in grounding.verdicts] == [v.evidence for v in whole.verdicts]
