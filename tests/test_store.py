"""Results store v2: one identity per configuration, data fingerprints, schema, complete tables,
interrupts, and the contracts of the layers below the sweep."""

import ast
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from vera_lab.chunking import MarkdownChunker, make_chunker
from vera_lab.cli import main
from vera_lab.embedding import CachedEmbedder, EmbeddingCache, get_embedder
from vera_lab.sweep import Configuration, ResultsStore, load_results, parse_config, run_sweep
from vera_lab.sweep.store import SCHEMA

HERE = Path(__file__).parent
TINY = HERE / "data" / "tiny"
STORE_V1 = HERE / "data" / "store-v1"


@pytest.fixture
def data(tmp_path):
    """A copy of the tiny dataset that a test may edit."""
    return Path(shutil.copytree(TINY, tmp_path / "data"))


def write_sweep(tmp_path, data, **overrides):
    raw = {
        "name": "mine",
        "dataset": str(data),
        "embedders": ["hashing"],
        "presets": ["docuchat-001"],
        "grid": [{"strategy": "fixed", "size": [40, 80], "overlap": [0]}],
    }
    raw.update(overrides)
    path = tmp_path / "sweep.yaml"
    path.write_text(json.dumps(raw))  # JSON is YAML
    return path


def sweep_cli(path, tmp_path, *extra):
    return main(["sweep", str(path), "--results-dir", str(tmp_path / "results"), "--cache-dir",
                 str(tmp_path / "cache"), "--no-report", *extra])  # fmt: skip


def snapshot(directory: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(directory)): p.read_bytes() for p in sorted(directory.rglob("*")) if p.is_file()
    }


# -- identity ---------------------------------------------------------------------------------


def test_three_spellings_of_one_chunker_give_one_id():
    spellings = [
        {"strategy": "fixed", "size": 1000, "overlap": 200},
        {"overlap": 200, "size": 1000, "strategy": "fixed"},
        {"strategy": "fixed", "size": 1000},  # 200 is the default
        {"strategy": "fixed", "size": 1000.0, "overlap": 200.0},
    ]
    ids = {Configuration.create(s).config_id for s in spellings}
    assert len(ids) == 1
    assert Configuration.create(spellings[0]).config_id != Configuration.create(spellings[0], k=3).config_id
    assert (
        Configuration.create(spellings[0], threshold=0.7).config_id
        == Configuration.create(spellings[0], threshold=0.70).config_id
    )


def test_a_preset_equal_to_a_grid_point_is_one_configuration_with_its_name():
    config = parse_config({"dataset": str(TINY), "presets": ["docuchat-001"], "embedders": ["hashing"],
                           "grid": [{"strategy": "fixed", "size": [1000, 500], "overlap": [200]},
                                    {"strategy": "fixed", "size": 1000}]})  # fmt: skip
    points = config.points()
    assert len(points) == 2
    assert points[0].presets == ("docuchat-001",) and points[0].chunker_params["size"] == 1000
    assert points[1].presets == ()


def test_point_round_trips_through_plain_data():
    point = Configuration.create({"strategy": "sentence", "size": 300}, "hashing", 3, 0.5, "cited", "mean",
                              ("x",))  # fmt: skip
    data = json.loads(json.dumps(point.to_dict()))
    assert Configuration.from_dict(data) == point
    assert data["chunker"]["min_size"] is None and data["chunker"]["tokenizer"] == "minilm"


# -- data fingerprint ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "edit,named",
    [
        ("claims", "claims.jsonl file changed"),
        ("corpus", "corpus.jsonl file changed"),
        ("sampling", "sampling changed (claims None -> 4)"),
    ],
)
def test_changed_data_stops_the_sweep_before_computing_anything(tmp_path, data, capsys, edit, named):
    path = write_sweep(tmp_path, data)
    assert sweep_cli(path, tmp_path) == 0
    store_dir = tmp_path / "results" / "mine"
    before = snapshot(store_dir)
    if edit == "claims":
        with (data / "claims.jsonl").open("a") as out:
            out.write(json.dumps({"claim_id": "c7", "claim": "Bees dance.", "label": "supported",
                                  "evidence": [{"doc_id": "bees", "start": 79, "end": 109}]}) + "\n")  # fmt: skip
    elif edit == "corpus":
        text = (data / "corpus.jsonl").read_text().replace("about 20 percent", "about 21 percent")
        (data / "corpus.jsonl").write_text(text)
    else:
        path = write_sweep(tmp_path, data, claims={"sample": 4})
    capsys.readouterr()
    assert sweep_cli(path, tmp_path) == 2
    err = capsys.readouterr().err
    assert named in err and "Nothing was computed" in err and "--restart" in err and "new name" in err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert snapshot(store_dir) == before


def test_a_changed_model_behind_an_embedder_name_stops_the_sweep(tmp_path, data, capsys, monkeypatch):
    # An embedder name can stand for another model later (new weights, another int8 recipe or
    # toolchain, a re-pulled Ollama model): its stored results must not be mixed with new ones.
    from vera_lab.embedding.hashing import HashingEmbedder
    from vera_lab.evaluation.resources import cached_embedder

    path = write_sweep(tmp_path, data)
    assert sweep_cli(path, tmp_path) == 0
    store_dir = tmp_path / "results" / "mine"
    assert json.loads((store_dir / "manifest.json").read_text())["embedder_models"] == {
        "hashing": "hashing-256"
    }
    before = snapshot(store_dir)
    original = HashingEmbedder.__init__

    def retrained(self, dim=256):
        original(self, dim)
        self.name = f"hashing-{dim}-retrained"

    monkeypatch.setattr(HashingEmbedder, "__init__", retrained)
    cached_embedder.cache_clear()
    capsys.readouterr()
    assert sweep_cli(path, tmp_path) == 2
    err = capsys.readouterr().err
    assert "embedder hashing was hashing-256 and is now hashing-256-retrained" in err
    assert "Nothing was computed" in err and "--restart" in err and "Traceback" not in err
    assert snapshot(store_dir) == before
    assert sweep_cli(path, tmp_path, "--restart") == 0
    assert json.loads((store_dir / "manifest.json").read_text())["embedder_models"] == {
        "hashing": "hashing-256-retrained"
    }
    cached_embedder.cache_clear()


def test_results_chunked_by_another_version_of_the_chunkers_are_not_resumed(tmp_path, data, capsys):
    # A fix that moves chunks (no chunk inside the one before) leaves the same configuration ids, so
    # stored rows are for chunks this vera-lab no longer makes: they must not be mixed with new ones.
    from vera_lab.chunking import CHUNKING_VERSION

    path = write_sweep(tmp_path, data)
    assert sweep_cli(path, tmp_path) == 0
    manifest_path = tmp_path / "results" / "mine" / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    assert manifest["chunking_version"] == CHUNKING_VERSION
    assert sweep_cli(path, tmp_path) == 0  # the same version resumes
    del manifest["chunking_version"]  # a store from before the number: the first version
    manifest_path.write_text(json.dumps(manifest))
    before = snapshot(manifest_path.parent)
    capsys.readouterr()
    assert sweep_cli(path, tmp_path) == 2
    err = capsys.readouterr().err
    assert (
        f"its chunks were made by chunking version 1, and this vera-lab makes version {CHUNKING_VERSION}"
        in err
    )
    assert "Nothing was computed" in err and "--restart" in err and err.count("\n") == 1
    assert snapshot(manifest_path.parent) == before
    # read, it warns: chunks made again from it (an export) may differ from those it measured
    with pytest.warns(UserWarning, match="made by chunking version 1, and this vera-lab makes version"):
        ResultsStore(manifest_path.parent).dataset()
    assert sweep_cli(path, tmp_path, "--restart") == 0
    assert json.loads(manifest_path.read_text())["chunking_version"] == CHUNKING_VERSION


def test_a_store_from_before_models_were_recorded_resumes_with_a_warning_each_time(tmp_path, data, capsys):
    path = write_sweep(tmp_path, data)
    assert sweep_cli(path, tmp_path) == 0
    manifest_path = tmp_path / "results" / "mine" / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    del manifest["embedder_models"]
    manifest_path.write_text(json.dumps(manifest))
    for _ in range(2):  # its models stay unknown: resuming does not vouch for them
        capsys.readouterr()
        assert sweep_cli(path, tmp_path) == 0
        assert "written before vera-lab recorded the model behind each embedder" in capsys.readouterr().err
        assert "embedder_models" not in json.loads(manifest_path.read_text())


def test_restart_moves_old_results_aside_and_starts_afresh(tmp_path, data, capsys):
    path = write_sweep(tmp_path, data)
    assert sweep_cli(path, tmp_path) == 0
    old = snapshot(tmp_path / "results" / "mine")
    path = write_sweep(tmp_path, data, claims={"sample": 4})
    assert sweep_cli(path, tmp_path, "--restart") == 0
    out = capsys.readouterr().out
    moved = [p for p in (tmp_path / "results").iterdir() if p.name.startswith("mine.")]
    assert len(moved) == 1 and f"moved to {moved[0]}" in out
    assert snapshot(moved[0]) == old
    assert "3 stored configs, 3 computed now" in out and "embedding: hashing on cpu" in out
    manifest = ResultsStore(tmp_path / "results" / "mine").read_manifest()
    assert manifest["data"]["claims"] == 4 and manifest["data"]["sampling"]["claims"] == 4


def test_data_record_keeps_hashes_sampling_and_chosen_ids(tmp_path, data):
    run = run_sweep(parse_config({"name": "s", "dataset": str(data), "embedders": ["hashing"],
                                  "presets": [], "claims": {"sample": 3, "seed": 7},
                                  "grid": [{"strategy": "fixed", "size": 40, "overlap": 0}]}),
                    tmp_path, cache_dir=tmp_path / "cache", progress=False)  # fmt: skip
    record = json.loads((run.directory / "data.json").read_text())
    assert record["sampling"] == {
        "claims": 3,
        "distractors": None,
        "seed": 7,
        "holdout": 0.0,
        "part": "selection",
        "documents": None,
    }
    assert len(record["claim_ids"]) == 3 and record["files"]["claims.jsonl"]
    rows = ResultsStore(run.directory).stored_rows()
    assert {r["data_fingerprint"] for r in rows.values()} == {record["fingerprint"]}
    per_claim = ResultsStore(run.directory).per_claim(run.table.config_id[0])
    assert sorted(per_claim.claim_id) == sorted(record["claim_ids"])


def test_a_failed_configuration_is_retried_on_the_next_run(tmp_path, data, monkeypatch):
    import vera_lab.evaluation.stages as runner  # where a built configuration is evaluated

    config = parse_config({"name": "r", "dataset": str(data), "embedders": ["hashing"], "presets": [],
                           "grid": [{"strategy": "fixed", "size": [40, 80], "overlap": 0}]})  # fmt: skip
    real = runner.evaluate

    def flaky(dataset, system, *args):
        if system.chunker.size == 80:
            raise RuntimeError("server down")
        return real(dataset, system, *args)

    monkeypatch.setattr(runner, "evaluate", flaky)
    first = run_sweep(config, tmp_path, cache_dir=tmp_path / "cache", progress=False)
    assert sorted(first.table.status) == ["failed", "ok"]
    monkeypatch.setattr(runner, "evaluate", real)
    second = run_sweep(config, tmp_path, cache_dir=tmp_path / "cache", progress=False)
    assert (second.recomputed, second.retried) == (1, 1) and (second.table.status == "ok").all()


# -- schema -------------------------------------------------------------------------------------


def test_a_store_of_the_previous_schema_is_refused_with_the_way_on(tmp_path, capsys):
    assert json.loads((STORE_V1 / "manifest.json").read_text()).get("schema") is None
    assert main(["report", str(STORE_V1)]) == 2
    err = capsys.readouterr().err
    assert "results schema 1" in err and "--restart" in err and err.count("\n") == 1
    results = tmp_path / "results"
    shutil.copytree(STORE_V1, results / "store-v1")
    assert main(["runs", "--results-dir", str(results)]) == 0
    assert "cannot be read" in capsys.readouterr().out
    path = write_sweep(tmp_path, TINY, name="store-v1")
    before = snapshot(results / "store-v1")
    assert sweep_cli(path, tmp_path) == 2 and "results schema 1" in capsys.readouterr().err
    assert snapshot(results / "store-v1") == before
    assert sweep_cli(path, tmp_path, "--restart") == 0
    assert ResultsStore(results / "store-v1").read_manifest()["schema"] == SCHEMA


def test_a_corrupt_manifest_names_the_file(tmp_path, data, capsys):
    path = write_sweep(tmp_path, data)
    assert sweep_cli(path, tmp_path) == 0
    manifest = tmp_path / "results" / "mine" / "manifest.json"
    manifest.write_text("{not json")
    capsys.readouterr()
    assert main(["report", str(manifest.parent)]) == 2
    assert f"{manifest}:1: not valid JSON" in capsys.readouterr().err


# -- tables and comparisons ------------------------------------------------------------------------


def test_results_table_has_every_parameter_params_json_and_ranks(tmp_path):
    config = parse_config({"name": "t", "dataset": str(TINY), "embedders": ["hashing"], "k": [1, 3],
                           "presets": ["docuchat-001"],
                           "grid": [{"strategy": "fixed", "size": [40, 80], "overlap": 0},
                                    {"strategy": "sentence", "size": [60], "min_size": 0}]})  # fmt: skip
    run = run_sweep(config, tmp_path, cache_dir=tmp_path / "cache", progress=False)
    table = pd.read_csv(run.directory / "results.csv")
    expected = {"param_strategy", "param_size", "param_overlap", "param_unit", "param_tokenizer",
                "param_min_size", "param_max_size", "param_overlap_unit", "param_k", "param_embedder",
                "param_aggregate", "param_scope", "param_threshold", "param_scorer", "params", "rank_mrr"}  # fmt: skip
    assert expected <= set(table.columns)
    fixed = table[table.param_strategy == "fixed"]
    assert set(fixed.param_overlap) == {0, 200} and set(table.param_k) == {1, 3}
    params = json.loads(table.params[0])
    assert set(params) == {"chunker", "embedder", "k", "threshold", "scope", "aggregate", "scorer"}
    expected_rank = table.mrr.rank(ascending=False, method="min").astype(int)
    assert list(table.rank_mrr) == list(expected_rank)


def test_rivals_share_k_and_labels_show_every_varying_parameter(tmp_path):
    from vera_lab.report import load_run, summary_table

    config = parse_config({"name": "k", "dataset": str(TINY), "embedders": ["hashing"], "k": [1, 5],
                           "presets": ["docuchat-001"],
                           "grid": [{"strategy": "fixed", "size": [40, 80], "overlap": [0]}]})  # fmt: skip
    run = run_sweep(config, tmp_path, cache_dir=tmp_path / "cache", progress=False)
    rec = json.loads((run.directory / "recommendation.json").read_text())
    table = run.table.set_index("config_id")
    best_k = table.loc[rec["config_id"], "param_k"]
    compared = [*rec["comparisons_with_best"], *(c["config_id"] for c in rec["vs_presets"].values())]
    assert compared and all(table.loc[cid, "param_k"] == best_k for cid in compared)
    assert rec["best_by_metric"]["config_id"] not in rec["comparisons_with_best"]
    assert all(c["config_id"] != rec["config_id"] for c in rec["vs_presets"].values())
    assert rec["n_compared"] == 3 and rec["compared_at"]["k"] == best_k
    labels = summary_table(load_run(run.directory)).config.str.removeprefix("* ")
    assert labels.str.contains(r"k=[15]\)?$").all() and labels.str.startswith("docuchat-001 (").sum() == 2


# -- interrupts -----------------------------------------------------------------------------------


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_mid_sweep_leaves_a_resumable_store_and_says_how_to_resume(tmp_path, sig):
    path = tmp_path / "slow.yaml"
    path.write_text(json.dumps({"name": "slow", "dataset": str(TINY), "embedders": ["hashing"], "presets": [],
                                "grid": [{"strategy": "fixed", "size": list(range(40, 240, 10)),
                                          "overlap": [0]}]}))  # fmt: skip
    args = ["sweep", str(path), "--results-dir", str(tmp_path / "r"), "--cache-dir", str(tmp_path / "c"),
            "--no-report"]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(HERE.parent)}
    proc = subprocess.Popen([sys.executable, str(HERE / "slow_sweep.py"), *args], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)  # fmt: skip
    configs = tmp_path / "r" / "slow" / "configs"
    deadline = time.time() + 60
    while time.time() < deadline and len(list(configs.glob("*.json"))) < 3:
        time.sleep(0.05)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    stored = len(list(configs.glob("*.json")))
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    lines = [
        line for line in err.splitlines() if line.strip() and not line.startswith(("sweep ", "estimate: "))
    ]
    lines = [line for line in lines if ": warning: " not in line]  # validity warnings come first
    assert len(lines) == 1, err  # one line after the progress bar
    assert f"interrupted ({sig.name}): {stored} of 20 configurations stored" in lines[0]
    assert "resume with: " in lines[0] and str(path) in lines[0]
    assert not list((tmp_path / "r").glob("**/.*.tmp"))
    resumed = run_sweep(
        parse_config(json.loads(path.read_text())), tmp_path / "r", cache_dir=tmp_path / "c", progress=False
    )
    assert resumed.recomputed == 20 - stored and len(load_results(resumed.directory)) == 20


# -- contracts of the lower layers --------------------------------------------------------------------


@pytest.mark.parametrize("strategy", ["markdown", "code", "pdf", "semantic", "tiered"])
def test_structure_chunkers_reject_overlap_and_units_they_cannot_honour(strategy):
    with pytest.raises(ValueError, match="does not overlap chunks"):
        make_chunker(strategy, overlap=10)
    with pytest.raises(ValueError, match="unit='chars'"):
        make_chunker(strategy, unit="chars")


def test_cache_dir_is_not_a_chunker_parameter():
    with pytest.raises(ValueError, match="no parameter cache_dir"):
        make_chunker("semantic", cache_dir="x")
    assert "embed" not in make_chunker("semantic").params()
    assert MarkdownChunker().config_id == MarkdownChunker().config_id


def test_embedders_declare_whether_they_fit_the_corpus(tmp_path):
    assert get_embedder("tfidf").fits_corpus and not get_embedder("hashing").fits_corpus
    assert not isinstance(get_embedder("tfidf", cache_dir=tmp_path), CachedEmbedder)
    assert isinstance(get_embedder("hashing", cache_dir=tmp_path), CachedEmbedder)
    with pytest.raises(ValueError, match="cannot be cached"):
        CachedEmbedder(get_embedder("tfidf"), EmbeddingCache(tmp_path))


def test_the_sweep_cache_dir_reaches_the_semantic_chunker(tmp_path):
    config = parse_config({"name": "sem", "dataset": str(TINY), "embedders": ["hashing"], "presets": [],
                           "grid": [{"strategy": "semantic", "size": 64, "embedder": "hashing-32",
                                     "fallback_size": 32, "fallback_overlap": 8}]})  # fmt: skip
    run = run_sweep(config, tmp_path, cache_dir=tmp_path / "cache", progress=False)
    assert (run.table.status == "ok").all()
    assert EmbeddingCache(tmp_path / "cache").count("hashing-32") > 0


# Lower layers never import higher ones (data flows one way). Same rank: no import either way.
LAYERS = {
    "types": 0, "tokens": 0, "language": 0, "llm": 0, "data": 1, "embedding": 2, "chunking": 3, "retrieval": 4,
    "metrics": 4, "grounding": 5, "evaluation": 6, "sweep": 9, "labelling": 9.5, "report": 10,
    "notebook": 11, "integrations": 11, "cli": 12, "__init__": 12,
}  # fmt: skip


def imports_by_unit() -> dict[str, set[str]]:
    root = HERE.parent / "vera_lab"
    graph: dict[str, set[str]] = {}
    for path in root.rglob("*.py"):
        unit = path.relative_to(root).with_suffix("").parts[0]
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("vera_lab"):
                names = (
                    [f"{node.module}.{a.name}" for a in node.names]
                    if node.module == "vera_lab"
                    else [node.module]
                )
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names if a.name.startswith("vera_lab")]
            for name in names:
                target = name.split(".")[1]
                if target != unit:
                    graph.setdefault(unit, set()).add(target)
    return graph


def test_lower_layers_never_import_higher_ones():
    graph = imports_by_unit()
    assert set(graph) <= set(LAYERS)
    upward = [(a, b) for a, targets in graph.items() for b in targets if LAYERS[b] >= LAYERS[a]]
    assert upward == []
    assert not {"llm", "quality_judge"} & graph["chunking"]
