"""The shipped general verifier: its artefact's checksum and rebuild, windows, `vera-lab verify`, adaptation."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from vera_lab.cli.main import main
from vera_lab.grounding.general import (
    SHIPPED,
    _pieces,
    _windows,
    decisive,
    load_verifier,
    passage_windows,
    read_artefact,
)
from vera_lab.grounding.verifier import VerifierError, recipe_from, recipe_options

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def general(tmp_path_factory):
    """The shipped verifier built into a fresh cache, as on a fresh clone."""
    return load_verifier("general", tmp_path_factory.mktemp("general-cache"))


def _copy_artefact(tmp_path: Path) -> Path:
    folder = tmp_path / "artefact"
    shutil.copytree(SHIPPED, folder)
    return folder


def test_the_shipped_artefact_holds_only_what_training_changed_and_matches_its_checksum():
    manifest, tensors = read_artefact(SHIPPED)
    frozen = manifest["train"]["frozen_layers"]
    layers = {int(n.split(".")[3]) for n in tensors if n.startswith("bert.encoder.layer.")}
    assert layers == set(range(frozen, manifest["train"]["layers"]))
    assert not any(n.startswith("bert.embeddings") for n in tensors)
    assert {"classifier.weight", "classifier.bias"} <= set(tensors)
    assert all(t.dtype == np.float16 for t in tensors.values())
    # Six trained layers, the pooler and the head in float16; the embeddings (23 MB) are MiniLM's
    assert (SHIPPED / manifest["weights"]).stat().st_size == manifest["bytes"] < 22_000_000
    assert set(manifest["pairs"]) == set(manifest["data"]["sources"])  # counts per source and label
    assert manifest["validation"]["all"]["pairs"] > 0  # held-out claims, scored after training


def test_a_damaged_artefact_is_refused_never_used(tmp_path):
    folder = _copy_artefact(tmp_path)
    weights = folder / "weights.safetensors"
    data = bytearray(weights.read_bytes())
    data[len(data) // 2] ^= 0xFF
    weights.write_bytes(bytes(data))
    with pytest.raises(VerifierError, match="does not match the sha256.*damaged"):
        load_verifier(folder, tmp_path / "cache")
    (folder / "manifest.json").write_text("{not json")
    with pytest.raises(VerifierError, match="manifest.json is damaged"):
        load_verifier(folder, tmp_path / "cache")
    (folder / "manifest.json").unlink()
    with pytest.raises(VerifierError, match="not a verifier: it has no manifest.json"):
        load_verifier(folder, tmp_path / "cache")
    with pytest.raises(VerifierError, match="no such folder"):
        load_verifier(tmp_path / "nowhere", tmp_path / "cache")


@pytest.mark.model
def test_a_damaged_build_in_the_cache_is_built_again(general, tmp_path):
    cache = tmp_path / "cache"
    first = load_verifier("general", cache)
    before = first.path.read_bytes()
    first.path.write_bytes(before[:1000])
    again = load_verifier("general", cache)
    assert again.path == first.path and again.path.read_bytes() == before


def test_windows_cover_the_passage_overlap_and_each_fits_the_reader():
    claim = "The receiving party may disclose confidential information to its employees."
    passage = " ".join(f"Clause {i}: the parties agree on item number {i}." for i in range(400))
    windows = passage_windows(claim, passage, max_length=128)
    assert len(windows) > 5
    assert windows[0][0] == 0 and windows[-1][1] == len(passage)
    for (s1, e1), (s2, _) in zip(windows, windows[1:], strict=False):
        assert s2 < e1 and s1 < s2  # neighbours share text and move forward
    tok = _pieces()
    claim_pieces = len(tok.encode(claim, add_special_tokens=False).ids)
    for s, e in windows:
        assert 3 + claim_pieces + len(tok.encode(passage[s:e], add_special_tokens=False).ids) <= 128
    covered = np.zeros(len(passage), dtype=bool)
    for s, e in windows:
        covered[s:e] = True
    assert covered.all()  # every character is read by some window
    assert passage_windows(claim, "A short passage.", 128) == [(0, 16)]


def test_windows_of_a_passage_with_no_pieces_and_of_one_enormous_word():
    assert _windows(5, [], 0, 64, 8) == [(0, 0)]
    offsets = [(i, i + 1) for i in range(300)]
    windows = _windows(5, offsets, 300, 64, 8)
    assert windows[0][0] == 0 and windows[-1][1] == 300


def test_the_decisive_window_is_the_one_that_settles_the_claim():
    windows = np.array([[0.1, 0.1, 0.8], [0.2, 0.7, 0.1], [0.6, 0.1, 0.3]])
    assert decisive(windows).tolist() == pytest.approx([0.2, 0.7, 0.1])


def test_training_options_without_adapt_are_refused_and_adapting_names_its_start():
    with pytest.raises(ValueError, match="epochs apply only when adapting.*adapt: true"):
        recipe_from({"epochs": 2})
    with pytest.raises(ValueError, match="adapt='yes': true or false"):
        recipe_from({"adapt": "yes"})
    with pytest.raises(ValueError, match="start 'bert': one of general, minilm"):
        recipe_from({"adapt": True, "start": "bert"})
    with pytest.raises(ValueError, match="keeps its 6 layers"):
        recipe_from({"adapt": True, "layers": 2, "frozen_layers": 1})
    general = recipe_options(recipe_from({}))
    manifest, _ = read_artefact(SHIPPED)
    assert general == {"adapt": False, "general": manifest["sha256"][:16]}
    adapted = recipe_options(recipe_from({"adapt": True}))
    assert (
        adapted["adapt"] is True
        and adapted["start"] == "general"
        and adapted["general"] == general["general"]
    )
    assert "general" not in recipe_options(
        recipe_from({"adapt": True, "start": "minilm", "layers": 2, "frozen_layers": 1})
    )


@pytest.mark.model
def test_adaptation_starts_from_the_general_verifier():
    from vera_lab.grounding.cross_encoder import TrainRecipe, train, trained_tensors
    from vera_lab.grounding.pairs import Pair

    _, tensors = read_artefact(SHIPPED)
    pairs = [Pair("c", "A claim.", "A passage.", 0, "d", 0, 10, "evidence")] * 4
    recipe = TrainRecipe(epochs=1, batch_size=4, learning_rate=1e-9, frozen_layers=4, max_length=32)
    model = train(pairs, recipe, progress=False, start=tensors)
    after = trained_tensors(model, 0)  # frozen layers included: they too must be the general verifier's
    for name, value in tensors.items():
        assert np.allclose(after[name], value.astype(np.float32), atol=1e-3), name


@pytest.mark.model
def test_predict_gives_probabilities_and_long_passages_are_read_whole(general):
    claim = "The receiving party may not disclose confidential information."
    filler = "The parties met in Geneva and discussed the weather at length. " * 120
    pairs = [
        (claim, "The receiving party shall not disclose any confidential information to third parties."),
        (claim, filler),
        (
            claim,
            filler + "The receiving party shall not disclose any confidential information to third parties.",
        ),
    ]
    probs = general.predict(pairs)
    assert probs.shape == (3, 3) and np.allclose(probs.sum(axis=1), 1, atol=1e-5)
    assert len(passage_windows(claim, pairs[2][1], general.max_length)) > 3
    # The statement at the end of a long passage is found by its window: that window settles the claim
    # more clearly than any window of the same filler without it.
    assert probs[2][:2].max() > probs[1][:2].max() + 0.2


def test_pairs_read_a_slice_at_a_time_get_the_probabilities_they_get_read_together(general, monkeypatch):
    import vera_lab.grounding.general as module

    filler = "The parties met in Geneva and discussed the weather at length. " * 40
    pairs = [
        (f"Claim {i}: the party may disclose it.", filler[: 80 * (i + 1)] + " It may not.") for i in range(7)
    ]
    together = general.predict(pairs)
    monkeypatch.setattr(module, "SLICE", 2)
    windows = []
    assert np.array_equal(general.predict(pairs, tick=windows.append), together)
    assert sum(windows) == sum(len(passage_windows(c, p, general.max_length)) for c, p in pairs)


def _write_csv(path: Path, rows: list[dict]) -> None:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


@pytest.mark.model
def test_verify_keeps_every_column_and_adds_probabilities_and_a_verdict(general, tmp_path, capsys):
    pairs = tmp_path / "answers.csv"
    _write_csv(pairs, [
        {"id": "1", "claim": "Bees pollinate crops.", "passage": "Honey bees pollinate many crops.", "run": "a"},
        {"id": "2", "claim": "Tea grows on the moon.", "passage": "Black tea takes hotter water.", "run": "b"},
    ])  # fmt: skip
    out = tmp_path / "judged.csv"
    cache = str(general.path.parents[2])
    assert main(["verify", str(pairs), "--out", str(out), "--cache-dir", cache]) == 0
    with out.open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert [r["id"] for r in rows] == ["1", "2"] and [r["run"] for r in rows] == ["a", "b"]
    for r in rows:
        p = [float(r[k]) for k in ("p_supported", "p_contradicted", "p_not_mentioned")]
        assert sum(p) == pytest.approx(1, abs=1e-4)
        assert r["verdict"] == ("supported", "contradicted", "not_mentioned")[int(np.argmax(p))]
    assert "2 pairs judged by the general" in capsys.readouterr().out
    jsonl = tmp_path / "answers.jsonl"
    jsonl.write_text(
        json.dumps({"claim": "Bees pollinate crops.", "passage": "Bees pollinate crops.", "n": 3}) + "\n"
    )
    assert main(["verify", str(jsonl), "--cache-dir", cache]) == 0
    row = json.loads(capsys.readouterr().out.strip())
    assert row["n"] == 3 and row["verdict"] in ("supported", "contradicted", "not_mentioned")


@pytest.mark.model
def test_verify_reads_a_one_megabyte_passage_in_windows(general, tmp_path, capsys):
    jsonl = tmp_path / "long.jsonl"
    passage = "The supplier delivers goods every Monday. " * 25_000  # about 1 MB
    jsonl.write_text(json.dumps({"claim": "The supplier delivers on Mondays.", "passage": passage}) + "\n")
    assert main(["verify", str(jsonl), "--cache-dir", str(general.path.parents[2])]) == 0
    row = json.loads(capsys.readouterr().out.strip())
    assert row["passage"] == passage  # read whole, returned whole
    assert row["verdict"] in ("supported", "contradicted", "not_mentioned")
    assert sum(row[k] for k in ("p_supported", "p_contradicted", "p_not_mentioned")) == pytest.approx(
        1, abs=1e-4
    )


def test_verify_answers_bad_input_in_words_and_writes_nothing(tmp_path, capsys):
    def error(*argv: str) -> str:
        assert main(["verify", *argv]) == 2
        return capsys.readouterr().err

    missing = tmp_path / "missing.csv"
    missing.write_text("claim,text\nA,B\n")
    assert "the header has no passage column (columns: claim, text)" in error(str(missing))
    empty = tmp_path / "empty.jsonl"
    empty.write_text('{"claim": "A", "passage": "B"}\n{"claim": "A", "passage": "  "}\n')
    assert "empty claim or passage on line 2" in error(str(empty))
    latin = tmp_path / "latin.csv"
    latin.write_bytes("claim,passage\nCaf\xe9,B\n".encode("latin-1"))
    assert "line 2: not UTF-8" in error(str(latin))
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"claim": "A", "passage": "B"}\n{"claim": \n')
    assert "broken.jsonl:2: invalid JSON" in error(str(broken))
    assert "give a .jsonl or .csv file" in error(str(tmp_path / "pairs.txt"))
    assert "no such file" in error(str(tmp_path / "absent.csv"))
    (tmp_path / "dir.jsonl").mkdir()
    good = tmp_path / "good.jsonl"
    good.write_text('{"claim": "A", "passage": "B"}\n')
    assert "is this command's own input" in error(str(good), "--out", str(good))
    assert "is a folder: name a file" in error(str(good), "--out", str(tmp_path / "dir.jsonl"))
    existing = tmp_path / "mine.csv"
    existing.write_text("precious\n")
    assert "exists: name another file, or pass --force" in error(str(good), "--out", str(existing))
    assert existing.read_text() == "precious\n" and good.read_text() == '{"claim": "A", "passage": "B"}\n'


def test_a_stored_verifier_identity_reads_back_as_the_same_recipe():
    for options in ({}, {"adapt": True}, {"adapt": True, "start": "minilm", "layers": 2, "frozen_layers": 1}):
        stored = recipe_options(recipe_from(options))
        assert recipe_options(recipe_from(stored)) == stored


@pytest.mark.model
def test_an_adapted_general_verifier_keeps_its_general_layers_and_scores_out_of_fold(tmp_path):
    from safetensors.numpy import load_file

    from tests.test_verifier import _claims, _corpus
    from vera_lab.grounding.cross_encoder import TrainRecipe
    from vera_lab.grounding.pairs import PairRecipe
    from vera_lab.grounding.verifier import VerifierRecipe, fit_verifier

    recipe = VerifierRecipe(folds=2, pairs=PairRecipe(hard_negatives=1), adapt=True,
                            train=TrainRecipe(epochs=1, max_length=48, batch_size=8))  # fmt: skip
    adapted = fit_verifier(_claims(), _corpus(), recipe, tmp_path, progress=False)
    tensors = load_file(str(adapted.directory / "all.safetensors"))
    # Only the layers adaptation trained are stored; the ones below are the shipped general verifier's
    assert {int(n.split(".")[3]) for n in tensors if n.startswith("bert.encoder.layer.")} == set(
        range(recipe.train.frozen_layers, 6)
    )
    assert {adapted.model_for(c) for c in _claims()} == {"fold0", "fold1"}
    assert adapted.describe()["start"] == "general"
    # The rebuilt int8 model (fold tensors on the general verifier) agrees with the trained one
    agreement = adapted.manifest["int8_agreement"]["all"]
    assert agreement["pairs"] > 0 and agreement["same_verdict"] >= 0.9 and agreement["mean_abs"] < 0.05


def test_public_pairs_hold_out_whole_claims_deterministically_and_twins_contradict_their_evidence():
    from vera_lab.grounding.pairs import CONTRADICTED, SUPPORTED
    from vera_lab.grounding.public_pairs import PublicRecipe, claim_key, public_pairs

    recipe = PublicRecipe(sources=("check-covid",), holdout=0.2, twins=True)
    train, held = public_pairs(recipe)
    assert (train, held) == public_pairs(recipe)
    assert held and not {claim_key(p) for p in train} & {claim_key(p) for p in held}
    assert 0.1 < len(held) / (len(train) + len(held)) < 0.3
    assert not [p for p in held if p.kind == "twin"]  # validation reads real pairs only
    originals = {p.claim_id: p for p in train if p.label == SUPPORTED}
    twins = [p for p in train if p.kind == "twin"]
    assert twins and all(p.label == CONTRADICTED for p in twins)
    for twin in twins:
        original = originals[twin.claim_id.split("~")[0]]
        assert twin.passage == original.passage and twin.claim != original.claim


def test_a_holdout_share_outside_zero_to_one_is_refused():
    from vera_lab.grounding.public_pairs import PublicRecipe

    with pytest.raises(ValueError, match="holdout=1"):
        PublicRecipe(holdout=1)


@pytest.mark.model
def test_training_every_layer_keeps_minilms_embeddings_which_the_artefact_does_not_store():
    from vera_lab.grounding.cross_encoder import TrainRecipe, new_model, train
    from vera_lab.grounding.pairs import Pair

    pairs = [Pair("c", "A claim.", "A passage.", i % 3, "d", 0, 10, "evidence") for i in range(6)]
    recipe = TrainRecipe(epochs=1, batch_size=3, learning_rate=1e-2, layers=1, frozen_layers=0, max_length=32)
    model = train(pairs, recipe, progress=False)
    before = new_model(1, 0).state_dict()
    after = model.state_dict()
    embeddings = [n for n in after if n.startswith("bert.embeddings.")]
    assert embeddings and all(after[n].equal(before[n]) for n in embeddings)
    assert not after["bert.encoder.layer.0.output.dense.weight"].equal(
        before["bert.encoder.layer.0.output.dense.weight"]
    )


def test_training_on_a_device_torch_cannot_use_is_refused_in_words(capsys):
    from vera_lab.grounding.general_training import main as train_main

    with pytest.raises(SystemExit) as stopped:
        train_main(["--device", "gpu"])
    assert stopped.value.code == 2 and "--device gpu: give cpu, or cuda" in capsys.readouterr().err
