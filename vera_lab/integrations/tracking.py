"""Log a sweep to MLflow: one run per configuration under a parent run for the sweep.

Each configuration's run holds its parameters (every ``param_*`` column), its metrics with their 95%
CI bounds, its cost, and tags for the sweep, the dataset fingerprint and the config id. The parent
run holds the recommendation, the confirmation and the report as artifacts. Logging again after a
resumed sweep reuses the parent of the same sweep and data and adds only configurations not yet
logged, so the tracker never holds two runs of one result.

The default URI is a local ``./mlruns`` file store; MLflow 3 keeps that backend in maintenance mode
and refuses it unless ``MLFLOW_ALLOW_FILE_STORE`` is set, which is done for local folders and
file:// URIs only.
Any other URI (``sqlite:///mlflow.db``, ``http://127.0.0.1:5000``) is passed through.
"""

from __future__ import annotations

import importlib.util
import math
import os
import socket
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pandas as pd

from vera_lab.sweep.store import ResultsStore

DEFAULT_URI = "./mlruns"
_TAG = "vera_lab."  # prefix of the tags vera_lab writes
_ARTIFACTS = ("recommendation.json", "confirmation.json", "halving.json", "manifest.json", "results.csv",
              "report.md", "report.html")  # fmt: skip
_NOT_METRICS = ("param_", "rank_")


class TrackingError(RuntimeError):
    """MLflow is missing or the tracking URI cannot be written; the message says what to do."""


SCHEMES = ("", "file", "http", "https", "sqlite", "postgresql", "mysql", "mssql", "databricks")
DATABASE_SCHEMES = ("sqlite", "postgresql", "mysql", "mssql")


def check_uri(uri: str) -> None:
    """Fail fast, before a sweep runs, when MLflow is missing or a tracking server does not answer."""
    _client_class()
    parsed = urlparse(uri)
    if parsed.scheme not in SCHEMES:
        raise TrackingError(
            f"--mlflow {uri}: unknown scheme {parsed.scheme!r}; give a local folder (./mlruns), "
            "file:///PATH, sqlite:///FILE.db or http(s)://HOST:PORT"
        )
    if parsed.scheme in DATABASE_SCHEMES:
        missing = [name for name in ("sqlalchemy", "alembic") if importlib.util.find_spec(name) is None]
        if missing:
            raise TrackingError(
                f"--mlflow {uri}: MLflow's database store needs {' and '.join(missing)}, not installed here: "
                f"pip install {' '.join(missing)} (or log to a local folder such as ./mlruns)"
            )
    if parsed.scheme in ("http", "https"):
        port = parsed.port or (443 if parsed.scheme == "https" else 80)
        try:
            socket.create_connection((parsed.hostname, port), timeout=5).close()
        except OSError as exc:
            raise TrackingError(
                f"MLflow at {uri}: no tracking server answers ({exc.strerror or exc}); start it "
                "(mlflow server) or give a local path such as ./mlruns"
            ) from None


def client_for(uri: str = DEFAULT_URI):
    """An ``MlflowClient`` for ``uri``; a plain local path is a file store."""
    client_class = _client_class()
    parsed = urlparse(uri)
    if "://" not in uri or parsed.scheme == "file":  # a file store: allowed, its folder made
        os.environ.setdefault("MLFLOW_ALLOW_FILE_STORE", "true")
        Path(parsed.path if parsed.scheme == "file" else uri).mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("MLFLOW_HTTP_REQUEST_MAX_RETRIES", "2")  # not minutes of back-off on a dead server
    os.environ.setdefault("MLFLOW_HTTP_REQUEST_TIMEOUT", "30")
    return client_class(tracking_uri=uri)


def _client_class():
    try:
        from mlflow.tracking import MlflowClient
    except ImportError as exc:
        raise TrackingError("--mlflow needs MLflow: pip install 'vera-lab[mlflow]'") from exc
    return MlflowClient


def log_sweep(run_dir: str | Path, uri: str = DEFAULT_URI) -> tuple[str, int]:
    """Log the sweep stored in ``run_dir``; returns the parent run id and how many configurations were new."""
    store = ResultsStore(run_dir)
    manifest = store.read_manifest()
    table = pd.read_csv(store.dir / "results.csv")
    sweep, fingerprint = manifest["sweep_id"], manifest["data"]["fingerprint"]
    client = client_for(uri)
    try:
        experiment = client.get_experiment_by_name(sweep)
        experiment_id = experiment.experiment_id if experiment else client.create_experiment(sweep)
        parent = _parent_run(client, experiment_id, sweep, fingerprint)
        logged = {
            r.data.tags.get(f"{_TAG}config_id")
            for r in client.search_runs(
                [experiment_id], f"tags.mlflow.parentRunId = '{parent}'", max_results=50_000
            )
        }
        new = 0
        for row in table.to_dict("records"):
            if row["config_id"] in logged or row.get("status") != "ok":
                continue
            _log_configuration(client, experiment_id, parent, row, sweep, fingerprint)
            new += 1
        for name in _ARTIFACTS:
            if (store.dir / name).is_file():
                client.log_artifact(parent, str(store.dir / name))
        if (store.dir / "report_files").is_dir():
            client.log_artifacts(parent, str(store.dir / "report_files"), "report_files")
        client.set_terminated(parent)
    except TrackingError:
        raise
    except Exception as exc:  # noqa: BLE001 - any store failure becomes one clear line
        raise TrackingError(f"MLflow at {uri}: {type(exc).__name__}: {exc}") from exc
    return parent, new


def _parent_run(client, experiment_id: str, sweep: str, fingerprint: str) -> str:
    query = f"tags.{_TAG}role = 'sweep' and tags.{_TAG}data_fingerprint = '{fingerprint}'"
    found = client.search_runs([experiment_id], query, max_results=1)
    if found:
        client.update_run(found[0].info.run_id, status="RUNNING")
        return found[0].info.run_id
    tags = {f"{_TAG}role": "sweep", f"{_TAG}sweep": sweep, f"{_TAG}data_fingerprint": fingerprint}
    return client.create_run(experiment_id, run_name=sweep, tags=tags).info.run_id


def _log_configuration(
    client, experiment_id: str, parent: str, row: dict[str, Any], sweep: str, fingerprint: str
):
    from mlflow.entities import Metric, Param

    tags = {"mlflow.parentRunId": parent, f"{_TAG}sweep": sweep, f"{_TAG}data_fingerprint": fingerprint,
            f"{_TAG}config_id": row["config_id"]}  # fmt: skip
    run_id = client.create_run(
        experiment_id, run_name=str(row.get("label") or row["config_id"]), tags=tags
    ).info.run_id
    params = [
        Param(k.removeprefix("param_"), str(v))
        for k, v in row.items()
        if k.startswith("param_") and _present(v)
    ]
    metrics = [
        Metric(k, float(v), 0, 0)
        for k, v in row.items()
        if not k.startswith(_NOT_METRICS)
        and isinstance(v, int | float)
        and not isinstance(v, bool)
        and _present(v)
    ]
    client.log_batch(run_id, metrics=metrics, params=params)
    client.set_terminated(run_id)


def _present(value: Any) -> bool:
    return value is not None and not (isinstance(value, float) and math.isnan(value)) and value != ""
