import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from vera_lab.cli import main
from vera_lab.sweep import ResultsStore, load_config, load_results, parse_config, run_sweep

TINY = Path(__file__).parent / "data" / "tiny"


def config(tmp_path, **overrides):
    raw = {
        "name": "t",
        "dataset": str(TINY),
        "embedders": ["hashing"],
        "presets": ["docuchat-001"],
        "metric": "mrr",
        "grid": [{"strategy": "fixed", "size": [40, 80], "overlap": [0, 0.2]},
                 {"strategy": "sentence", "size": [60], "overlap": [0], "min_size": [0]}],
    }  # fmt: skip
    raw.update(overrides)
    return parse_config(raw)


def test_grid_order_and_ids_are_deterministic(tmp_path):
    a, b = config(tmp_path).points(), config(tmp_path).points()
    assert [p.config_id for p in a] == [p.config_id for p in b]
    assert a[0].preset == "docuchat-001" and len(a) == 6
    assert len({p.config_id for p in a}) == 6


def test_sweep_stores_rows_claims_manifest_and_recommendation(tmp_path):
    run = run_sweep(config(tmp_path), tmp_path, cache_dir=tmp_path / "cache", progress=False)
    table = load_results(run.directory)
    assert len(table) == 6 and (table.status == "ok").all()
    assert {
        "param_size",
        "param_overlap",
        "mrr",
        "mrr_ci_low",
        "mrr_ci_high",
        "cost_n_chunks",
        "cost_embed_s",
    } <= set(table.columns)
    store = ResultsStore(run.directory)
    claims = store.per_claim(table.config_id[0])
    assert list(claims.claim_id) == [f"c{i}" for i in range(1, 7)]
    assert {"score", "label", "gold_ranks", "rr"} <= set(claims.columns)
    manifest = store.read_manifest()
    assert set(manifest["data"]["files"]) == {"corpus.jsonl", "claims.jsonl"}
    assert manifest["versions"]["numpy"] and manifest["config_order"] == list(table.config_id)
    assert manifest["embedding_devices"] == {"hashing": "cpu"}
    rec = json.loads((run.directory / "recommendation.json").read_text())
    best = rec["best_by_metric"]
    assert (
        rec["config_id"] in rec["indistinguishable"] and best["config_id"] not in rec["comparisons_with_best"]
    )
    assert best["value"] == pytest.approx(table.mrr.max())
    members = table[table.config_id.isin(rec["indistinguishable"])].set_index("config_id")
    # Six claims are too few to trust the cheapest of the set: the best estimate is recommended, the
    # rule's cheapest is named, and the runner-up is compared with it.
    assert rec["thin_data"] and rec["config_id"] == best["config_id"]
    assert members.loc[rec["cheapest_by_rule"], "cost_n_chunks"] == members.cost_n_chunks.min()
    assert rec["prefer"] == "smallest_index" and rec["rule"].startswith("the best point estimate by mrr")
    runner = table.set_index("config_id").drop(best["config_id"]).sort_values("mrr", ascending=False)
    assert rec["runner_up"]["diff"] == pytest.approx(best["value"] - runner.mrr.iloc[0])
    written = pd.read_csv(run.directory / "results.csv").set_index("config_id")
    assert written.loc[rec["config_id"], "not_worse_than_best"]


def test_rerun_recomputes_nothing(tmp_path):
    first = run_sweep(config(tmp_path), tmp_path, cache_dir=tmp_path / "cache", progress=False)
    before = {p.name: p.stat().st_mtime_ns for p in (first.directory / "configs").iterdir()}
    second = run_sweep(config(tmp_path), tmp_path, cache_dir=tmp_path / "cache", progress=False)
    assert first.recomputed == 6 and second.recomputed == 0
    assert before == {p.name: p.stat().st_mtime_ns for p in (second.directory / "configs").iterdir()}


def test_sigkill_mid_sweep_then_resume(tmp_path):
    raw = {"name": "killed", "dataset": str(TINY), "embedders": ["hashing"], "presets": [],
           "grid": [{"strategy": "fixed", "size": list(range(40, 240, 10)), "overlap": [0]}]}  # fmt: skip
    path = tmp_path / "killed.yaml"
    path.write_text(json.dumps(raw))
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[1])}
    args = [
        "sweep",
        str(path),
        "--results-dir",
        str(tmp_path),
        "--cache-dir",
        str(tmp_path / "cache"),
        "--no-report",
    ]
    proc = subprocess.Popen([sys.executable, str(Path(__file__).parent / "slow_sweep.py"), *args], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    configs = tmp_path / "killed" / "configs"
    deadline = time.time() + 60
    while time.time() < deadline and len(list(configs.glob("*.json"))) < 3:
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    stored = {p.name: p.read_bytes() for p in configs.glob("*.json")}
    assert 3 <= len(stored) < 20
    torn = configs / ".deadbeef.json.x1y2z3w4.tmp"  # what a kill during a write leaves behind
    torn.write_text("{partial")
    resumed = run_sweep(parse_config(raw), tmp_path, cache_dir=tmp_path / "cache", progress=False)
    assert not torn.exists() and not list((tmp_path / "killed").glob("**/.*.tmp"))
    assert resumed.recomputed == 20 - len(stored)
    assert all((configs / name).read_bytes() == data for name, data in stored.items())
    assert len(load_results(resumed.directory)) == 20
    assert (
        run_sweep(parse_config(raw), tmp_path, cache_dir=tmp_path / "cache", progress=False).recomputed == 0
    )


def test_a_failing_config_is_recorded_and_the_sweep_goes_on(tmp_path, monkeypatch):
    cfg = config(tmp_path, embedders=["hashing", "ollama:absent-model"], presets=[])
    monkeypatch.setenv("OLLAMA_HOST", "127.0.0.1:9")  # the discard port: connection refused
    run = run_sweep(cfg, tmp_path, cache_dir=tmp_path / "cache", progress=False)
    table = run.table
    failed = table[table.status == "failed"]
    assert len(failed) == 5 and (table.status == "ok").sum() == 5
    assert failed.error.str.contains("ollama serve").all()


def test_halving_screens_with_tfidf_keeps_by_evidence_and_always_confirms_presets(tmp_path):
    run = run_sweep(config(tmp_path, halving={"screen": "tfidf", "keep": 0.2, "calibration": 1}), tmp_path,
                    cache_dir=tmp_path / "cache", halving=True, progress=False)  # fmt: skip
    report = json.loads((run.directory / "halving.json").read_text())
    screen = ResultsStore(run.directory / "screen").rows()
    assert len(report["screened"]) == 6 and set(screen.param_embedder) == {"tfidf"}
    assert set(run.table.param_embedder) == {"hashing"}  # the full run holds full runs only
    preset = next(p for p in config(tmp_path).points() if p.presets)
    assert report["kept_presets"] == [preset.config_id] and preset.config_id in set(run.table.config_id)
    confirmed = set(run.table.config_id)
    kept = set(report["kept_by_evidence"]) | set(report["kept_by_floor"]) | set(report["kept_presets"])
    assert confirmed == kept | set(report["calibration"])
    assert {d["config_id"] for d in report["dropped"]}.isdisjoint(kept)
    fidelity = report["fidelity"]
    assert fidelity["n"] == len(confirmed) and "top_pick_in_set" in fidelity
    rec = json.loads((run.directory / "recommendation.json").read_text())
    assert rec["config_id"] in confirmed


def test_dask_local_cluster(tmp_path):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        with distributed.Client(cluster) as client:
            run = run_sweep(config(tmp_path), tmp_path, cache_dir=tmp_path / "cache",
                            executor=client.get_executor(), progress=False)  # fmt: skip
    assert run.recomputed == 6 and (run.table.status == "ok").all()
    serial = run_sweep(
        config(tmp_path, name="serial"), tmp_path, cache_dir=tmp_path / "cache", progress=False
    )
    assert list(serial.table.mrr.round(10)) == list(run.table.mrr.round(10))


@pytest.mark.parametrize(
    "text,message",
    [
        ("name: [unclosed", "invalid YAML"),
        ("dataset: DATA\ngrid:\n  - strategy: nope\n", "grid[0]: unknown strategy 'nope'"),
        (
            "dataset: DATA\ngrid:\n  - strategy: fixed\n    chunk_size: [5]\n",
            "fixed has no parameter 'chunk_size'",
        ),
        ("dataset: DATA\npresets: []\ngrid: []\n", "the grid is empty"),
        ("dataset: /nonexistent/place\n", "dataset /nonexistent/place: no corpus.jsonl or claims.jsonl"),
        ("dataset: DATA\nmetrik: mrr\n", "unknown key 'metrik'"),
        ("dataset: DATA\ndevice: gpu\n", "device 'gpu': choose one of auto, cpu, cuda"),
        (
            "dataset: DATA\ngrid:\n  - strategy: fixed\n    size: [100]\n    overlap: [100]\n",
            "overlap=100 must be smaller",
        ),
    ],
)
def test_bad_sweep_configs_give_one_line_errors(tmp_path, capsys, text, message):
    path = tmp_path / "bad.yaml"
    path.write_text(text.replace("DATA", str(TINY)))
    assert main(["sweep", str(path), "--results-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and str(path) in err


def test_load_config_relative_dataset(tmp_path):
    path = Path(__file__).parent / "data" / "tiny-sweep.yaml"
    cfg = load_config(path)
    assert Path(cfg.dataset).resolve() == TINY.resolve()
