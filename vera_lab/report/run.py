"""A stored sweep loaded for reporting, and how its configurations are named."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from vera_lab.chunking import make_chunker
from vera_lab.sweep.recommend import chunker_params, ranked
from vera_lab.sweep.store import ResultsStore


@dataclass
class Run:
    """A stored sweep loaded for reporting."""

    store: ResultsStore
    manifest: dict[str, Any]
    table: pd.DataFrame
    recommendation: dict[str, Any]

    @property
    def metric(self) -> str:
        return self.recommendation.get("metric") or self.manifest["config"]["metric"]

    def dataset(self):
        """The dataset the sweep ran on, with its sampling applied."""
        from vera_lab.sweep.runner import manifest_dataset

        return manifest_dataset(self.manifest)

    @property
    def final(self) -> pd.DataFrame:
        return ranked(self.table, self.metric, self.manifest.get("final_config_ids"))


def load_run(directory: str | Path) -> Run:
    """Load a results directory written by ``run_sweep``."""
    store = ResultsStore(directory)
    manifest = store.read_manifest()
    rec_path = store.dir / "recommendation.json"
    recommendation = store.read_json("recommendation.json") if rec_path.exists() else {}
    return Run(store, manifest, store.rows(), recommendation)


def config_label(row: pd.Series) -> str:
    """A short human name: "preset (strategy size/overlap unit)"."""
    chunker = _chunker(row)
    overlap = getattr(chunker, "overlap", 0)
    text = f"{chunker.strategy} {chunker.size}/{overlap:g} {chunker.unit}"
    return f"{row.preset} ({text})" if isinstance(row.preset, str) and row.preset else text


def unit_of(row: pd.Series) -> str:
    """The size unit of a row's chunker (its default when the row does not set one)."""
    return _chunker(row).unit


def _chunker(row: pd.Series):
    params = chunker_params(row)
    return make_chunker(params.pop("strategy"), **params)
