"""Honest selection: out-of-fold thresholds, trivial baselines, Holm, the cheapest indistinguishable
configuration, small-sample warnings, a held-out split, and the learned scorer."""

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from vera_lab.cli import main
from vera_lab.data import load_dataset
from vera_lab.grounding import GroundingParameters, fold_ids
from vera_lab.grounding.learned import out_of_fold
from vera_lab.metrics import best_f1_threshold, grounding_scores
from vera_lab.metrics.bootstrap import holm, holm_adjusted
from vera_lab.sweep import Configuration, ResultsStore, parse_config, recommend, run_sweep
from vera_lab.sweep.data import holdout_split
from vera_lab.types import Claim

HERE = Path(__file__).parent
TINY = HERE / "data" / "tiny"


def claims_with(labels):
    return [Claim(f"c{i}", "x", label) for i, label in enumerate(labels)]


def test_an_out_of_fold_threshold_never_sees_its_own_claim():
    rng = np.random.default_rng(0)
    labels = ["supported"] * 12 + ["unsupported"] * 10 + ["contradicted"] * 8
    claims = claims_with(labels)
    y = np.array([lab == "supported" for lab in labels])
    scores = np.where(y, 0.6, 0.4) + rng.normal(0, 0.15, len(y))
    judged_by = GroundingParameters(threshold="calibrate").out_of_fold_thresholds(claims, scores)
    folds = fold_ids(labels)
    assert len(np.unique(folds)) == 5
    for i in range(len(claims)):
        others = folds != folds[i]
        assert not others[i]
        assert judged_by[i] == best_f1_threshold(y[others], scores[others])[0]
    in_sample = best_f1_threshold(y, scores)[0]
    assert (judged_by != in_sample).any()  # the tiny set where the two differ
    fixed = GroundingParameters(threshold=0.5).out_of_fold_thresholds(claims, scores)
    assert (fixed == 0.5).all()


def test_the_learned_scorer_never_fits_on_the_claim_it_scores():
    rng = np.random.default_rng(1)
    features = rng.normal(size=(40, 4))
    y = features[:, 0] + rng.normal(0, 0.5, 40) > 0
    folds = fold_ids(np.where(y, "supported", "unsupported"))
    scores, thresholds = out_of_fold(features, y, folds)
    for i in (0, 7, 23):  # flipping a claim's own label changes neither its score nor its threshold
        flipped = y.copy()
        flipped[i] = not flipped[i]
        s2, t2 = out_of_fold(features, flipped, folds)
        assert s2[i] == scores[i] and t2[i] == thresholds[i]
        assert not np.allclose(s2, scores)  # ... while the other folds' models did learn from it


def test_the_trivial_baseline_equals_a_hand_computation():
    y = np.array([True, True, True, False, False, False, False, False])
    trivial = grounding_scores(y, np.ones_like(y))
    assert trivial["precision"] == 3 / 8 and trivial["recall"] == 1.0
    assert trivial["f1"] == pytest.approx(2 * 3 / (2 * 3 + 5))


def test_holm():
    p = [0.01, 0.04, 0.03, 0.5]
    assert holm(p).tolist() == [True, False, False, False]  # 0.03 > 0.05 / 3 stops the steps
    assert holm_adjusted(p) == pytest.approx([0.04, 0.09, 0.09, 0.5])
    assert holm([0.001, 0.01, 0.02]).tolist() == [True, True, True]


def synthetic_store(
    tmp_path, hits: dict[str, list[float]], vectors: dict[str, int], tokens: dict[str, int] | None = None
) -> ResultsStore:
    """A results store with known per-claim hits and costs (one config per chunk size)."""
    store = ResultsStore(tmp_path / "synthetic")
    points = {
        name: Configuration.create({"strategy": "fixed", "size": int(name), "overlap": 0}) for name in hits
    }
    store.write_manifest({"points": {p.config_id: p.to_dict() for p in points.values()},
                          "data": {"path": "x", "fingerprint": "f"}})  # fmt: skip
    for name, values in hits.items():
        point = points[name]
        claims = pd.DataFrame({"claim_id": [f"c{i}" for i in range(len(values))], "hit": values,
                               "label": "supported", "grounded": True, "score": 1.0})  # fmt: skip
        row = {"config_id": point.config_id, "preset": "", "status": "ok", "hit": float(np.mean(values)),
               "cost_n_chunks": vectors[name], "cost_forward_tokens": (tokens or vectors)[name],
               "cost_chunk_chars": 5000, "threshold": 0.5,
               **{f"param_{k}": v for k, v in point.identity().items() if k != "chunker"}}  # fmt: skip
        store.write_config(row, claims)
    return store


def best_and_close(n: int = 300, seed: int = 3):
    """Per-claim hits of a best configuration and of one 2 points behind it, indistinguishable.

    The close one loses 10 of the best's claims and gains 4; the generator is returned for more draws.
    """
    rng = np.random.default_rng(seed)
    best = (rng.random(n) < 0.9).astype(float)
    close = best.copy()
    close[rng.choice(np.flatnonzero(best), 10, replace=False)] = 0
    close[rng.choice(np.flatnonzero(best == 0), 4, replace=False)] = 1
    return rng, best, close


def test_the_recommendation_is_the_cheapest_config_not_significantly_worse_than_the_best(tmp_path):
    rng, best, close = best_and_close()
    far = (rng.random(len(best)) < 0.5).astype(float)  # 40 points behind: significantly worse
    store = synthetic_store(
        tmp_path, {"100": best, "200": close, "300": far}, {"100": 9000, "200": 3000, "300": 1000}
    )
    rec = recommend(store, "hit")
    ids = {name: Configuration.create({"strategy": "fixed", "size": int(name), "overlap": 0}).config_id
           for name in ("100", "200", "300")}  # fmt: skip
    assert rec["best_by_metric"]["config_id"] == ids["100"]
    assert set(rec["indistinguishable"]) == {ids["100"], ids["200"]}
    assert rec["config_id"] == ids["200"]  # cheaper than the best, and not significantly worse
    assert rec["cost"] == {"vectors": 3000, "forward_tokens": 3000, "chunk_chars": 5000}
    assert (
        rec["comparisons_with_best"][ids["300"]]["worse"]
        and not rec["comparisons_with_best"][ids["200"]]["worse"]
    )
    assert (
        rec["comparisons_with_best"][ids["300"]]["p_holm"]
        >= rec["comparisons_with_best"][ids["300"]]["p_value"]
    )
    assert "fewest vectors" in rec["rule"] and "Holm" in rec["rule"]
    assert rec["inconclusive"] == []
    assert rec["resampling"]["resampled"] == "claims"  # rows stored without clusters: said so


def test_the_user_chooses_which_cost_decides_among_the_indistinguishable(tmp_path):
    _, best, close = best_and_close()
    hits = {"100": best, "200": close, "300": close}
    vectors = {"100": 9000, "200": 3000, "300": 3000}
    tokens = {"100": 50_000, "200": 90_000, "300": 80_000}  # 300: as few vectors as 200, fewer tokens
    ids = {name: Configuration.create({"strategy": "fixed", "size": int(name), "overlap": 0}).config_id
           for name in hits}  # fmt: skip
    for prefer, expected in (("fewest_vectors", "300"), ("fewest_tokens", "100"), ("best", "100")):
        store = synthetic_store(tmp_path / prefer, hits, vectors, tokens)
        rec = recommend(store, "hit", prefer)
        assert set(rec["indistinguishable"]) == set(ids.values())
        assert (rec["config_id"], rec["prefer"]) == (ids[expected], prefer)
    with pytest.raises(ValueError, match="prefer 'cheap'"):
        recommend(store, "hit", "cheap")


def test_the_default_preference_costs_each_pipeline_by_the_index_it_stores(tmp_path):
    """Dense stores vectors, BM25 postings, hybrid both; BM25 embeds nothing to retrieve."""
    from vera_lab.sweep.recommend import by_preference
    from vera_lab.sweep.runner import point_row

    _, best, close = best_and_close()
    n = len(best)
    store = ResultsStore(tmp_path / "pipelines")
    points, rows = {}, {}
    for retriever, hits in (("hybrid:0.5", best), ("dense", close), ("bm25", close)):
        point = Configuration.create(
            {"strategy": "fixed", "size": 300, "overlap": 0}, retrieval={"retriever": retriever}
        )
        points[retriever] = point
        rows[retriever] = {**point_row(point), "status": "ok", "hit": float(np.mean(hits)),
                           "cost_n_chunks": 3000, "cost_forward_tokens": 90_000, "cost_chunk_chars": 5000,
                           "cost_index_mb": 4.6, "cost_bm25_index_mb": 1.2 if retriever != "dense" else np.nan,
                           "threshold": 0.5}  # fmt: skip
    store.write_manifest({"points": {p.config_id: p.to_dict() for p in points.values()},
                          "data": {"path": "x", "fingerprint": "f"}})  # fmt: skip
    for retriever, hits in (("hybrid:0.5", best), ("dense", close), ("bm25", close)):
        claims = pd.DataFrame({"claim_id": [f"c{i}" for i in range(n)], "hit": hits, "label": "supported",
                               "grounded": True, "score": 1.0})  # fmt: skip
        store.write_config(rows[retriever], claims)
    rec = recommend(store, "hit")
    assert rec["prefer"] == "smallest_index" and len(rec["indistinguishable"]) == 3
    assert rec["config_id"] == points["bm25"].config_id  # 1.2 MB of postings, no vectors, no embedding
    assert rec["cost"]["stored_mb"] == 1.2 and rec["best_by_metric"]["cost"]["stored_mb"] == 5.8
    assert "postings for BM25" in rec["rule"]
    order = by_preference(store.rows(), "hit", "smallest_index")["config_id"].tolist()
    assert order == [points[r].config_id for r in ("bm25", "dense", "hybrid:0.5")]
    # counted by vectors, as before, BM25 ties with dense and its postings come after
    assert (
        by_preference(store.rows(), "hit", "fewest_vectors")["config_id"].iloc[0] == points["dense"].config_id
    )
    older = store.rows().drop(columns=["cost_index_mb"])  # a run from before index sizes: by vectors
    assert by_preference(older, "hit", "smallest_index")["config_id"].iloc[0] == points["dense"].config_id


def test_a_small_sample_is_called_inconclusive_everywhere(tmp_path, capsys):
    path = tmp_path / "s.yaml"
    path.write_text(json.dumps({"name": "small", "dataset": str(TINY), "embedders": ["hashing"],
                                "presets": [], "grid": [{"strategy": "fixed", "size": [40, 80], "overlap": 0}]}))  # fmt: skip
    assert (
        main(["sweep", str(path), "--results-dir", str(tmp_path / "r"), "--cache-dir", str(tmp_path / "c")])
        == 0
    )
    out = capsys.readouterr().out
    assert "INCONCLUSIVE: only 5 claims with evidence (fewer than 100)" in out  # c6 has none
    rec = json.loads((tmp_path / "r" / "small" / "recommendation.json").read_text())
    assert rec["inconclusive"] and "INCONCLUSIVE" in (tmp_path / "r" / "small" / "report.md").read_text()


def test_the_holdout_split_is_stratified_grouped_seeded_and_disjoint():
    claims = load_dataset(HERE.parents[0] / "datasets" / "contractnli-dev").claims
    held = holdout_split(list(claims), 0.3, seed=0)
    assert held == holdout_split(list(claims), 0.3, seed=0) and held != holdout_split(
        list(claims), 0.3, seed=1
    )
    docs_held = {c.cited_doc_ids[0] for c in claims if c.claim_id in held}
    docs_kept = {c.cited_doc_ids[0] for c in claims if c.claim_id not in held}
    assert not docs_held & docs_kept  # grouped: a contract's claims stay on one side
    for label in ("supported", "contradicted", "unsupported"):
        total = sum(c.label == label for c in claims)
        share = sum(c.label == label and c.claim_id in held for c in claims) / total
        assert 0.2 < share < 0.4, (label, share)


def test_a_sweep_with_a_holdout_selects_on_one_part_and_reports_the_other(tmp_path):
    config = parse_config({"name": "h", "dataset": str(TINY), "embedders": ["hashing"], "holdout": 0.34,
                           "presets": ["docuchat-001"],
                           "grid": [{"strategy": "fixed", "size": [40, 80], "overlap": 0}]})  # fmt: skip
    run = run_sweep(config, tmp_path, cache_dir=tmp_path / "c", progress=False)
    selection = ResultsStore(run.directory).per_claim(run.table.config_id[0])
    held_store = ResultsStore(run.directory / "holdout")
    held = held_store.per_claim(held_store.rows().config_id[0])
    assert set(selection.claim_id).isdisjoint(held.claim_id) and len(selection) + len(held) == 6
    rec = json.loads((run.directory / "recommendation.json").read_text())
    assert rec["held_out"]["data"].endswith("(held-out claims)") and "mrr" in rec["held_out"]
    confirmation = json.loads((run.directory / "confirmation.json").read_text())["confirmations"][0]
    assert confirmation["rows"][0]["config_id"] == rec["config_id"]


def test_a_sweep_runs_both_scorers_and_keeps_them_apart(tmp_path):
    config = parse_config({"name": "s", "dataset": str(TINY), "embedders": ["hashing"], "presets": [],
                           "scorer": ["cosine", "learned"],
                           "grid": [{"strategy": "fixed", "size": 40, "overlap": 0}]})  # fmt: skip
    table = run_sweep(config, tmp_path, cache_dir=tmp_path / "c", progress=False).table
    assert sorted(table.param_scorer) == ["cosine", "learned"] and (table.status == "ok").all()
    learned = table[table.param_scorer == "learned"].iloc[0]
    assert 0 <= learned.threshold <= 1  # a probability threshold
    rec = json.loads((tmp_path / "s" / "recommendation.json").read_text())
    assert rec["n_compared"] == 1  # the two scorers are not rivals of one another


def test_a_sample_of_documents_keeps_only_the_claims_about_them():
    from vera_lab.data import sample_dataset

    data = load_dataset(HERE.parents[0] / "datasets" / "contractnli-dev")
    sample = sample_dataset(data, documents=10, seed=3)
    kept = {d.doc_id for d in sample.corpus}
    assert len(kept) == 10 and sample.scope == "cited"
    assert len(sample.claims) == 170 and all(c.cited_doc_ids[0] in kept for c in sample.claims)
    assert sample_dataset(data, documents=10, seed=3).corpus == sample.corpus


def test_confirm_takes_a_path_or_a_sample_of_documents(tmp_path):
    raw = {"name": "c", "dataset": str(TINY), "embedders": ["hashing"], "presets": [],
           "grid": [{"strategy": "fixed", "size": 40, "overlap": 0}]}  # fmt: skip
    assert parse_config({**raw, "confirm": str(TINY)}).confirm_documents is None
    assert parse_config({**raw, "confirm": {"dataset": str(TINY), "documents": 2}}).confirm_documents == 2
    with pytest.raises(ValueError, match="confirm.documents"):
        parse_config({**raw, "confirm": {"dataset": str(TINY), "documents": 0}})


def test_cluster_bootstrap_widens_intervals_by_about_the_root_of_the_cluster_size():
    from vera_lab.metrics.bootstrap import bootstrap_ci

    rng = np.random.default_rng(3)
    per_cluster = rng.random(200)  # 200 clusters of 16 claims that agree perfectly inside a cluster
    rows = pd.DataFrame({"claim_id": [f"c{i}" for i in range(3200)], "hit": np.repeat(per_cluster, 16)})
    clusters = np.repeat(np.arange(200), 16)
    claim_lo, claim_hi = bootstrap_ci(rows, "hit")
    cluster_lo, cluster_hi = bootstrap_ci(rows, "hit", clusters=clusters)
    assert 3.2 < (cluster_hi - cluster_lo) / (claim_hi - claim_lo) < 4.8  # sqrt(16) = 4
    assert cluster_lo < rows["hit"].mean() < cluster_hi


def test_learnt_verdicts_never_see_their_own_fold_and_undo_a_verifiers_misplaced_boundaries():
    from vera_lab.grounding.learned import out_of_fold_verdicts

    rng = np.random.default_rng(0)
    gold = np.repeat([0, 1, 2], 40)
    # a verifier whose class boundaries are off: supported claims read as "not mentioned" most
    features = np.column_stack(
        [np.eye(3)[(gold + 2) % 3] + rng.normal(0, 0.1, (120, 3)), rng.normal(size=120)]
    )
    folds = np.arange(120) % 4
    probs = out_of_fold_verdicts(features, gold, folds)
    assert np.allclose(probs.sum(axis=1), 1) and (probs.argmax(axis=1) == gold).mean() > 0.95
    assert (features[:, :3].argmax(axis=1) == gold).mean() == 0  # read as the verifier says: all wrong
    # a fold is predicted by a model that never saw it: flip fold 0's labels, its predictions stay
    flipped = gold.copy()
    flipped[folds == 0] = (flipped[folds == 0] + 1) % 3
    again = out_of_fold_verdicts(features, flipped, folds)
    assert np.allclose(again[folds == 0], probs[folds == 0])
    # a verdict the training folds never show gets probability 0; one seen class alone is certain
    two = out_of_fold_verdicts(features, np.where(gold == 1, 0, gold), folds)
    assert np.allclose(two[:, 1], 0)
    one = out_of_fold_verdicts(features, np.zeros(120, int), folds)
    assert np.allclose(one, np.eye(3)[0])
