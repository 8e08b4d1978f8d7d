"""The verifier: honest folds, training pairs, determinism, the int8 export, three-way metrics."""

from __future__ import annotations

import dataclasses
import hashlib
from pathlib import Path

import numpy as np
import pytest
from sklearn.metrics import confusion_matrix, f1_score, precision_recall_fscore_support

from vera_lab import load_dataset
from vera_lab.data.clusters import claim_documents, document_clusters
from vera_lab.grounding import VERDICTS, cluster_folds
from vera_lab.grounding.cross_encoder import TrainRecipe
from vera_lab.grounding.pairs import NOT_MENTIONED, PairRecipe, training_pairs
from vera_lab.grounding.verifier import (
    VerifierError,
    VerifierRecipe,
    aggregate,
    fit_verifier,
    training_sets,
)
from vera_lab.metrics import confusion_table, three_way_scores
from vera_lab.types import Claim, Corpus, Document, Span

HERE = Path(__file__).parent
ROOT = HERE.parent
# A verifier small enough to train in seconds: one layer, short pairs, two folds.
TINY_RECIPE = VerifierRecipe(folds=2, pairs=PairRecipe(hard_negatives=1),
                             train=TrainRecipe(layers=2, frozen_layers=1, max_length=48, batch_size=8),
                             adapt=True, start="minilm")  # fmt: skip

FACTS = [
    ("solar", "Solar panels convert sunlight into electricity. Dust lowers the output of a panel. "
              "Panels last about twenty five years."),
    ("bees", "Honey bees pollinate many crops. A colony can hold fifty thousand bees. "
             "Bees communicate through a waggle dance."),
    ("rust", "Rust guarantees memory safety without a garbage collector. The borrow checker enforces "
             "ownership at compile time. Cargo builds the code."),
    ("tea", "Green tea is best brewed below boiling. Water at eighty degrees avoids bitterness. "
            "Black tea takes hotter water."),
]  # fmt: skip


def _corpus() -> Corpus:
    return Corpus(tuple(Document(d, t) for d, t in FACTS))


def _claims() -> list[Claim]:
    def span(doc: str, sentence: str) -> Span:
        text = dict(FACTS)[doc]
        start = text.index(sentence)
        return Span(doc, start, start + len(sentence))

    return [
        Claim("s1", "Solar panels turn sunlight into electricity.", "supported",
              (span("solar", "Solar panels convert sunlight into electricity."),), ("solar",)),
        Claim("s2", "Dust raises the output of a panel.", "contradicted",
              (span("solar", "Dust lowers the output of a panel."),), ("solar",)),
        Claim("b1", "A colony can hold fifty thousand bees.", "supported",
              (span("bees", "A colony can hold fifty thousand bees."),), ("bees",)),
        Claim("b2", "Bees never communicate.", "contradicted",
              (span("bees", "Bees communicate through a waggle dance."),), ("bees",)),
        Claim("r1", "Rust needs a garbage collector.", "contradicted",
              (span("rust", "Rust guarantees memory safety without a garbage collector."),), ("rust",)),
        Claim("r2", "Rust was designed by a committee.", "unsupported", (), ("rust",)),
        Claim("t1", "Eighty degree water avoids bitter tea.", "supported",
              (span("tea", "Water at eighty degrees avoids bitterness."),), ("tea",)),
        Claim("t2", "Tea grows only in India.", "unsupported", (), ("tea",)),
    ]  # fmt: skip


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_clusters_join_claims_through_shared_documents_and_folds_keep_clusters_whole():
    claims = [
        Claim("a", "x", "supported", (Span("d1", 0, 1),)),
        Claim("b", "x", "unsupported", (), ("d1", "d2")),
        Claim("c", "x", "unsupported", (), ("d2",)),
        Claim("d", "x", "unsupported", (), ("d3",)),
        Claim("e", "x", "unsupported", ()),  # no document: a cluster of its own
    ]
    clusters = document_clusters(claims)
    assert clusters[0] == clusters[1] == clusters[2]
    assert len({clusters[0], clusters[3], clusters[4]}) == 3
    folds = cluster_folds(clusters, 2, seed=0)
    assert folds[0] == folds[1] == folds[2]
    assert np.array_equal(folds, cluster_folds(clusters, 2, seed=0))  # seeded


def test_no_fold_model_trains_on_a_document_of_the_claims_it_scores():
    dev = load_dataset(ROOT / "datasets" / "contractnli-dev")
    claims = list(dev.claims)[:200]
    recipe = VerifierRecipe(folds=4)
    folds, training = training_sets(claims, recipe)
    for k in range(4):
        held_docs = {d for c, f in zip(claims, folds, strict=True) if f == k for d in claim_documents(c)}
        seen = {d for c in training[f"fold{k}"] for d in claim_documents(c)}
        pair_docs = {p.doc_id for p in training_pairs(training[f"fold{k}"], dev.corpus, recipe.pairs)}
        assert held_docs and not held_docs & seen and not held_docs & pair_docs
    assert len(training["all"]) == len(claims)


def test_negatives_never_overlap_the_claims_evidence_and_positives_contain_it():
    dev = load_dataset(ROOT / "datasets" / "contractnli-dev")
    claims = list(dev.claims)[:150]
    by_id = {c.claim_id: c for c in claims}
    pairs = training_pairs(claims, dev.corpus, PairRecipe(hard_negatives=3, random_negatives=2))
    kinds = {p.kind for p in pairs}
    assert {"evidence", "context", "hard", "unsupported", "random"} <= kinds
    for p in pairs:
        evidence = by_id[p.claim_id].evidence
        assert dev.corpus[p.doc_id].text[p.start : p.end] == p.passage
        if p.label == NOT_MENTIONED:
            assert not any(s.doc_id == p.doc_id and p.start < s.end and s.start < p.end for s in evidence)
        else:
            assert any(s.doc_id == p.doc_id and p.start <= s.start and s.end <= p.end for s in evidence)
    assert pairs == training_pairs(claims, dev.corpus, PairRecipe(hard_negatives=3, random_negatives=2))


def test_three_way_metrics_and_confusion_match_a_hand_count_and_scikit_learn():
    gold = ["supported", "supported", "contradicted", "not_mentioned", "not_mentioned", "supported"]
    pred = ["supported", "contradicted", "contradicted", "supported", "not_mentioned", "not_mentioned"]
    table = confusion_table(gold, pred, VERDICTS)
    assert table == {
        "supported": {"supported": 1, "contradicted": 1, "not_mentioned": 1},
        "contradicted": {"supported": 0, "contradicted": 1, "not_mentioned": 0},
        "not_mentioned": {"supported": 1, "contradicted": 0, "not_mentioned": 1},
    }
    assert [[table[g][p] for p in VERDICTS] for g in VERDICTS] == confusion_matrix(
        gold, pred, labels=VERDICTS
    ).tolist()
    scores = three_way_scores(gold, pred, VERDICTS)
    precision, recall, f1, _ = precision_recall_fscore_support(
        gold, pred, labels=list(VERDICTS), zero_division=0
    )
    for j, name in enumerate(VERDICTS):
        assert scores[f"{name}_precision"] == pytest.approx(precision[j])
        assert scores[f"{name}_recall"] == pytest.approx(recall[j])
        assert scores[f"{name}_f1"] == pytest.approx(f1[j])
    assert scores["macro_f1"] == pytest.approx(f1_score(gold, pred, average="macro", zero_division=0))


def test_aggregation_averages_the_chunks_and_the_deciding_chunk_speaks_clearest():
    from vera_lab.grounding.verifier import claim_probabilities
    from vera_lab.retrieval import Hits

    probs = np.array([[0.1, 0.1, 0.8], [0.6, 0.1, 0.3], [0.2, 0.5, 0.3]])
    assert np.allclose(aggregate(probs), [0.3, 0.7 / 3, 1.4 / 3])
    assert np.allclose(aggregate(np.zeros((0, 3))), [0, 0, 1])

    class Fixed:  # a verifier whose chunk probabilities are given
        def pair_probabilities(self, claims, passages, progress=True):
            return [probs[: len(p)] for p in passages], np.zeros(len(claims), dtype=np.int64)

    chunks = [type("C", (), {"text": t})() for t in "abc"]
    hits = Hits(np.array([[0, 1, 2], [0, -1, -1]]), np.zeros((2, 3), dtype=np.float32))
    out, deciding, _, verdict = claim_probabilities(Fixed(), _claims()[:2], hits, chunks)
    assert np.allclose(out[0], aggregate(probs)) and np.allclose(out[1], probs[0])
    assert deciding.tolist() == [2, 1]
    # the verdict is the deciding chunk's reading: the mean of three would say "not mentioned"
    assert (
        np.allclose(verdict, [probs[1], probs[0]]) and np.argmax(out[0]) == 2 and np.argmax(verdict[0]) == 0
    )


@pytest.fixture(scope="module")
def fitted(tmp_path_factory):
    cache = tmp_path_factory.mktemp("verifier-cache")
    return fit_verifier(_claims(), _corpus(), TINY_RECIPE, cache, progress=False), cache


@pytest.mark.model
def test_training_is_deterministic_and_a_flipped_label_changes_only_the_models_that_saw_it(fitted, tmp_path):
    first, _ = fitted
    again = fit_verifier(_claims(), _corpus(), TINY_RECIPE, tmp_path / "again", progress=False)
    names = ["fold0", "fold1", "all"]
    assert [_sha(again.directory / f"{n}.safetensors") for n in names] == [
        _sha(first.directory / f"{n}.safetensors") for n in names
    ]
    claims = _claims()
    folds, _ = training_sets(claims, TINY_RECIPE)
    flipped_fold = int(folds[0])
    claims[0] = dataclasses.replace(claims[0], label="contradicted")
    changed = fit_verifier(claims, _corpus(), TINY_RECIPE, tmp_path / "flipped", progress=False)
    same = f"fold{flipped_fold}"  # the model that held the flipped claim's documents out
    other = f"fold{1 - flipped_fold}"
    assert _sha(changed.directory / f"{same}.safetensors") == _sha(first.directory / f"{same}.safetensors")
    assert _sha(changed.directory / f"{other}.safetensors") != _sha(first.directory / f"{other}.safetensors")
    assert _sha(changed.directory / "all.safetensors") != _sha(first.directory / "all.safetensors")


@pytest.mark.model
def test_each_claim_is_scored_by_the_model_that_held_its_documents_out(fitted):
    verifier, _ = fitted
    claims = _claims()
    folds, _ = training_sets(claims, TINY_RECIPE)
    assert [verifier.model_for(c) for c in claims] == [f"fold{f}" for f in folds]
    stranger = Claim("x", "Unknown.", "unsupported", (), ("elsewhere",))
    assert verifier.model_for(stranger) == "all"
    by_doc = {c.cited_doc_ids[0]: f for c, f in zip(claims, folds, strict=True)}
    split = [d for d in by_doc if by_doc[d] != by_doc["solar"]][0]
    bridging = Claim("y", "Both.", "unsupported", (), ("solar", split))
    with pytest.raises(VerifierError, match="held out by different folds"):
        verifier.model_for(bridging)


@pytest.mark.model
def test_the_int8_verifier_agrees_with_pytorch(tmp_path):
    from vera_lab.grounding.cross_encoder import OnnxCrossEncoder, export_int8, torch_probabilities, train

    pairs = training_pairs(_claims(), _corpus(), TINY_RECIPE.pairs)
    sharp = dataclasses.replace(TINY_RECIPE.train, epochs=8, learning_rate=1e-3)  # probabilities that vary
    model = train(pairs, sharp, progress=False)
    export_int8(model, tmp_path / "v.onnx")
    claims = [p.claim for p in pairs]
    passages = [p.passage for p in pairs]
    reference = torch_probabilities(model, claims, passages, TINY_RECIPE.train.max_length)
    int8, truncated = OnnxCrossEncoder(tmp_path / "v.onnx", TINY_RECIPE.train.max_length).probabilities(
        claims, passages
    )
    # Documented tolerance (cross_encoder.export_int8) for this small model, whose probabilities spread
    # by 0.1-0.3: 0.015 on average, 0.05 at most, the same verdicts.
    assert reference.std(axis=0).min() > 0.05
    assert np.abs(int8 - reference).max() < 0.05 and np.abs(int8 - reference).mean() < 0.015
    assert (int8.argmax(axis=1) == reference.argmax(axis=1)).all()
    assert np.allclose(int8.sum(axis=1), 1, atol=1e-5)
    assert (truncated >= 0).all()


@pytest.mark.model
def test_a_damaged_model_is_trained_again_and_the_estimate_counts_only_it(fitted, capsys):
    verifier, cache = fitted
    path = verifier.directory / "fold0.safetensors"
    before = _sha(path)
    path.write_bytes(path.read_bytes()[:100])
    again = fit_verifier(_claims(), _corpus(), TINY_RECIPE, cache, progress=True)
    assert _sha(again.directory / "fold0.safetensors") == before
    pairs = sum(again.manifest["pairs"]["fold0"].values())
    assert f"training the verifier (1 of 3 models, {pairs:,} pairs," in capsys.readouterr().err


def test_too_few_documents_to_cross_fit_is_refused():
    claims = _claims()[:2]  # both about one document
    with pytest.raises(VerifierError, match="at least 2 separate documents"):
        training_sets(claims, TINY_RECIPE)


def test_negative_passages_are_sentences_in_the_documents_language():
    from vera_lab.types import Claim, Corpus, Document

    text = "Er kam am 3. Oktober. Gut so."  # too short to detect: English would cut at "3."
    corpus = Corpus((Document("d", text, metadata={"language": "de"}),))
    claim = Claim("c", "Er kam im Mai.", "unsupported", cited_doc_ids=("d",))
    pairs = training_pairs([claim], corpus, PairRecipe(hard_negatives=2, random_negatives=0, context_chars=0))
    assert sorted(p.passage for p in pairs) == ["Er kam am 3. Oktober.", "Gut so."]


def test_pairs_are_cut_at_the_maximum_length_and_the_cut_is_counted():
    from vera_lab.grounding.cross_encoder import encode

    encoded = encode(["short claim", "word " * 40], ["a passage " * 30, "tail"], max_length=16)
    assert [len(ids) for ids in encoded.ids] == [16, 16]
    assert encoded.truncated.tolist() == [60 - (16 - 5), 0]  # [CLS] claim(2) [SEP] 11 pieces [SEP]
    assert encoded.ids[0][:4] == encode(["short claim"], ["a"], 16).ids[0][:4]


def test_a_verifier_threshold_is_a_probability():
    from vera_lab.grounding import GroundingParameters

    GroundingParameters(scorer="verifier", threshold=0.5)
    with pytest.raises(ValueError, match="probability in"):
        GroundingParameters(scorer="verifier", threshold=-0.2)


@pytest.mark.model
def test_a_sweep_verifies_its_choice_and_confirms_it_on_held_out_claims(tmp_path, monkeypatch):
    from vera_lab.sweep import parse_config, run_sweep

    monkeypatch.setattr("vera_lab.grounding.verifier.MIN_PER_SIDE_TO_ADAPT", 1)  # tiny has 6 claims

    tiny = HERE / "data" / "tiny"
    options = {
        "folds": 2,
        "layers": 2,
        "frozen_layers": 1,
        "max_length": 48,
        "batch_size": 8,
        "hard_negatives": 1,
        "adapt": True,
        "start": "minilm",
    }
    config = parse_config({"name": "v", "dataset": str(tiny), "embedders": ["hashing"],
                           "presets": ["docuchat-001"], "grid": [{"strategy": "fixed", "size": [40, 80], "overlap": 0}],
                           "metric": "hit", "verify": "choice", "verifier": options, "confirm": str(tiny)})  # fmt: skip
    run = run_sweep(config, tmp_path, cache_dir=tmp_path / "cache", progress=False)
    rec = (run.directory / "recommendation.json").read_text()
    import json

    rec = json.loads(rec)
    choice = rec["grounding_choice"]
    twins = json.loads((run.directory / "manifest.json").read_text())["verified"]
    assert set(twins) == {rec["config_id"], *[p["config_id"] for p in rec["vs_presets"].values()]}
    table = run.directory / "results.csv"
    import pandas as pd

    rows = pd.read_csv(table).set_index("config_id")
    for base, twin in twins.items():
        assert rows.loc[twin, "param_scorer"] == "verifier"
        assert rows.loc[twin, "hit"] == rows.loc[base, "hit"]  # same chunks retrieved: only the judge differs
        assert set(json.loads(rows.loc[twin, "params"])["verifier"]) >= set(options)
    assert choice["best"] in twins and set(choice["indistinguishable"]) <= set(twins)
    assert choice["one_choice_for_both"] == bool(
        set(choice["indistinguishable"]) & set(rec["indistinguishable"])
    )
    confirmed = json.loads((run.directory / "confirmation.json").read_text())["confirmations"][0]["rows"]
    assert {r["scorer"] for r in confirmed} == {"cosine", "verifier"}
    assert [r["role"] for r in confirmed].count("recommended") == 2
    from vera_lab.report import export

    page = export(run.directory).read_text()
    assert (
        "Grounding, judged by the verifier" in page and "Out-of-fold grounding F1 against mean chunk" in page
    )
    per_claim = pd.read_csv(run.directory / "claims" / f"{twins[rec['config_id']]}.csv")
    assert {"p_supported", "p_contradicted", "p_not_mentioned", "verdict", "deciding_rank"} <= set(per_claim)
    assert np.allclose(per_claim[["p_supported", "p_contradicted", "p_not_mentioned"]].sum(axis=1), 1)


def test_verifier_options_in_a_sweep_file_are_checked():
    from vera_lab.sweep import parse_config
    from vera_lab.sweep.config import SweepConfigError

    tiny = HERE / "data" / "tiny"
    with pytest.raises(SweepConfigError, match="verifier option 'depth' is unknown"):
        parse_config({"name": "v", "dataset": str(tiny), "presets": [], "grid": [{"strategy": "fixed"}],
                      "verifier": {"depth": 2}})  # fmt: skip
    with pytest.raises(SweepConfigError, match="verify 'all'"):
        parse_config({"name": "v", "dataset": str(tiny), "presets": [], "grid": [{"strategy": "fixed"}],
                      "verify": "all"})  # fmt: skip


@pytest.mark.model
def test_an_adapted_model_keeps_only_what_differs_from_minilm(fitted):
    from safetensors.numpy import load_file

    verifier, _ = fitted
    tensors = load_file(str(verifier.directory / "fold0.safetensors"))
    layers = {int(n.split(".")[3]) for n in tensors if n.startswith("bert.encoder.layer.")}
    assert layers == {1} and not any(n.startswith("bert.embeddings") for n in tensors)  # frozen_layers=1
    assert not list(verifier.directory.glob("*.onnx"))
    probs, _ = verifier.session("fold0").probabilities(["Bees pollinate crops."], ["Bees pollinate crops."])
    assert probs.shape == (1, 3) and np.isclose(probs.sum(), 1, atol=1e-5)


def test_too_few_labelled_claims_to_adapt_fall_back_to_the_general_verifier_with_a_warning(tmp_path):
    from vera_lab.grounding.verifier import too_few_to_adapt
    from vera_lab.sweep import parse_config, run_sweep

    tiny = HERE / "data" / "tiny"
    assert too_few_to_adapt(list(load_dataset(tiny).claims)).startswith(
        "only 2 labelled claims on the rarer side (4 supported, 2 not)"
    )
    config = parse_config({"name": "few", "dataset": str(tiny), "embedders": ["hashing"], "metric": "hit",
                           "scorer": "verifier", "verifier": {"adapt": True},
                           "grid": [{"strategy": "fixed", "size": 80, "overlap": 0}]})  # fmt: skip
    with pytest.warns(UserWarning, match="the shipped general verifier judges instead"):
        run = run_sweep(config, tmp_path, cache_dir=tmp_path / "cache", progress=False)
    row = run.table.iloc[0]
    assert row.status == "ok" and row.verifier_model.startswith("general-")
    assert "adapting the verifier needs at least 100 a side" in row.verifier_note
    assert not (tmp_path / "cache" / "verifier").exists() or not any(
        p.name.startswith("adapted") for p in (tmp_path / "cache" / "verifier").iterdir()
    )
