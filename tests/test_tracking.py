"""MLflow logging of a sweep, read back with MLflow's own client from a real local store."""

import json
from pathlib import Path

import pandas as pd
import pytest

from vera_lab.cli import main

pytest.importorskip("mlflow")
from mlflow.tracking import MlflowClient  # noqa: E402

TINY = Path(__file__).parent / "data" / "tiny"


def test_sweep_with_mlflow_logs_every_configuration_and_the_artifacts_once(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    sweep = tmp_path / "s.yaml"
    sweep.write_text(json.dumps({
        "name": "tracked", "dataset": str(TINY), "embedders": ["hashing"], "presets": ["docuchat-001"],
        "metric": "mrr", "grid": [{"strategy": "fixed", "size": [40, 80], "overlap": [0, 0.2]}],
    }))  # fmt: skip
    args = ["sweep", str(sweep), "--results-dir", "results", "--quiet", "--mlflow"]
    assert main(args) == 0
    assert "mlflow: 5 new configuration runs" in capsys.readouterr().out

    client = MlflowClient(tracking_uri=str(tmp_path / "mlruns"))  # the default URI, ./mlruns
    experiment = client.get_experiment_by_name("tracked")
    runs = client.search_runs([experiment.experiment_id])
    parent = next(r for r in runs if r.data.tags.get("vera_lab.role") == "sweep")
    children = [r for r in runs if r.data.tags.get("mlflow.parentRunId") == parent.info.run_id]
    table = pd.read_csv(tmp_path / "results" / "tracked" / "results.csv").set_index("config_id")
    assert sorted(r.data.tags["vera_lab.config_id"] for r in children) == sorted(table.index)
    fingerprint = json.loads((tmp_path / "results" / "tracked" / "manifest.json").read_text())["data"][
        "fingerprint"
    ]
    for run in children:
        row = table.loc[run.data.tags["vera_lab.config_id"]]
        metrics = run.data.metrics
        for name in (
            "mrr",
            "mrr_ci_low",
            "mrr_ci_high",
            "hit",
            "grounding_f1",
            "cost_n_chunks",
            "cost_embed_s",
        ):
            assert metrics[name] == pytest.approx(row[name], rel=1e-12), name
        assert run.data.params["size"] == str(row["param_size"]) and run.data.params["embedder"] == "hashing"
        assert (
            run.data.tags["vera_lab.data_fingerprint"]
            == fingerprint
            == parent.data.tags["vera_lab.data_fingerprint"]
        )
    artifacts = {a.path for a in client.list_artifacts(parent.info.run_id)}
    assert {"recommendation.json", "results.csv", "report.md", "report.html"} <= artifacts

    assert main(args) == 0  # the same sweep again: nothing new, no second parent
    assert "mlflow: 0 new configuration runs" in capsys.readouterr().out
    assert len(client.search_runs([experiment.experiment_id])) == len(runs)


def test_an_unwritable_tracking_uri_is_one_clear_line(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    sweep = tmp_path / "s.yaml"
    sweep.write_text(json.dumps({"name": "t", "dataset": str(TINY), "embedders": ["hashing"], "presets": [],
                                 "grid": [{"strategy": "fixed", "size": [40], "overlap": [0]}]}))  # fmt: skip
    assert (
        main(["sweep", str(sweep), "--results-dir", "results", "--quiet", "--mlflow", "http://127.0.0.1:9"])
        == 2
    )
    err = capsys.readouterr().err
    assert err.startswith("vera-lab sweep: error: MLflow at http://127.0.0.1:9: no tracking server answers")
    assert err.count("\n") == 1 and not (tmp_path / "results").exists()  # refused before any work
